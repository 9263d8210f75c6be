"""Typed values that flow between the loader, resolver, renderer and checks.

Annotation-side models come from YAML (see :mod:`infralens.loader`);
source-side models come from libcst (see :mod:`infralens.indexer`).
Only the edges of the program turn these into YAML, JSON or HTML.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from enum import Enum

from .errors import Location

# --------------------------------------------------------------------------
# Selectors: how a step points at statements. Never a line number.
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactSelector:
    """The whole statement, compared after normalisation."""

    text: str
    nth: int | None = None
    location: Location | None = field(default=None, compare=False)

    def describe(self) -> str:
        suffix = f" (nth={self.nth})" if self.nth else ""
        return f"{self.text!r}{suffix}"


@dataclass(frozen=True)
class ContainsSelector:
    """A statement whose normalised text contains ``text``; ``nth`` picks one of several."""

    text: str
    nth: int | None = None
    location: Location | None = field(default=None, compare=False)

    def describe(self) -> str:
        suffix = f", nth={self.nth}" if self.nth else ""
        return f"contains {self.text!r}{suffix}"


SingleSelector = ExactSelector | ContainsSelector


@dataclass(frozen=True)
class BlockSelector:
    """A run of statements from one selected statement to another (inclusive)."""

    start: SingleSelector
    end: SingleSelector
    location: Location | None = field(default=None, compare=False)

    def describe(self) -> str:
        return f"from {self.start.describe()} to {self.end.describe()}"


Selector = ExactSelector | ContainsSelector | BlockSelector


def selector_key(selector: Selector) -> str:
    """A stable short fingerprint of a selector, used to name steps."""
    digest = hashlib.sha256(selector.describe().encode("utf-8")).hexdigest()
    return digest[:8]


# --------------------------------------------------------------------------
# Annotations as written by maintainers.
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One selected statement (or block) and the note that sits beside it."""

    at: Selector
    note: str
    key: str
    """Stable name of the step inside its annotation (explicit ``key:`` or a selector hash)."""
    expect: tuple[str, ...] = ()
    scenario: str | None = None
    static: str | None = None
    """If set, the step is static-only (never traced) and this is the reason."""
    location: Location | None = field(default=None, compare=False)
    expect_locations: tuple[Location, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Annotation:
    """One upstream function (or class) annotated for one lab."""

    id: str
    lab: str
    source: str
    target: str
    summary: str
    steps: tuple[Step, ...]
    definition: int | None = None
    """1-based pick among several definitions of the same qualname."""
    scenario: str | None = None
    location: Location | None = field(default=None, compare=False)

    @property
    def path(self) -> str:
        return self.location.path if self.location else "<memory>"

    def step_id(self, step: Step) -> str:
        return f"{self.id}/{step.key}"


# --------------------------------------------------------------------------
# Source-side facts, produced statically by the indexer.
# --------------------------------------------------------------------------


class DefinitionKind(str, Enum):
    FUNCTION = "function"
    ASYNC_FUNCTION = "async function"
    CLASS = "class"
    PROPERTY = "property"


@dataclass(frozen=True)
class Definition:
    """A ``def`` or ``class`` found in a module, with its real line span."""

    qualname: str
    """Dotted path of names, e.g. ``DDIMScheduler.step`` (no ``<locals>``)."""
    kind: DefinitionKind
    start_line: int
    """First line, the first decorator's line when decorated."""
    def_line: int
    """The line of the ``def``/``class`` keyword."""
    end_line: int
    decorators: tuple[str, ...] = ()
    conditional: bool = False
    """Defined under ``if``/``try``/``with`` rather than directly in its scope."""
    accessor: str | None = None
    """For property setters/deleters: ``setter`` or ``deleter``."""
    overload: bool = False

    def describe(self) -> str:
        extra = []
        if self.conditional:
            extra.append("conditional")
        if self.overload:
            extra.append("@overload")
        if self.accessor:
            extra.append(f"@{self.accessor}")
        tail = f" ({', '.join(extra)})" if extra else ""
        return f"{self.kind.value} {self.qualname} at lines {self.start_line}-{self.end_line}{tail}"


class StatementKind(str, Enum):
    SIMPLE = "simple"
    COMPOUND = "compound"
    """``if``/``for``/``with``/``def``…: only the header is its text."""
    CLAUSE = "clause"
    """``else``/``except``/``finally`` clauses."""
    DECORATOR = "decorator"


@dataclass(frozen=True)
class Statement:
    """One statement with its real lines and its normalised text."""

    start_line: int
    end_line: int
    header_end_line: int
    """Last line of the statement's own text (the header, for compound statements)."""
    text: str
    """Normalised text: tokens joined by single spaces, comments dropped."""
    kind: StatementKind
    scope: str
    """Python ``__qualname__`` of the innermost enclosing function or class ('' = module)."""


@dataclass(frozen=True)
class ModuleIndex:
    """Everything the resolver needs from one source file."""

    sha256: str
    definitions: tuple[Definition, ...]
    statements: tuple[Statement, ...]
    syntax_error: str | None = None

    def statements_within(self, start_line: int, end_line: int) -> tuple[Statement, ...]:
        return tuple(s for s in self.statements if s.start_line >= start_line and s.end_line <= end_line)


@dataclass(frozen=True)
class SourceFile:
    """One upstream file as read from a distribution, wheel or directory."""

    distribution: str
    version: str
    relpath: str
    """Path inside the distribution, POSIX style, e.g. ``diffusers/schedulers/scheduling_ddim.py``."""
    module: str
    text: str
    sha256: str
    origin: str
    """Where it was read from (a directory or wheel), for messages."""

    @property
    def lines(self) -> list[str]:
        return split_lines(self.text)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines as Python (and libcst) number them: only ``\\n``, ``\\r\\n`` and ``\\r`` end a line.

    ``str.splitlines`` also breaks at form feeds, U+2028 and other separators,
    which would shift every later line number away from the indexer's.
    """
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# --------------------------------------------------------------------------
# Results of resolution.
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ResolvedTarget:
    """A target qualname bound to its definition in a real file."""

    source: SourceFile
    module: str
    definition: Definition


@dataclass(frozen=True)
class ResolvedStep:
    """A step bound to real statements."""

    step: Step
    statements: tuple[Statement, ...]

    @property
    def start_line(self) -> int:
        return self.statements[0].start_line

    @property
    def end_line(self) -> int:
        return self.statements[-1].end_line

    @property
    def anchor_lines(self) -> tuple[int, int]:
        """Lines the note sits beside: the statement text, not a compound body."""
        if len(self.statements) == 1:
            return (self.statements[0].start_line, self.statements[0].header_end_line)
        return (self.start_line, self.end_line)


@dataclass(frozen=True)
class ResolvedAnnotation:
    """An annotation whose target and every step resolved."""

    annotation: Annotation
    target: ResolvedTarget
    steps: tuple[ResolvedStep, ...]
