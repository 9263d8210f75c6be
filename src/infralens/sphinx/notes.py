"""Turn a note's MyST Markdown into docutils nodes, safely.

Raw HTML is switched off in the Markdown parser (so ``<script>`` stays text),
the ``raw`` and ``include`` directives are disabled, and any raw node that
slips through is replaced by its escaped text. Formulas become
:class:`~infralens.sphinx.nodes.note_math` so they render as MathML.
"""

from __future__ import annotations

import copy
import io
from functools import lru_cache

from docutils import nodes
from docutils.utils import new_document

from . import nodes as il_nodes
from .warnings import Subtype, warn


@lru_cache(maxsize=1)
def _parser():
    from myst_parser.config.main import MdParserConfig
    from myst_parser.mdit_to_docutils.sphinx_ import SphinxRenderer
    from myst_parser.parsers.mdit import create_md_parser

    config = MdParserConfig(enable_extensions={"dollarmath"})
    markdown = create_md_parser(config, SphinxRenderer)
    markdown.disable(["html_block", "html_inline"])
    return markdown


def parse_note(text: str, document: nodes.document, location: tuple[str, int]) -> list[nodes.Node]:
    """The note's block nodes, parsed in a sandbox document that shares the page's settings."""
    settings = copy.copy(document.settings)
    settings.file_insertion_enabled = False
    settings.raw_enabled = False
    settings.warning_stream = io.StringIO()  # problems are re-emitted below as infralens warnings
    sandbox = new_document(location[0], settings)
    markdown = _parser()
    markdown.options["document"] = sandbox
    markdown.render(text)
    _sanitise(sandbox, location)
    children = list(sandbox.children)
    for child in children:
        child.parent = None
    return children


def _sanitise(sandbox: nodes.document, location: tuple[str, int]) -> None:
    for raw in list(sandbox.findall(nodes.raw)):
        warn("raw markup in a note is shown as text, never executed", Subtype.NOTE, location)
        raw.replace_self(nodes.literal_block(raw.astext(), raw.astext()))
    for message in list(sandbox.findall(nodes.system_message)):
        if message.get("level", 0) >= 2:
            first = message.children[0].astext().strip() if message.children else message.astext().strip()
            warn(f"note: {first} (the construct is left out of the page)", Subtype.NOTE, location)
        message.parent.remove(message)
    for math in list(sandbox.findall(nodes.math)):
        math.replace_self(il_nodes.infralens_math(math.astext(), latex=math.astext(), display=False))
    for block in list(sandbox.findall(nodes.math_block)):
        block.replace_self(il_nodes.infralens_math(block.astext(), latex=block.astext(), display=True))
