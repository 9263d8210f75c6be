"""Candidates freed by steps placed elsewhere (filter ``freed-by-move``).

The steps of one annotation share the target's statements one to one before each is decided. A step whose own text
now sits where the target hands its work to is decided *moved* there, and the statement of the target it was given
in the assignment is then nobody's: ``attn_output = attn_output . transpose ( 1 , 2 ) . contiguous ( )`` moved into
``sdpa_attention_forward``, while the reshape it had been given in the folded attention's ``forward`` is the rewrite of
another step, ``attn_output = attn_output . view ( bsz , q_len , self . hidden_size )``, left with nothing. The steps
left *deleted* that could have had such a statement get them in a second assignment and are decided again.
"""

from __future__ import annotations

from infralens.drift.match.assign import assign
from infralens.drift.match.decide import weight
from infralens.drift.match.results import StepKind, StepResult
from infralens.drift.match.rules import Policy
from infralens.drift.match.scored import Scored


def freed_candidates(own: dict[str, Scored], options: dict[str, list[Scored]], results: dict[str, StepResult], policy: Policy) -> dict[str, Scored]:
    """Step id → the statement of the target it gets now, for each step decided *deleted* that the one-to-one
    assignment left without one, among the statements given to steps that were then placed elsewhere."""
    placed = {(r.new.relpath, r.new.lines) for r in results.values() if r.new is not None}
    freed = {o.proposal.key for o in own.values() if (o.proposal.source.relpath, o.proposal.place().lines) not in placed}
    if not freed:
        return {}
    waiting = [s for s, r in results.items() if r.kind is StepKind.DELETED and s not in own]
    weights = {s: {o.proposal.key: weight(o.evidence, policy) + o.tie for o in options.get(s, []) if o.proposal.key in freed} for s in waiting}
    chosen = assign({s: w for s, w in weights.items() if w})
    return {s: next(o for o in options[s] if o.proposal.key == key) for s, key in chosen.items()}
