"""The decision: the step rules asked in one order, and the pure functions that weigh candidates for them.

Nothing here reads sources. :func:`admissible` says which rule, if any, would accept a candidate inside the mapped
target (the one-to-one assignment only links a step to such candidates, weighted by :func:`weight`); :func:`decide`
takes the step's :class:`StepCase` (its assigned candidate and what the search elsewhere found) and asks the rules of
:data:`~.rules.STEP_ORDER` in turn, each a named predicate of :data:`STEP_RULES`: the first that fires decides. Every
number comes from the :class:`~.rules.Policy` passed in, and every rule that fires, vetoes or would have acted but is
switched off is written to the :class:`~.rules.Trace`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from infralens.drift.match.evidence import Evidence
from infralens.drift.match.position import Position
from infralens.drift.match.replacements import ReplacementKind
from infralens.drift.match.rules import RULE_KIND, STEP_ORDER, Action, Container, Filter, Policy, Rule, Thresholds, Trace
from infralens.reports import DriftKind as StepKind


@dataclass(frozen=True)
class StepCase:
    """Everything :func:`decide` weighs for one step."""

    container: Container
    own: Evidence | None = None
    """The candidate inside the target that the one-to-one assignment gave this step."""
    reached: Evidence | None = None
    """The same text in a function the target now leads to."""
    carried: Evidence | None = None
    """The one place elsewhere whose function gained the target's lost statements (see :func:`pick_carried`)."""
    decoys: int = 0
    """How many other places hold the same text."""
    edited: Evidence | None = None
    """An admissible edit of the step in the function the target now clearly hands its work to (:mod:`.reached_edits`)."""
    edited_in_helper: bool = False
    """:attr:`edited` lies in a helper the container decision saw receive the target's lost statements (:mod:`.split`)."""
    body_header: Evidence | None = None
    """The new header its reviewed block's placed steps now all sit under, for a header (:mod:`.body_headers`)."""


EDITED_WHERE_IT_LEADS = frozenset(
    {
        Rule.EDITED_IN_REACHED,
        Rule.CLOSE_EDIT_IN_HELPER,
        Rule.SAME_CALL,
        Rule.PER_OBJECT_EDIT,
        Rule.ACTION_KEPT_IN_REACHED,
        Rule.ALIGNED_IN_REACHED,
        Rule.EDITED_WITH_BLOCK,
    }
)
"""The rules that take the edit where the target now leads, or where a gone target's block went (:attr:`StepCase.edited`),
when nothing inside it was admitted."""


@dataclass(frozen=True)
class Decision:
    kind: StepKind
    rule: Rule


def admissible(evidence: Evidence, policy: Policy) -> Rule | None:
    """The rule that would accept this candidate inside the target (None: it is not a candidate)."""
    t = policy.thresholds
    if evidence.exact and policy.on(Rule.SAME_TEXT):
        return Rule.SAME_TEXT
    if evidence.in_old_body:
        return None  # the reviewed body held it already: it was there all along, not an edit of this step
    if evidence.another_field and policy.on(Filter.ANOTHER_FIELD):
        return None  # x = kwargs.pop("x") is no edit of y = kwargs.pop("y"): another field
    if evidence.same_ast and policy.on(Rule.SAME_TREE):
        return Rule.SAME_TREE
    for rule, on in ((Rule.TARGET_HEADER, evidence.header), (Rule.DECORATOR_REPLACED, evidence.decorator), (Rule.NESTED_LIFTED, evidence.lifted)):
        if on and policy.on(rule):
            return rule  # the mapped target's header (or the decorator in the step's place), whatever its words
    placed = evidence.position in (Position.PAIRED, Position.IN_HUNK)  # the body diff puts it where the step was
    placed = placed or (evidence.aligned and policy.on(Rule.ALIGNED_IN_REACHED))  # so does the diff with the place it went
    s, c = evidence.similarity, evidence.context
    near = s >= t.candidate_similarity and evidence.position is not Position.OUTSIDE
    if evidence.replacement is not None and (c > 0.0 or placed or near) and policy.on(Rule.SAME_ACTION):
        return Rule.SAME_ACTION
    if evidence.renamed_throughout and policy.on(Rule.RENAMED_THROUGHOUT):
        return Rule.RENAMED_THROUGHOUT  # the whole function was renamed through: where the diff puts it tells nothing
    if not evidence.same_shape:  # an edit keeps the kind of statement; a call doing the step's work may be another
        return Rule.EXTRACTED_AND_CALLED if evidence.extracted and policy.on(Rule.EXTRACTED_AND_CALLED) else None
    close = s >= t.confident_similarity or (s >= t.edit_similarity and (c > 0.0 or placed))
    if (close or (s >= t.candidate_similarity and (c >= 1.0 or evidence.position is Position.PAIRED))) and policy.on(Rule.EDIT):
        return Rule.EDIT
    return _by_role(evidence, policy)


def _by_role(evidence: Evidence, policy: Policy) -> Rule | None:
    """The rule that admits an edit too far in text for ``edit`` by the part it plays: the only statement of its role,
    the only one making its call, the only assignment of its name."""
    s, t = evidence.similarity, policy.thresholds
    if evidence.same_role and s >= t.candidate_similarity and policy.on(Rule.SAME_ROLE):
        return Rule.SAME_ROLE
    if evidence.same_call and s >= t.candidate_similarity and policy.on(Rule.SAME_CALL):
        return Rule.SAME_CALL
    if evidence.sole_assignment and s >= t.sole_assignment_similarity and policy.on(Rule.SOLE_ASSIGNMENT):
        return Rule.SOLE_ASSIGNMENT
    if evidence.sole_return and s >= t.sole_return_similarity and policy.on(Rule.SOLE_RETURN):
        return Rule.SOLE_RETURN
    if evidence.sole_reader and s >= t.sole_assignment_similarity and policy.on(Rule.SOLE_READER):
        return Rule.SOLE_READER
    if evidence.kept_condition and policy.on(Rule.KEPT_CONDITION):
        return Rule.KEPT_CONDITION
    if evidence.extracted and policy.on(Rule.EXTRACTED_AND_CALLED):
        return Rule.EXTRACTED_AND_CALLED  # the weakest: a call doing the step's work, whatever its text
    return None


def weight(evidence: Evidence, policy: Policy) -> float:
    """How strongly a step and an admissible candidate belong together (the assignment maximises the sum)."""
    t = policy.thresholds
    rule = admissible(evidence, policy)
    if rule is Rule.SAME_TEXT:
        return t.weight_same_text + evidence.context
    if rule in (Rule.TARGET_HEADER, Rule.DECORATOR_REPLACED, Rule.NESTED_LIFTED):
        return t.weight_same_tree
    if rule is Rule.SAME_TREE:
        return t.weight_same_tree + evidence.context
    if rule is Rule.SAME_ACTION:
        return t.weight_same_action + evidence.context + evidence.similarity
    if rule in (Rule.EDIT, Rule.SAME_ROLE, Rule.SAME_CALL, Rule.RENAMED_THROUGHOUT):  # a rename found by no place: an edit's weight
        return t.weight_edit + edit_rank(evidence, t)
    if rule in (Rule.SOLE_ASSIGNMENT, Rule.SOLE_RETURN, Rule.SOLE_READER, Rule.KEPT_CONDITION, Rule.EXTRACTED_AND_CALLED):
        return t.weight_sole_assignment * evidence.similarity
    return 0.0


def weight_in_reached(evidence: Evidence, policy: Policy) -> float:
    """:func:`weight` of an edit in a function the target now hands its work to: only text close enough to stand on its
    own (or a rewrite that keeps the action) with its neighbours around it (rule ``edited-in-reached``), or the only
    statement there that plays the step's role (rule ``same-role``: its neighbours may have been rewritten as well)."""
    t = policy.thresholds
    if evidence.same_role and evidence.similarity >= t.candidate_similarity and policy.on(Rule.SAME_ROLE):
        return weight(evidence, policy)
    if call_kept(evidence, t) and policy.on(Rule.SAME_CALL):
        return weight(evidence, policy)  # the only statement making the call: its neighbours may have been rewritten too
    if per_object(evidence) and policy.on(Rule.PER_OBJECT_EDIT):
        return weight(evidence, policy)  # its neighbours were rewritten with it (a loop over layers became one layer's method)
    if action_kept(evidence, t) and policy.on(Rule.ACTION_KEPT_IN_REACHED):
        return weight(evidence, policy)  # close, and the same action: its neighbours may have been rewritten with it
    if aligned_kept(evidence, t) and policy.on(Rule.ALIGNED_IN_REACHED):
        return weight(evidence, policy)  # paired in order between statements the place gained verbatim: those are its neighbours
    close = evidence.similarity >= t.edit_similarity or evidence.replacement is not None
    return weight(evidence, policy) if close and evidence.context >= t.moved_context else 0.0


def weight_in_helper(evidence: Evidence, policy: Policy) -> float:
    """:func:`weight_in_reached` of an edit in a helper the container decision saw receive the target's lost statements:
    there an edit close in text is admitted whatever its neighbours (rule ``close-edit-in-helper``: the block around
    it was rewritten on its way out, so its neighbours tell little; where it went is known)."""
    found = weight_in_reached(evidence, policy)
    if found > 0.0 or not close_in_helper(evidence, policy.thresholds) or not policy.on(Rule.CLOSE_EDIT_IN_HELPER):
        return found
    return weight(evidence, policy)


def close_in_helper(evidence: Evidence, t: Thresholds) -> bool:
    """Whether an edit in a helper the target was split into is the step's on its text alone: the same kind of statement,
    with content, at least :attr:`~.rules.Thresholds.confident_similarity`, and not the same text (a copy there is a
    move, which the rules for places the target leads to decide; rule ``close-edit-in-helper``)."""
    return evidence.same_shape and not (evidence.contentless or evidence.exact or evidence.same_ast) and evidence.similarity >= t.confident_similarity


def call_kept(evidence: Evidence, t: Thresholds) -> bool:
    """Whether the candidate is the only statement left making the step's call, the same kind of statement and sharing
    some text (rule ``same-call``)."""
    return evidence.same_call and evidence.same_shape and evidence.similarity >= t.candidate_similarity


def per_object(evidence: Evidence) -> bool:
    """Whether the candidate is the step's statement on per-index state read as one object's own (``self.a[i]`` →
    ``self.b``; rule ``per-object-edit``)."""
    return evidence.replacement is not None and evidence.replacement.kind is ReplacementKind.PER_OBJECT


def aligned_kept(evidence: Evidence, t: Thresholds) -> bool:
    """Whether an edit where the target now leads pairs with the step in order between the statements that place gained
    verbatim, and is of its kind with content and close in text (rule ``aligned-in-reached``)."""
    return evidence.aligned and evidence.same_shape and not evidence.contentless and evidence.similarity >= t.edit_similarity


def action_kept(evidence: Evidence, t: Thresholds) -> bool:
    """Whether an edit where the target now leads keeps the step's action (names renamed, keywords changed, a setter
    and an assignment) and is close in text, whatever its neighbours (rule ``action-kept-in-reached``)."""
    return evidence.replacement is not None and evidence.similarity >= t.confident_similarity and not evidence.contentless


_POSITION_SHARE = {Position.PAIRED: 1.0, Position.IN_HUNK: 0.5}


def edit_rank(evidence: Evidence, t: Thresholds) -> float:
    """The order of edit candidates: mostly text, partly context, and where the body diff puts them."""
    share = t.position_rank * _POSITION_SHARE.get(evidence.position, 0.0)
    return (t.text_rank - t.position_rank) * evidence.similarity + (1.0 - t.text_rank) * evidence.context + share


def confident(evidence: Evidence, t: Thresholds) -> bool:
    """Close enough in text and context to be *changed* before looking at places the target leads to."""
    return evidence.similarity >= t.confident_similarity and evidence.context >= t.confident_context


# -- the step rules, in STEP_ORDER ---------------------------------------------------------------------------------

Predicate = Callable[[StepCase, Rule | None, Policy, Trace], bool]
"""Whether a step rule fires on a case (given the rule that admitted the step's own candidate, if any)."""


def _same(case: StepCase, admitted: Rule | None) -> bool:
    return admitted in (Rule.SAME_TEXT, Rule.SAME_TREE)


def _left(case: StepCase, admitted: Rule | None, policy: Policy, trace: Trace) -> bool:
    own, reached = case.own, case.reached
    return _same(case, admitted) and own is not None and reached is not None and left_with_neighbours(own, reached, policy.thresholds)


def _reached(case: StepCase, admitted: Rule | None, policy: Policy, trace: Trace) -> bool:
    if case.reached is None or _same(case, admitted) or admitted is Rule.TARGET_HEADER:
        return False
    t = policy.thresholds
    if case.reached.contentless and case.reached.context < t.moved_context:
        return False
    if case.reached.bare_return and case.reached.context == 0.0:
        detail = "a bare return found with none of the step's neighbours: any function may return that name"
        if policy.vetoes(Filter.BARE_RETURN_WITH_NEIGHBOURS, trace, detail):
            return False
    edited = case.edited
    if edited is None or case.reached.context > 0.0 or edited.context < t.moved_context:
        return True
    detail = f"the copy has none of the step's neighbours; an edit where the target leads has them (context {edited.context:.2f})"
    return not policy.vetoes(Filter.EDIT_WITH_NEIGHBOURS, trace, detail)


def _confident(case: StepCase, admitted: Rule | None, policy: Policy, trace: Trace) -> bool:
    own = case.own
    return own is not None and admitted in (Rule.SAME_ACTION, Rule.EDIT) and case.reached is None and confident(own, policy.thresholds)


def _carried(case: StepCase, admitted: Rule | None, policy: Policy, trace: Trace) -> bool:
    if case.carried is None or admitted in (Rule.SAME_TEXT, Rule.SAME_TREE, Rule.TARGET_HEADER):
        return False
    if carried_can_decide(case.own, policy):
        return True
    trace.add(Filter.REAL_EDIT_STAYS, Action.VETOED, "the candidate inside the target is a real edit; the place that gained the block is not taken")
    return False


def _action_kept(case: StepCase, admitted: Rule | None, policy: Policy, trace: Trace) -> bool:
    """Rule ``action-kept-in-reached``: the edit where the target leads was admitted on its action alone (its context
    too low for ``edited-in-reached``)."""
    edited, t = case.edited, policy.thresholds
    if edited is None or admitted is not None or edited.context >= t.moved_context or edited.same_role:
        return False
    return action_kept(edited, t)


def _call_in_reached(case: StepCase, admitted: Rule | None, policy: Policy, trace: Trace) -> bool:
    """Rule ``same-call``: the step's own candidate was admitted as the only one making its call, or the edit where the
    target leads was admitted on that alone (its context too low for ``edited-in-reached``, no narrower rule took it)."""
    if admitted is Rule.SAME_CALL:
        return True
    edited, t = case.edited, policy.thresholds
    if edited is None or admitted is not None or edited.context >= t.moved_context or not call_kept(edited, t):
        return False
    return not (edited.same_role or per_object(edited) or action_kept(edited, t) or (case.edited_in_helper and close_in_helper(edited, t)))


def _close_in_helper(case: StepCase, admitted: Rule | None, policy: Policy, trace: Trace) -> bool:
    """Rule ``close-edit-in-helper``: the edit in a helper the target was split into was admitted on its text alone (its
    context too low for ``edited-in-reached``, and no narrower rule took it)."""
    edited, t = case.edited, policy.thresholds
    if edited is None or admitted is not None or not case.edited_in_helper or edited.context >= t.moved_context:
        return False
    if edited.same_role or per_object(edited) or action_kept(edited, t):
        return False
    return close_in_helper(edited, t)


def _aligned(case: StepCase, admitted: Rule | None, policy: Policy, trace: Trace) -> bool:
    """Rule ``aligned-in-reached``: the edit where the target leads was admitted on its place in the order of what the
    target lost (its context too low for ``edited-in-reached``, and no narrower rule took it)."""
    edited, t = case.edited, policy.thresholds
    if edited is None or admitted is not None or edited.context >= t.moved_context or edited.same_role:
        return False
    return aligned_kept(edited, t)


STEP_RULES: dict[Rule, Predicate] = {
    Rule.FILE_UNCHANGED: lambda case, admitted, policy, trace: case.container is Container.FILE_UNCHANGED,
    Rule.UNREADABLE: lambda case, admitted, policy, trace: case.container is Container.UNREADABLE,
    Rule.LEFT_WITH_NEIGHBOURS: _left,
    Rule.TARGET_RELOCATED: lambda case, admitted, policy, trace: _same(case, admitted) and case.container is Container.RELOCATED,
    Rule.SAME_TEXT: lambda case, admitted, policy, trace: admitted is Rule.SAME_TEXT,
    Rule.SAME_TREE: lambda case, admitted, policy, trace: admitted is Rule.SAME_TREE,
    Rule.TARGET_HEADER: lambda case, admitted, policy, trace: admitted is Rule.TARGET_HEADER,
    Rule.DECORATOR_REPLACED: lambda case, admitted, policy, trace: admitted is Rule.DECORATOR_REPLACED,
    Rule.NESTED_LIFTED: lambda case, admitted, policy, trace: admitted is Rule.NESTED_LIFTED,
    Rule.CONFIDENT_EDIT: _confident,
    Rule.MOVED_TO_REACHED: _reached,
    Rule.MOVED_WITH_BLOCK: _carried,
    Rule.SAME_ACTION: lambda case, admitted, policy, trace: admitted is Rule.SAME_ACTION,
    Rule.EDIT: lambda case, admitted, policy, trace: admitted is Rule.EDIT,
    Rule.RENAMED_THROUGHOUT: lambda case, admitted, policy, trace: admitted is Rule.RENAMED_THROUGHOUT,
    Rule.SAME_ROLE: lambda case, admitted, policy, trace: admitted is Rule.SAME_ROLE,
    Rule.SAME_CALL: _call_in_reached,
    Rule.SOLE_ASSIGNMENT: lambda case, admitted, policy, trace: admitted is Rule.SOLE_ASSIGNMENT,
    Rule.SOLE_RETURN: lambda case, admitted, policy, trace: admitted is Rule.SOLE_RETURN,
    Rule.SOLE_READER: lambda case, admitted, policy, trace: admitted is Rule.SOLE_READER,
    Rule.KEPT_CONDITION: lambda case, admitted, policy, trace: admitted is Rule.KEPT_CONDITION,
    Rule.EXTRACTED_AND_CALLED: lambda case, admitted, policy, trace: admitted is Rule.EXTRACTED_AND_CALLED,
    Rule.PER_OBJECT_EDIT: lambda case, admitted, policy, trace: case.edited is not None and admitted is None and per_object(case.edited),
    Rule.ACTION_KEPT_IN_REACHED: _action_kept,
    Rule.CLOSE_EDIT_IN_HELPER: _close_in_helper,
    Rule.ALIGNED_IN_REACHED: _aligned,
    Rule.EDITED_WITH_BLOCK: lambda case, admitted, policy, trace: case.edited is not None and admitted is None and case.container is Container.GONE,
    Rule.EDITED_IN_REACHED: lambda case, admitted, policy, trace: case.edited is not None and admitted is None,
    Rule.HEADER_OF_ITS_BODY: lambda case, admitted, policy, trace: case.body_header is not None and admitted is None,
    Rule.DECOYS_ONLY: lambda case, admitted, policy, trace: case.decoys > 0,
    Rule.TARGET_GONE: lambda case, admitted, policy, trace: case.container is Container.GONE,
    Rule.NOTHING_CORRESPONDS: lambda case, admitted, policy, trace: True,
}
"""Each step rule's predicate (asked in :data:`~.rules.STEP_ORDER`; the last always fires)."""


def decide(case: StepCase, policy: Policy, trace: Trace | None = None) -> Decision:
    """The kind of one step, and the rule that decided it: the first rule of :data:`~.rules.STEP_ORDER` that fires.

    A rule switched off by the policy is passed over (the trace says it would have fired); so is one that cannot
    decide without its own admission (a candidate admitted by a rule that is off was never admitted).
    """
    trace = trace if trace is not None else Trace()
    admitted = admissible(case.own, policy) if case.own is not None else None
    if admitted is Rule.EXTRACTED_AND_CALLED and (case.reached or case.carried or case.edited):
        admitted = None  # a fallback: the text, or its edit, where the work went is the more precise place
    for rule in STEP_ORDER:
        if not STEP_RULES[rule](case, admitted, policy, trace):
            continue
        if rule is Rule.NOTHING_CORRESPONDS or policy.allows(rule, trace, "it would have decided"):
            trace.add(rule, Action.FIRED, RULE_KIND[rule].value)
            return Decision(RULE_KIND[rule], rule)
    raise AssertionError("nothing-corresponds always fires")  # pragma: no cover


# -- places elsewhere ----------------------------------------------------------------------------------------------


def left_with_neighbours(own: Evidence, reached: Evidence, t: Thresholds) -> bool:
    """Whether a contentless statement (:data:`~.rules.CONTENTLESS`) the target still holds went to a helper it now
    calls all the same: the copy in the target has none of the step's neighbours and the helper's copy has them (the
    ``else :`` of a branch extracted into a helper, while another ``else :`` stays). A statement with content stays."""
    return own.contentless and own.context == 0.0 and reached.context >= t.moved_context


def carried_can_decide(own: Evidence | None, policy: Policy) -> bool:
    """Whether a place that gained the target's lost statements can decide over ``own``, the step's candidate inside
    the target: only over none or a weak edit (a clone of a rewritten target carries the old text too, so a real edit
    in place wins; the call that replaced an extracted block, admitted on its place alone, does not)."""
    if not policy.on(Filter.REAL_EDIT_STAYS):
        return True
    return own is None or admissible(own, policy) is None or own.similarity < policy.thresholds.edit_similarity


def pick_carried(candidates: list[Evidence], policy: Policy, trace: Trace | None = None, *, gone: bool = False) -> int | None:
    """Index of the one place elsewhere where the step went with a block of the target's statements, or None.

    Its function gained at least :attr:`~.rules.Thresholds.carried_statements` of the statements the target lost since
    the review, more than it gained of those the target kept (a clone of the whole target copies those too), and they
    are most of what the target lost or the step's neighbours came along. Two such places about as good (a block
    copied into two new functions) tell nothing. When the target is ``gone``, only a function that was there at the
    review can have absorbed it (:attr:`~.rules.Filter.NEW_PLACE_NOT_CARRIED`): a new function holding part of a deleted
    one is as often a copy of it, and a new function that *is* the target renamed or moved is the container's to find.
    """
    t = policy.thresholds
    trace = trace if trace is not None else Trace()
    good = [
        (n, e)
        for n, e in enumerate(candidates)
        if e.provenance.carried >= t.carried_statements
        and e.provenance.carried > e.provenance.copied
        and (e.provenance.share >= t.carried_share or e.context >= t.moved_context)
    ]
    if candidates and not good:
        most = max(e.provenance.carried for e in candidates)
        trace.add(Rule.MOVED_WITH_BLOCK, Action.DECLINED, f"no place gained a block of the target's lost statements (most: {most})")
    new = [(n, e) for n, e in good if gone and e.provenance.new_place]
    if new and policy.allows(Filter.NEW_PLACE_NOT_CARRIED, trace, f"{len(new)} new function(s) gained the block"):
        trace.add(Filter.NEW_PLACE_NOT_CARRIED, Action.REMOVED, f"{len(new)} function(s) new since the review")
        good = [(n, e) for n, e in good if not (gone and e.provenance.new_place)]
    if not good:
        return None
    good.sort(key=lambda item: item[1].provenance.share + item[1].context, reverse=True)
    floor = good[0][1].provenance.share + good[0][1].context - t.moved_margin
    tied = [e for _, e in good[1:] if e.provenance.share + e.context >= floor]
    if tied and policy.allows(Filter.TIED_PLACES, trace, "places that gained the block about as good"):
        trace.add(Filter.TIED_PLACES, Action.VETOED, f"{len(tied) + 1} places gained the block about as much")
        return None
    return good[0][0]


def same_copy(contexts: list[float], t: Thresholds) -> bool:
    """Whether neighbours single out one surviving copy of a repeated statement (after some copies went)."""
    best = max(contexts)
    return best >= t.same_copy_context and contexts.count(best) == 1
