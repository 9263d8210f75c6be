"""Table tests of the decision: every named rule, the thresholds at their edges, the evidence helpers and the assignment.

Nothing here reads sources: :func:`decide` and :func:`admissible` are pure functions of the evidence.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from infralens.drift.match import decide as decision
from infralens.drift.match.assign import assign
from infralens.drift.match.decide import StepCase
from infralens.drift.match.evidence import Evidence
from infralens.drift.match.position import Position
from infralens.drift.match.replacements import ReplacementKind, replacement as replacement_of
from infralens.drift.match.reviewed import Provenance
from infralens.drift.match.rules import RULE_KIND, Container, Origin, Policy, Rule
from infralens.drift.match.texts import same_ast, statement_role, statement_shape

POLICY = Policy()
T = POLICY.thresholds


def decide(case):
    return decision.decide(case, POLICY)


def admissible(evidence):
    return decision.admissible(evidence, POLICY)


def pick_carried(candidates, *, gone=False):
    return decision.pick_carried(candidates, POLICY, gone=gone)


def same_copy(contexts):
    return decision.same_copy(contexts, T)


def replacement(old, new):
    return replacement_of(old, new, T.max_renames, T.kept_message_length)


def ev(**changes: object) -> Evidence:
    """An edit candidate inside the target: same kind of statement, nothing else true."""
    base = Evidence(
        origin=Origin.TARGET,
        exact=False,
        same_ast=False,
        similarity=0.0,
        context=0.0,
        locality=1.0,
        function_same=False,
        same_shape=True,
        in_old_body=False,
    )
    return replace(base, **changes)


EXACT = ev(exact=True, same_ast=True, similarity=1.0, context=1.0)
CARRIED = replace(EXACT, origin=Origin.ELSEWHERE, context=0.0, provenance=Provenance(carried=T.carried_statements, share=T.carried_share))
SWAPPED = replacement("self . set_gain ( scale )", "self . gain = scale")
RENAMED = replacement("del outputs", "del model_outputs")
PER_OBJECT = replacement("self . keys [ idx ] = self . keys [ idx ] . repeat ( n )", "self . key_states = self . key_states . repeat ( n )")

RULES = {
    Rule.FILE_UNCHANGED: StepCase(Container.FILE_UNCHANGED),
    Rule.UNREADABLE: StepCase(Container.UNREADABLE),
    Rule.LEFT_WITH_NEIGHBOURS: StepCase(
        Container.IN_PLACE,
        own=replace(EXACT, context=0.0, contentless=True),
        reached=replace(EXACT, origin=Origin.REACHED, reach=True, context=T.moved_context),
    ),
    Rule.SAME_TEXT: StepCase(Container.IN_PLACE, own=EXACT),
    Rule.SAME_TREE: StepCase(Container.IN_PLACE, own=ev(same_ast=True, similarity=0.9)),
    Rule.TARGET_RELOCATED: StepCase(Container.RELOCATED, own=EXACT),
    Rule.TARGET_HEADER: StepCase(Container.IN_PLACE, own=ev(similarity=0.2, same_shape=True, header=True), reached=replace(EXACT, origin=Origin.REACHED)),
    Rule.CONFIDENT_EDIT: StepCase(Container.IN_PLACE, own=ev(similarity=T.confident_similarity, context=T.confident_context)),
    Rule.MOVED_TO_REACHED: StepCase(Container.IN_PLACE, own=ev(similarity=0.7, context=0.5), reached=replace(EXACT, origin=Origin.REACHED, reach=True)),
    Rule.DECORATOR_REPLACED: StepCase(Container.IN_PLACE, own=ev(similarity=0.2, same_shape=True, decorator=True)),
    Rule.NESTED_LIFTED: StepCase(Container.IN_PLACE, own=ev(origin=Origin.REACHED, similarity=0.3, same_shape=True, lifted=True)),
    Rule.SAME_ACTION: StepCase(Container.IN_PLACE, own=ev(similarity=0.5, replacement=SWAPPED, same_shape=False)),
    Rule.RENAMED_THROUGHOUT: StepCase(Container.IN_PLACE, own=ev(similarity=0.7, replacement=RENAMED, renamed_throughout=True, position=Position.OUTSIDE)),
    Rule.EDIT: StepCase(Container.IN_PLACE, own=ev(similarity=T.edit_similarity, context=0.25)),
    Rule.SAME_ROLE: StepCase(Container.IN_PLACE, own=ev(similarity=T.candidate_similarity, same_role=True)),
    Rule.SAME_CALL: StepCase(Container.IN_PLACE, own=ev(similarity=T.candidate_similarity, same_call=True)),
    Rule.SOLE_ASSIGNMENT: StepCase(Container.IN_PLACE, own=ev(similarity=T.sole_assignment_similarity, sole_assignment=True)),
    Rule.SOLE_RETURN: StepCase(Container.IN_PLACE, own=ev(similarity=T.sole_return_similarity, sole_return=True)),
    Rule.SOLE_READER: StepCase(Container.IN_PLACE, own=ev(similarity=T.sole_assignment_similarity, sole_reader=True)),
    Rule.KEPT_CONDITION: StepCase(Container.IN_PLACE, own=ev(similarity=0.1, kept_condition=True)),
    Rule.PER_OBJECT_EDIT: StepCase(Container.IN_PLACE, edited=ev(origin=Origin.REACHED, similarity=0.5, replacement=PER_OBJECT)),
    Rule.ACTION_KEPT_IN_REACHED: StepCase(Container.IN_PLACE, edited=ev(origin=Origin.REACHED, similarity=T.confident_similarity, replacement=SWAPPED)),
    Rule.CLOSE_EDIT_IN_HELPER: StepCase(Container.IN_PLACE, edited=ev(origin=Origin.REACHED, similarity=T.confident_similarity), edited_in_helper=True),
    Rule.ALIGNED_IN_REACHED: StepCase(Container.IN_PLACE, edited=ev(origin=Origin.REACHED, similarity=T.edit_similarity, aligned=True)),
    Rule.EDITED_WITH_BLOCK: StepCase(Container.GONE, edited=ev(origin=Origin.ELSEWHERE, similarity=T.confident_similarity, context=T.moved_context)),
    Rule.EDITED_IN_REACHED: StepCase(Container.IN_PLACE, edited=ev(origin=Origin.REACHED, similarity=T.confident_similarity, context=T.moved_context)),
    Rule.MOVED_WITH_BLOCK: StepCase(Container.IN_PLACE, carried=CARRIED),
    Rule.EXTRACTED_AND_CALLED: StepCase(Container.IN_PLACE, own=ev(similarity=0.1, same_shape=False, extracted=True), decoys=3),
    Rule.HEADER_OF_ITS_BODY: StepCase(Container.IN_PLACE, decoys=3, body_header=ev(origin=Origin.REACHED, similarity=0.2)),
    Rule.DECOYS_ONLY: StepCase(Container.IN_PLACE, decoys=3),
    Rule.TARGET_GONE: StepCase(Container.GONE),
    Rule.NOTHING_CORRESPONDS: StepCase(Container.IN_PLACE),
}


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        ("self . keys [ idx ] = self . keys [ idx ] . repeat ( n )", "self . key_states = self . key_states . repeat ( n )", ReplacementKind.PER_OBJECT),
        ("self . v [ i ] . zero_ ( )", "self . v . zero_ ( )", ReplacementKind.PER_OBJECT),  # the same attribute, one object's own
        ("x = self . a [ i ]", "y = self . b", None),  # a local renamed as well: only the per-index attribute may change name
        ("self . a [ i ] = f ( n )", "self . b = f ( n , axis = 1 )", None),  # a keyword added: another call
        ("self . a [ 0 ] = f ( n )", "self . b = f ( n )", None),  # a constant index is one element, not per-object state
        ("other . a [ i ] = f ( n )", "other . b = f ( n )", None),  # only ``self``'s state becomes an object's own
    ],
)
def test_per_object_replacement(old, new, kind):
    found = replacement(old, new)
    assert (found.kind if found is not None else None) is kind


def test_a_per_object_edit_in_reached_needs_no_context():
    """Its neighbours were rewritten with it: the per-object edit is weighed where an ordinary one needs context."""
    per_object = ev(origin=Origin.REACHED, similarity=0.5, replacement=PER_OBJECT)
    assert decision.weight_in_reached(per_object, POLICY) > 0.0
    assert decision.weight_in_reached(replace(per_object, replacement=SWAPPED), POLICY) == 0.0
    assert decision.weight_in_reached(per_object, Policy(off=frozenset({Rule.PER_OBJECT_EDIT}))) == 0.0


def test_an_action_kept_in_reached_needs_close_text_and_content():
    """Rule ``action-kept-in-reached`` weighs a close rewrite that keeps the action without context, never a looser one."""
    kept = ev(origin=Origin.REACHED, similarity=T.confident_similarity, replacement=SWAPPED)
    assert decision.weight_in_reached(kept, POLICY) > 0.0
    assert decision.weight_in_reached(replace(kept, similarity=T.confident_similarity - 0.05), POLICY) == 0.0
    assert decision.weight_in_reached(replace(kept, contentless=True), POLICY) == 0.0
    assert decision.weight_in_reached(kept, Policy(off=frozenset({Rule.ACTION_KEPT_IN_REACHED}))) == 0.0
    # with context enough, edited-in-reached decides it
    assert decide(StepCase(Container.IN_PLACE, edited=replace(kept, context=T.moved_context))).rule is Rule.EDITED_IN_REACHED


def test_a_close_edit_in_a_helper_needs_close_text_of_its_kind():
    """Rule ``close-edit-in-helper`` weighs, in a helper the target was split into, an edit close in text and of the
    step's kind without context; never a looser one, a contentless one or another kind, and never outside such a helper."""
    close = ev(origin=Origin.REACHED, similarity=T.confident_similarity, same_shape=True)
    assert decision.weight_in_reached(close, POLICY) == 0.0  # elsewhere it needs its neighbours
    assert decision.weight_in_helper(close, POLICY) > 0.0
    assert decision.weight_in_helper(replace(close, similarity=T.confident_similarity - 0.05), POLICY) == 0.0
    assert decision.weight_in_helper(replace(close, contentless=True), POLICY) == 0.0
    assert decision.weight_in_helper(replace(close, same_shape=False), POLICY) == 0.0
    assert decision.weight_in_helper(replace(close, exact=True, similarity=1.0), POLICY) == 0.0  # a copy there is a move
    assert decision.weight_in_helper(close, Policy(off=frozenset({Rule.CLOSE_EDIT_IN_HELPER}))) == 0.0
    assert decide(StepCase(Container.IN_PLACE, edited=close, edited_in_helper=True)).rule is Rule.CLOSE_EDIT_IN_HELPER
    assert decide(StepCase(Container.IN_PLACE, edited=close)).rule is Rule.EDITED_IN_REACHED  # not in a split helper
    assert decide(StepCase(Container.IN_PLACE, edited=replace(close, context=T.moved_context), edited_in_helper=True)).rule is Rule.EDITED_IN_REACHED


def test_a_rename_placed_by_nothing_needs_it_to_go_through_the_target():
    """Rule ``renamed-throughout``: a rename outside the step's hunk with no neighbour is admitted only when the target
    no longer spells the old name, and then weighs as an edit (an edit the diff places outranks it)."""
    rename = ev(similarity=0.7, replacement=RENAMED, position=Position.OUTSIDE)
    assert admissible(rename) is None
    assert admissible(replace(rename, renamed_throughout=True)) is Rule.RENAMED_THROUGHOUT
    placed = ev(similarity=0.7, context=0.25, position=Position.IN_HUNK)
    assert decision.weight(placed, POLICY) > decision.weight(replace(rename, renamed_throughout=True), POLICY)


def test_the_only_call_left_is_weighed_where_the_target_leads():
    """Rule ``same-call`` admits, where the target now hands its work, the only statement making the step's call
    without neighbours, not one too far in text or of another kind; and it names the rule that decided."""
    call = ev(origin=Origin.REACHED, similarity=T.candidate_similarity, same_call=True)
    assert decision.weight_in_reached(call, POLICY) > 0.0
    assert decision.weight_in_reached(replace(call, similarity=T.candidate_similarity - 0.05), POLICY) == 0.0
    assert decision.weight_in_reached(replace(call, same_shape=False), POLICY) == 0.0
    assert decision.weight_in_reached(call, Policy(off=frozenset({Rule.SAME_CALL}))) == 0.0
    assert decide(StepCase(Container.IN_PLACE, edited=call)).rule is Rule.SAME_CALL


def test_every_rule_has_a_row():
    assert set(RULES) == set(Rule)


@pytest.mark.parametrize("rule", list(Rule), ids=[r.value for r in Rule])
def test_each_rule_decides_its_row(rule):
    decision = decide(RULES[rule])
    assert (decision.rule, decision.kind) == (rule, RULE_KIND[rule])


ADMISSIBLE = [
    # (evidence, rule it is admitted by, or None)
    (ev(exact=True, in_old_body=True), Rule.SAME_TEXT),
    (ev(same_ast=True, in_old_body=True), None),  # the reviewed body held it: never another step's edit
    (ev(similarity=T.confident_similarity), Rule.EDIT),
    (ev(similarity=T.confident_similarity - 0.01), None),
    (ev(similarity=T.edit_similarity, context=0.01), Rule.EDIT),
    (ev(similarity=T.edit_similarity - 0.01, context=0.99), None),
    (ev(similarity=T.candidate_similarity, context=1.0), Rule.EDIT),
    (ev(similarity=T.candidate_similarity - 0.01, context=1.0), None),
    (ev(similarity=0.9, same_shape=False), None),  # an assignment does not become an ``if`` header
    (ev(similarity=T.sole_assignment_similarity, sole_assignment=True), Rule.SOLE_ASSIGNMENT),
    (ev(similarity=T.candidate_similarity, same_role=True), Rule.SAME_ROLE),  # the only statement of its role: no neighbour needed
    (ev(similarity=T.candidate_similarity - 0.01, same_role=True), None),
    (ev(similarity=T.sole_assignment_similarity - 0.01, sole_assignment=True), None),
    (ev(similarity=T.sole_return_similarity, sole_return=True), Rule.SOLE_RETURN),
    (ev(similarity=T.sole_return_similarity - 0.01, sole_return=True), None),
    (ev(similarity=T.sole_assignment_similarity, sole_reader=True), Rule.SOLE_READER),
    (ev(similarity=T.sole_assignment_similarity - 0.01, sole_reader=True), None),  # some words in common still
    (ev(similarity=0.1, kept_condition=True), Rule.KEPT_CONDITION),  # the tests tell, not the words
    (ev(similarity=0.9, same_shape=False, kept_condition=True), None),  # never across kinds of statement
    (ev(similarity=0.1, same_shape=False, extracted=True), Rule.EXTRACTED_AND_CALLED),  # the helper tells, not the words
    (ev(similarity=T.confident_similarity, extracted=True), Rule.EDIT),  # the weakest admission: any other comes first
    (ev(similarity=0.2, context=0.25, replacement=SWAPPED, same_shape=False), Rule.SAME_ACTION),
    (ev(similarity=0.2, replacement=SWAPPED), None),  # a replacement still needs a neighbour or some text
    (ev(similarity=0.0, header=True), Rule.TARGET_HEADER),  # the mapped target's header, however different
    (ev(exact=True, similarity=1.0, header=True), Rule.SAME_TEXT),
    # Position (the body diff) counts as context: in the step's hunk like a neighbour, at its rank like all of them.
    (ev(similarity=T.edit_similarity, position=Position.IN_HUNK), Rule.EDIT),
    (ev(similarity=T.edit_similarity - 0.01, position=Position.IN_HUNK), None),
    (ev(similarity=T.edit_similarity, position=Position.OUTSIDE), None),
    (ev(similarity=T.candidate_similarity, position=Position.PAIRED), Rule.EDIT),
    (ev(similarity=T.candidate_similarity - 0.01, position=Position.PAIRED), None),
    (ev(similarity=0.2, replacement=SWAPPED, position=Position.IN_HUNK), Rule.SAME_ACTION),
    (ev(similarity=0.5, replacement=SWAPPED, position=Position.OUTSIDE), None),  # elsewhere in the body: needs a neighbour
    (ev(similarity=0.5, replacement=SWAPPED, position=Position.OUTSIDE, context=0.25), Rule.SAME_ACTION),
]


@pytest.mark.parametrize(("evidence", "rule"), ADMISSIBLE)
def test_admissible_edges(evidence, rule):
    assert admissible(evidence) is rule


def test_an_edit_paired_in_order_where_the_target_leads_needs_no_neighbours():
    """Rule aligned-in-reached: the pairing in order with what the target lost stands in for the deleted neighbours,
    for a statement of the step's kind with content, close in text; the rule switched off, it is weighed as before."""
    paired = ev(origin=Origin.REACHED, similarity=T.edit_similarity, aligned=True)
    assert decision.weight_in_reached(paired, POLICY) > 0.0
    assert decision.weight_in_reached(replace(paired, similarity=T.edit_similarity - 0.01), POLICY) == 0.0
    assert decision.weight_in_reached(replace(paired, same_shape=False), POLICY) == 0.0
    assert decision.weight_in_reached(replace(paired, contentless=True), POLICY) == 0.0
    assert decision.weight_in_reached(paired, Policy(off=frozenset({Rule.ALIGNED_IN_REACHED}))) == 0.0


def test_in_a_function_the_target_hands_its_work_to_only_its_role_stands_without_neighbours():
    reached = ev(origin=Origin.REACHED, similarity=T.edit_similarity)
    assert decision.weight_in_reached(reached, POLICY) == 0.0  # an edit elsewhere needs its neighbours around it
    assert decision.weight_in_reached(replace(reached, same_role=True), POLICY) > 0.0
    assert decision.weight_in_reached(replace(reached, same_role=True, similarity=T.candidate_similarity - 0.01), POLICY) == 0.0


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("self . assistant_kwargs = _prepare_attention_mask ( self . assistant_kwargs , new_cur_len )", "assign self.assistant_kwargs _prepare_attention_mask"),
        ("key_states = key_states . to ( k_out . dtype )", "assign key_states key_states.to"),
        ('cache_position = cache_kwargs . get ( "cache_position" ) if cache_kwargs else None', "assign cache_position cache_kwargs.get"),
        ("self . keys . copy_ ( key_states )", "call self.keys.copy_"),
        ("self . gain = scale", "assign self.gain"),  # an attribute is a role of its own, whatever is assigned
        ('raise ValueError ( "no" )', "raise ValueError"),
        ("return SchedulerOutput ( prev_sample = prev_sample )", "return SchedulerOutput"),
        ("device = model_output . device", None),  # a local computed without a call: any function may have one
        ("return k_out , v_out", None),
        ("if cache_position is None :", None),
    ],
)
def test_statement_role(text, role):
    assert statement_role(text) == role


def test_a_confident_edit_is_decided_before_a_reached_copy_only_when_nothing_is_reached():
    own = ev(similarity=0.9, context=1.0)
    reached = replace(EXACT, origin=Origin.REACHED, reach=True)
    assert decide(StepCase(Container.IN_PLACE, own=own)).rule is Rule.CONFIDENT_EDIT
    assert decide(StepCase(Container.IN_PLACE, own=own, reached=reached)).rule is Rule.MOVED_TO_REACHED


CARRIED_ROWS = [
    # (provenance, context, whether the place is where the step went)
    (Provenance(carried=T.carried_statements, share=T.carried_share), 0.0, True),
    (Provenance(carried=T.carried_statements - 1, share=1.0), 1.0, False),  # too few statements came along
    (Provenance(carried=T.carried_statements, share=T.carried_share - 0.01), 0.0, False),  # a small part of what went...
    (Provenance(carried=T.carried_statements, share=T.carried_share - 0.01), T.moved_context, True),  # ...with its neighbours
    (Provenance(carried=5, share=1.0, copied=5), 1.0, False),  # as much of what the target kept: a clone of it
    (Provenance(carried=5, share=1.0, copied=4), 1.0, True),
]


@pytest.mark.parametrize(("provenance", "context", "taken"), CARRIED_ROWS)
def test_a_place_that_gained_the_lost_statements_edges(provenance, context, taken):
    place = replace(CARRIED, provenance=provenance, context=context)
    assert (pick_carried([place]) == 0) is taken


def test_a_deleted_target_is_followed_only_into_a_function_that_was_there_at_the_review():
    new = replace(CARRIED, provenance=replace(CARRIED.provenance, new_place=True))
    assert pick_carried([new]) == 0  # the target is still there: a new helper is where its block went
    assert pick_carried([new], gone=True) is None  # the target is gone: a new function holding part of it is a copy
    assert pick_carried([CARRIED], gone=True) == 0  # an old function that gained it absorbed it


def test_two_places_that_gained_as_much_tell_nothing():
    place = replace(CARRIED, provenance=Provenance(carried=4, share=0.8), context=0.5)
    assert pick_carried([place, replace(place, context=0.5 - T.moved_margin / 2)]) is None
    assert pick_carried([place, replace(place, context=0.5 - T.moved_margin * 2)]) == 0


def test_a_place_that_gained_the_text_beats_only_a_weak_edit_inside_the_target():
    # A clone of a target that was rewritten carries the old text too: a real edit in place wins over it...
    own = ev(similarity=T.edit_similarity, context=0.5)
    assert decide(StepCase(Container.IN_PLACE, own=own, carried=CARRIED)).rule is Rule.EDIT
    # ...but a statement admitted on its place and neighbours alone (the call that replaced an extracted block) loses.
    weak = ev(similarity=T.candidate_similarity, context=1.0)
    assert decide(StepCase(Container.IN_PLACE, own=weak)).rule is Rule.EDIT
    assert decide(StepCase(Container.IN_PLACE, own=weak, carried=CARRIED)).rule is Rule.MOVED_WITH_BLOCK


def test_a_contentless_statement_is_told_by_its_neighbours_not_its_text():
    reached = replace(EXACT, origin=Origin.REACHED, reach=True, context=T.moved_context)
    bare = replace(EXACT, context=0.0, contentless=True)
    assert decide(StepCase(Container.IN_PLACE, own=bare, reached=reached)).rule is Rule.LEFT_WITH_NEIGHBOURS
    assert decide(StepCase(Container.IN_PLACE, own=replace(bare, context=0.25), reached=reached)).rule is Rule.SAME_TEXT
    assert decide(StepCase(Container.IN_PLACE, own=bare, reached=replace(reached, context=T.moved_context - 0.01))).rule is Rule.SAME_TEXT
    # a statement with content of its own that kept its text stays, whatever its neighbours did
    assert decide(StepCase(Container.IN_PLACE, own=replace(bare, contentless=False), reached=reached)).rule is Rule.SAME_TEXT
    # and a contentless statement found in a function the target reaches is there only with its neighbours
    alone = replace(reached, contentless=True, context=T.moved_context - 0.01)
    assert decide(StepCase(Container.IN_PLACE, reached=alone)).rule is Rule.NOTHING_CORRESPONDS
    assert decide(StepCase(Container.IN_PLACE, reached=replace(alone, context=T.moved_context))).rule is Rule.MOVED_TO_REACHED


def test_a_surviving_copy_must_be_singled_out():
    assert same_copy([T.same_copy_context, 0.0])
    assert not same_copy([T.same_copy_context, T.same_copy_context])
    assert not same_copy([T.same_copy_context - 0.01])


@pytest.mark.parametrize(
    ("left", "right", "same"),
    [
        ("x = ( a + b )", "x = a + b", True),
        ("x = ( ( a + b ) ) * 2", "x = ( a + b ) * 2", True),
        ("if ( a ) :", "if a :", True),
        ("elif a :", "if a :", False),
        ("x = ( a + b ) * 2", "x = a + b * 2", False),
        ("else :", "else :", True),
    ],
)
def test_same_syntax_tree_ignores_only_redundant_parentheses(left, right, same):
    assert same_ast(left, right) is same


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        ("self . set_gain ( scale )", "self . gain = scale", ReplacementKind.SETTER_ASSIGNMENT),
        ("self . gain = scale", "self . set_gain ( scale )", ReplacementKind.SETTER_ASSIGNMENT),
        ('setattr ( self , "gain" , scale )', "self . gain = scale", ReplacementKind.SETTER_ASSIGNMENT),
        ("self . set_gain ( scale )", "self . gain = 2 * scale", None),  # another value: not the same action
        ("self . set_gain ( scale )", "other . gain = scale", None),  # another object
        ("self . model = Net ( config )", "setattr ( self , self . prefix , Auto . build ( config ) )", ReplacementKind.COMPUTED_SETTER),
        ("setattr ( self , self . prefix , Auto . build ( config ) )", "self . model = Net ( config )", ReplacementKind.COMPUTED_SETTER),
        ("self . model = Net ( config )", "setattr ( self , self . prefix , Auto . build ( config , 2 ) )", None),  # other arguments
        ("self . model = Net ( config )", "setattr ( other , self . prefix , Auto . build ( config ) )", None),  # another object
        ("self . model = Net ( config )", 'setattr ( self , "head" , Net ( config ) )', None),  # another name, spelled out
        ("h = self . norm ( h )", "h = self . pre_norm ( h )", ReplacementKind.CALL_RENAMED),
        ("std_dev_t = eta * variance ** 0.5", "sigma_t = eta * variance ** 0.5", ReplacementKind.VARIABLE_RENAMED),
        ("a = b + c", "x = y + z", None),  # three names differ: more than a rename
        ("a = b + 1", "a = b + 2", None),
        ("x = f ( a )", "x = f ( a , dtype = d )", ReplacementKind.KEYWORDS_CHANGED),  # a keyword added
        ("x = f ( a , b = 1 )", "y = f ( a )", ReplacementKind.KEYWORDS_CHANGED),  # removed, and a rename: two changes
        ("x = f ( a , b = 1 )", "y = f ( a , c = 2 )", None),  # three changes
        ("x = f ( a , b = 1 )", "x = f ( a , b = 2 )", None),  # a value changed: not a replacement
        ("x = f ( a , ** kw )", "x = f ( a , ** kw , c = 2 )", None),  # keywords beside ** must line up
    ],
)
def test_replacements_that_keep_the_action(old, new, kind):
    found = replacement(old, new)
    assert (found.kind if found else None) is kind


def test_statement_shape_keeps_elif_with_if():
    assert statement_shape("elif x :") == statement_shape("if y :") == "if"
    assert statement_shape("x [ 0 ] = 1") == "assign"


def test_assignment_is_one_to_one_and_maximises_the_total():
    assert assign({"a": {1: 5.0, 2: 4.0}, "b": {1: 6.0}}) == {"a": 2, "b": 1}
    assert assign({"a": {1: 1.0}, "b": {1: 2.0, 2: 0.1}}) == {"b": 1}
    assert assign({"a": {}, "b": {}}) == {}
    chosen = assign({n: {1: 1.0, 2: 1.0} for n in "abc"})
    assert len(chosen) == 2 and len(set(chosen.values())) == 2


def test_keywords_only_one_side_passes_do_not_count_against_similarity():
    from infralens.drift.match.texts import ratio, ratio_without_lone_keywords

    q = T.quick_reject_similarity
    old = "sample = checkpoint ( forward ( block ) , sample , use_reentrant = False )"
    new = "sample = self . checkpointing ( block , sample )"
    assert ratio_without_lone_keywords(old, new, q) == ratio("sample = checkpoint ( forward ( block ) , sample )", new, q) > ratio(old, new, q)
    assert ratio_without_lone_keywords("x = f ( a , b = 1 )", "x = f ( a , b = 2 )", q) == 0.0  # the same keywords: nothing to leave out
    assert ratio_without_lone_keywords("except ValueError ( a = 1 ) :", "except KeyError :", q) == 0.0


def test_a_call_doing_the_steps_work_yields_to_the_edit_where_the_work_went():
    """``extracted-and-called`` is the weakest admission: an edit in the function the target now hands its work to
    (the helper's own statement) is the more precise place, and the text itself there is a move."""
    call = ev(similarity=0.3, extracted=True)
    edited = ev(origin=Origin.REACHED, similarity=T.confident_similarity, context=T.moved_context)
    assert decide(StepCase(Container.IN_PLACE, own=call, edited=edited)).rule is Rule.EDITED_IN_REACHED
    assert decide(StepCase(Container.IN_PLACE, own=call, reached=replace(EXACT, origin=Origin.REACHED))).rule is Rule.MOVED_TO_REACHED
    assert decide(StepCase(Container.IN_PLACE, own=call)).rule is Rule.EXTRACTED_AND_CALLED
