"""Source-side facts: upstream files and what the indexer found in them (definitions, statements)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from itertools import pairwise

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
        """The statements lying wholly between the two lines (found by bisection: statements are in source order)."""
        starts = self._starts
        if starts is None:
            return tuple(s for s in self.statements if s.start_line >= start_line and s.end_line <= end_line)
        first, last = bisect_left(starts, start_line), bisect_right(starts, end_line)
        return tuple(s for s in self.statements[first:last] if s.end_line <= end_line)

    def statements_starting(self, line: int) -> tuple[Statement, ...]:
        """The statements whose first line is ``line`` (found by bisection)."""
        starts = self._starts
        if starts is None:
            return tuple(s for s in self.statements if s.start_line == line)
        return self.statements[bisect_left(starts, line) : bisect_right(starts, line)]

    @cached_property
    def _starts(self) -> list[int] | None:
        """Each statement's first line, or None in the unlikely case they are not in source order."""
        starts = [s.start_line for s in self.statements]
        return starts if all(a <= b for a, b in pairwise(starts)) else None


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
