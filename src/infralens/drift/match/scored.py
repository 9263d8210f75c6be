"""A proposal with its evidence (:class:`Scored`), and how the matcher ranks, names and scores one."""

from __future__ import annotations

from dataclasses import dataclass, replace

from infralens.drift.lock.entries import StepLock
from infralens.drift.match.evidence import Evidence
from infralens.drift.match.propose import Proposal
from infralens.drift.match.results import Candidate, Scores, StepResult
from infralens.drift.match.rules import RULE_KIND, Action, Filter, Origin, Rule, Thresholds, Trace
from infralens.reports import MatchQuality


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


def trace_assignment(
    options: dict[str, list[Scored]], weights: dict[str, dict[tuple[str, int, str], float]], chosen: dict[str, tuple[str, int, str]], traces: dict[str, Trace]
) -> None:
    """Say, for each step whose best candidate went to another step, where it went (rule ``one-to-one``)."""
    taken_by = {key: step_id for step_id, key in chosen.items()}
    for step_id, found_options in options.items():
        if not found_options:
            continue
        best = max(found_options, key=lambda o: weights[step_id][o.proposal.key])
        other = taken_by.get(best.proposal.key)
        if other is not None and other != step_id:
            traces[step_id].add(Filter.ONE_TO_ONE, Action.REMOVED, f"its closest statement, line {line_of(best)}, went to {other}")


def match_quality(similarity: float, context: float, locality: float, t: Thresholds) -> MatchQuality:
    """How sure a match is (exact, strong or weak), from its three scores together."""
    if similarity == 1.0 and locality >= t.moved_elsewhere_locality and context >= t.confident_context:
        return MatchQuality.EXACT
    if similarity >= t.confident_similarity and context >= t.confident_context and locality >= t.moved_locality:
        return MatchQuality.STRONG
    return MatchQuality.WEAK


def step_result(
    entry: StepLock,
    rule: Rule,
    chosen: Scored | None,
    candidates: tuple[Candidate, ...],
    message: str,
    t: Thresholds,
    trace: Trace,
    ambiguous: bool = False,
    *,
    evidence: str = "",
) -> StepResult:
    """The result of one step, decided by ``rule``, placed at ``chosen`` (None: nowhere, or its recorded place when its
    file is unchanged), with the runners-up ``candidates`` and the trace of its decision."""
    kind = RULE_KIND[rule]
    place = chosen.proposal.place() if chosen is not None else (entry.place if rule is Rule.FILE_UNCHANGED else None)
    scores = None
    if chosen is not None:
        scores = scores_of(chosen.evidence, t)
        evidence = evidence or chosen.evidence.describe()
    elif rule is Rule.FILE_UNCHANGED:
        scores = Scores(1.0, 1.0, 1.0, match_quality(1.0, 1.0, 1.0, t))
    return StepResult(entry, kind, place, scores, candidates, message, ambiguous, rule=rule.value, evidence=evidence, trace=trace.frozen())


_PLACED = {
    Rule.MOVED_TO_REACHED: "found in {where}",
    Rule.MOVED_WITH_BLOCK: "found in {where}, which {provenance}",
    Rule.CLOSE_EDIT_IN_HELPER: "edited in {where}, a helper that received the target's lost statements",
    Rule.EDITED_WITH_BLOCK: "edited in {where}, which received a block of the gone target's steps",
    Rule.HEADER_OF_ITS_BODY: "rewritten as the header its body's steps now sit under in {where}",
}


def placed_message(rule: Rule, chosen: Scored) -> str:
    """The message of a step placed outside its target by ``rule`` (an edit where the target leads, unless named above)."""
    pattern = _PLACED.get(rule, "edited in {where}, which the target now hands its work to")
    return pattern.format(where=where(chosen), provenance=chosen.evidence.provenance.describe())
