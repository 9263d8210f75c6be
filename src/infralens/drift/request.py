"""What ``infralens check`` was asked: light values that the cached path can use.

These are named tuples and a plain enum, not dataclasses: a warm check answered from the result
cache (:mod:`.fastpath`) imports nothing beyond the CLI's own modules and builtins.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple


class OutputFormat(str, Enum):
    """How ``infralens check`` prints its report."""

    TEXT = "text"
    JSON = "json"
    GITHUB = "github"
    """GitHub Actions workflow commands, paths relative to the git repository."""
    JUNIT = "junit"
    """JUnit XML: a test case per checked step and per finding (:mod:`infralens.ci_output`)."""
    SARIF = "sarif"
    """SARIF 2.1.0: a result per finding."""


class CheckRequest(NamedTuple):
    """The options of one ``infralens check``."""

    project: str | None
    """``--project`` as given (None: found upwards from the current directory)."""
    sources: tuple[str, ...]
    """``--source DIST=PATH`` options, as given."""
    use_cache: bool
    """False with ``--no-cache``."""
    ids: tuple[str, ...]
    """Annotation or step ids to check (empty: all)."""
    against: tuple[str, ...]
    """``--against`` specs: other releases to check instead of the installed ones."""
    format: OutputFormat
    everything: bool
    """Text format: list unchanged steps too."""
    strict: bool
    """Also fail on low-severity findings."""
    explain: str | None = None
    """``--explain STEP``: also print the rule that decided that step and the evidence it weighed."""
    walk: bool = False
    """``--walk``: reach each ``--against`` release through the newest release of every minor series in between."""


class CheckOutput(NamedTuple):
    """What ``infralens check`` prints and the exit code it ends with."""

    text: str
    exit_code: int
