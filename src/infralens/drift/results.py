"""Values the drift checker produces: kinds, places, scores and per-step / per-target results."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from infralens.drift.lock import AnnotationLock, StepLock

CHANGED_SIMILARITY = 0.6
"""Minimum text similarity for *changed* inside the target (with some neighbour agreement)."""
CHANGED_SIMILARITY_CONFIDENT = 0.8
MOVED_LOCALITY = 0.6
"""Minimum function similarity (Jaccard of statement fingerprints) for *moved* elsewhere."""
MOVED_CONTEXT = 0.5


class StepKind(str, Enum):
    UNCHANGED = "unchanged"
    MOVED = "moved"
    CHANGED = "changed"
    DELETED = "deleted"


class TargetKind(str, Enum):
    UNCHANGED = "unchanged"
    BODY_CHANGED = "body-changed"
    MOVED = "moved"
    RENAMED = "renamed"
    DELETED = "deleted"


@dataclass(frozen=True)
class Place:
    """Where a statement (or target) is in the checked sources."""

    relpath: str
    module: str
    target: str
    """Qualname of the enclosing definition (outermost function or class member chain)."""
    scope: str
    lines: tuple[int, int]
    texts: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.relpath}:{self.lines[0]} {self.target or '<module>'}"


@dataclass(frozen=True)
class Scores:
    """Separate scores of one match, each in [0, 1]."""

    similarity: float
    """Text similarity of the normalised statement(s) (1.0 = identical)."""
    context: float
    """Share of the recorded neighbouring statements found beside it."""
    locality: float
    """1.0 same target; 0.9 same qualname in another module; else function similarity."""

    @property
    def quality(self) -> str:
        if self.similarity == 1.0 and self.locality >= 0.9 and self.context >= 0.5:
            return "exact"
        if self.similarity >= CHANGED_SIMILARITY_CONFIDENT and self.context >= 0.5 and self.locality >= MOVED_LOCALITY:
            return "strong"
        return "weak"


@dataclass(frozen=True)
class Candidate:
    place: Place
    scores: Scores
    function_same: bool


@dataclass(frozen=True)
class TargetResult:
    entry: AnnotationLock
    kind: TargetKind
    new: Place | None
    similarity: float
    message: str
    layer: int = 0


@dataclass(frozen=True)
class StepResult:
    entry: StepLock
    kind: StepKind
    layer: int
    new: Place | None
    scores: Scores | None
    candidates: tuple[Candidate, ...]
    message: str
    ambiguous: bool = False
