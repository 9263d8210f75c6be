"""A proposal with its evidence (:class:`Scored`), and how the matcher ranks, names and scores one."""

from __future__ import annotations

from dataclasses import dataclass, replace

from infralens.drift.match.evidence import Evidence
from infralens.drift.match.propose import Proposal
from infralens.drift.match.results import Candidate, Scores
from infralens.drift.match.rules import Origin, Thresholds, match_quality


@dataclass(frozen=True)
class Scored:
    """A proposal with its evidence (and a tie-break added to its weight in the assignment)."""

    proposal: Proposal
    evidence: Evidence
    tie: float = 0.0
    """Added to the weight: breaks ties between identical copies (recorded occurrence, then distance), and between
    edits equally close in text and context (the nearer rank in the step's hunk)."""
    contested: bool = False
    """A surviving copy of a repeated statement that several steps were on (some copies went)."""

    def candidate(self, t: Thresholds) -> Candidate:
        return Candidate(self.proposal.place(), scores_of(self.evidence, t), self.evidence.function_same)


def as_reached(evidence: Evidence) -> Evidence:
    return replace(evidence, origin=Origin.REACHED, reach=True)


def home_rank(scored: Scored) -> tuple[bool, float]:
    return (scored.evidence.function_same, scored.evidence.locality + scored.evidence.context)


def where(scored: Scored) -> str:
    place = scored.proposal.place()
    return place.target or place.module


def line_of(scored: Scored) -> int:
    return scored.proposal.window[0].start_line


def scores_of(evidence: Evidence, t: Thresholds) -> Scores:
    e = evidence
    return Scores(e.similarity, e.context, e.locality, match_quality(e.similarity, e.context, e.locality, t))
