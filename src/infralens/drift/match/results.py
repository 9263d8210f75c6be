"""Values the drift checker produces: kinds, scores and per-step / per-target results.

Places (where a statement is) and scores are the drift report's records (:class:`~infralens.reports.Place`,
:class:`~infralens.reports.Scores`), shared with the lock entries; :mod:`infralens.drift.record` maps a
finished check to the report in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from infralens.drift.lock.entries import AnnotationLock, Place, StepLock
from infralens.drift.match.rules import RuleEvent
from infralens.reports import DriftKind as StepKind, Scores, TargetDriftKind as TargetKind

# The kinds are the reports' vocabulary (one spelling for the check, its JSON and the site's badges);
# drift calls them by what they classify.
__all__ = [
    "Candidate",
    "Scores",
    "StepKind",
    "StepResult",
    "TargetKind",
    "TargetResult",
]


@dataclass(frozen=True)
class Candidate:
    """A place the locked statement may be now, with how well it matches."""

    place: Place
    scores: Scores
    function_same: bool
    """The enclosing function's fingerprint equals the reviewed one."""


@dataclass(frozen=True)
class TargetResult:
    """One locked target classified against the checked sources."""

    entry: AnnotationLock
    kind: TargetKind
    new: Place | None
    """Where the target is now (None when deleted)."""
    similarity: float
    """Statement overlap of the reviewed and the current body (Jaccard of statement fingerprints)."""
    message: str
    rule: str = ""
    """The named rule (:class:`~.rules.TargetRule`) that decided the kind."""
    trace: tuple[RuleEvent, ...] = ()
    """Every rule that fired or vetoed on the way, in order."""


@dataclass(frozen=True)
class StepResult:
    """One locked step classified against the checked sources."""

    entry: StepLock
    kind: StepKind
    new: Place | None
    """Where the statement is now (None when deleted)."""
    scores: Scores | None
    candidates: tuple[Candidate, ...]
    """Other places considered, shown when the choice was close or none was good enough."""
    message: str
    ambiguous: bool = False
    """Several places matched about equally well."""
    rule: str = ""
    """The named rule (:class:`~.rules.Rule`) that decided the kind."""
    evidence: str = ""
    """The evidence that rule weighed, in words (``check --explain``)."""
    trace: tuple[RuleEvent, ...] = ()
    """Every rule that fired, vetoed or removed a candidate on the way, in order (``check --explain``)."""
