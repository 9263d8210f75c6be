"""Results of resolution: a target and its steps bound to real definitions and statements."""

from __future__ import annotations

from dataclasses import dataclass

from infralens.annotations import Annotation, Step
from infralens.source import Definition, SourceFile, Statement

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
