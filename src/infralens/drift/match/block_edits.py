"""Statements of a gone target rewritten where its block went (rule ``edited-with-block``).

A target that is gone may have been folded into a function that was there at the review: transformers 4.54 dropped
``GenerationMixin._get_logits_warper`` and its body now sits in ``_get_logits_processor``. Its steps that arrived
verbatim are *moved* there (rule ``moved-with-block``); the ones rewritten on the way (``warpers . append ( X )`` now
``processors . append ( X )``) have no copy anywhere, and without a place to look they would be *deleted*. The function
that received a block of the target's steps is that place: it is searched as a function the target hands its work to
is (:func:`~.decide.weight_in_reached`: an edit with its neighbours around it, or paired in order between the
statements it gained verbatim), one step to one statement, never taking a statement it held at the review or one whose
text the reviewed target held itself (another of its statements, carried over unchanged).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from infralens.drift.lock.entries import AnnotationLock, StepLock, short_hash
from infralens.drift.lock.facts import body_of
from infralens.drift.match.aligned import lost_order
from infralens.drift.match.assign import assign
from infralens.drift.match.container import Found
from infralens.drift.match.decide import weight_in_reached
from infralens.drift.match.evidence import measure
from infralens.drift.match.propose import in_target, statement_key
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.results import StepResult
from infralens.drift.match.reviewed import Transfers, reviewed_texts
from infralens.drift.match.rules import CONTENTLESS, Policy, Rule
from infralens.drift.match.scored import Scored


def block_homes(results: dict[str, StepResult], policy: Policy) -> list[tuple[str, str]]:
    """(file, qualname) of each function that received at least :attr:`~.thresholds.Thresholds.carried_statements`
    of a gone target's steps by rule ``moved-with-block``."""
    homes = Counter((r.new.relpath, r.new.target) for r in results.values() if r.rule == Rule.MOVED_WITH_BLOCK.value and r.new is not None)
    return sorted(home for home, count in homes.items() if count >= policy.thresholds.carried_statements)


def edits_where_block_went(
    reader: TreeReader,
    results: dict[str, StepResult],
    annotation: AnnotationLock,
    steps: list[StepLock],
    policy: Policy,
    transfers: Transfers,
) -> dict[str, Scored]:
    """Step id → its edit in a function that received a block of the gone target's steps, for each of ``steps`` that
    rule ``target-gone`` decided (its text is nowhere else) and that such a function holds rewritten."""
    homes = block_homes(results, policy) if policy.on(Rule.EDITED_WITH_BLOCK) else []
    lost = [s for s in steps if results[s.step_id].rule == Rule.TARGET_GONE.value and not (len(s.texts) == 1 and s.texts[0] in CONTENTLESS)]
    if not homes or not lost:
        return {}
    t = policy.thresholds
    order = lost_order(reviewed_texts(transfers.reviewed, annotation), transfers.lost, lost, transfers.held_before)
    reviewed_body = frozenset(annotation.body)
    options: dict[str, dict[tuple[str, int, str], float]] = {}
    scored: dict[tuple[str, tuple[str, int, str]], Scored] = {}
    for relpath, qualname in homes:
        indexed = reader.indexed(relpath)
        definition = next((d for d in indexed[1].definitions if d.qualname == qualname), None) if indexed is not None else None
        if indexed is None or definition is None:
            continue
        source, index = indexed
        pool = body_of(index, definition)
        paired = order.paired(source, index, pool, t) if order is not None else {}
        place = Found(source, index, definition, t.moved_locality, False)
        for step in lost:
            for proposal in in_target(place, pool, step, t, exact_only=False):
                first = proposal.window[0]
                if short_hash(first.text) in reviewed_body or transfers.held_before(source, index, first):
                    continue  # another of the target's statements carried over, or one the function had already
                lined = (pair := paired.get(step.step_id)) is not None and proposal.key == statement_key(relpath, pair)
                evidence = measure(proposal, step, frozenset(), t, aligned=lined)
                if (weight := weight_in_reached(evidence, policy)) > 0.0:
                    options.setdefault(step.step_id, {})[proposal.key] = weight
                    scored[(step.step_id, proposal.key)] = Scored(proposal, evidence)
    return {step_id: scored[(step_id, key)] for step_id, key in assign(options).items()}


def with_provenance(scored: Scored, transfers: Transfers) -> Scored:
    """``scored`` with what the reviewed release says of its place: held the text already, or gained the target's."""
    proposal = scored.proposal
    provenance = transfers.of(proposal.source, proposal.index, proposal.window[0])
    return Scored(proposal, replace(scored.evidence, provenance=provenance), scored.tie, scored.contested)
