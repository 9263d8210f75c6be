"""Every warning the extension emits, with a subtype users can silence.

``suppress_warnings = ["infralens.resolve"]`` in ``conf.py`` hides one kind;
``suppress_warnings = ["infralens"]`` hides them all.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from sphinx.util import logging

from infralens.errors import Diagnostic

if TYPE_CHECKING:
    from docutils import nodes

logger = logging.getLogger("infralens.sphinx")


class Subtype(str, Enum):
    """The ``infralens.<subtype>`` names accepted by ``suppress_warnings``."""

    LOAD = "load"
    """An annotation file is not valid YAML or breaks the schema."""
    RESOLVE = "resolve"
    """A target or a step's selector does not match the installed source."""
    SOURCE = "source"
    """A distribution (or its ``infralens_sources`` override) cannot be read."""
    LAB = "lab"
    """An annotation names a lab that has no folder in ``labs/``."""
    LAYOUT = "layout"
    """An annotation file sits in the wrong folder, or an id is used twice."""
    UNKNOWN_TARGET = "unknown-target"
    """A directive names a function that no annotation targets."""
    NOTE = "note"
    """A note's Markdown had raw HTML or a construct notes do not allow."""
    LAB_TEXT = "lab-text"
    """A lab page had a construct lab text does not allow (see ``infralens_trusted_labs``)."""
    PAGE_CONFIG = "page-config"
    """A page's front matter tried to change MyST's configuration (only conf.py may)."""
    MATH = "math"
    """A formula could not be converted to MathML."""
    CONCEPTS = "concepts"
    """The concept map is malformed or pairs functions that have no annotation."""
    REPORT = "report"
    """A drift or verification report exists but cannot be read."""


_CODE_TO_SUBTYPE = {
    "source": Subtype.SOURCE,
    "target": Subtype.RESOLVE,
    "selector": Subtype.RESOLVE,
    "lab": Subtype.LAB,
    "lab-text": Subtype.LAB_TEXT,
    "layout": Subtype.LAYOUT,
    "duplicate": Subtype.LAYOUT,
    "concepts": Subtype.CONCEPTS,
}


Location: TypeAlias = "str | tuple[str, int] | nodes.Node | None"
"""Where a warning points: a node, a docname or ``"path:line"``, or ``(file path, line)`` (0: no line)."""


def warn(message: str, subtype: Subtype, location: Location = None) -> None:
    """Emit one warning at ``location``."""
    if isinstance(location, tuple):
        path, line = location
        location = f"{path}:{line}" if line else f"{path}:"
    logger.warning(message, type="infralens", subtype=subtype.value, location=location)


def warn_diagnostic(diagnostic: Diagnostic, root: Path) -> None:
    """A core :class:`~infralens.errors.Diagnostic`, at its annotation file and line."""
    subtype = _CODE_TO_SUBTYPE.get(diagnostic.code or "", Subtype.LOAD)
    location = diagnostic.location
    path = Path(location.path)
    if not path.is_absolute():
        path = root / path
    text = diagnostic.message + (f" — {diagnostic.hint}" if diagnostic.hint else "")
    warn(text, subtype, (str(path), location.line or 0))
