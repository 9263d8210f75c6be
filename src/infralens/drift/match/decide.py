"""The decision: one table of thresholds and one pure function that names the rule deciding each step.

Nothing here reads sources. :func:`admissible` says which rule, if any, would accept a candidate
inside the mapped target (the one-to-one assignment only links a step to such candidates, weighted
by :func:`weight`); :func:`decide` takes the step's :class:`StepCase` (its assigned candidate and
what the search elsewhere found) and returns the kind with the :class:`Rule` that decided it.
Every threshold the matcher uses is a field of :data:`THRESHOLDS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, TypeVar

from infralens.drift.match.position import Position
from infralens.reports import DriftKind as StepKind

if TYPE_CHECKING:
    from infralens.drift.match.evidence import Evidence


@dataclass(frozen=True)
class Thresholds:
    """Every number the drift matcher decides with (one table; each rule's test reads it)."""

    edit_similarity: float = 0.6
    """Text similarity for *changed* when at least one neighbour agrees."""
    confident_similarity: float = 0.8
    """Text similarity for *changed* on text alone (and, with context ≥ :attr:`confident_context`, before any search)."""
    confident_context: float = 0.5
    candidate_similarity: float = 0.45
    """Below this, a statement is no edit candidate (at this similarity every neighbour must agree)."""
    sole_assignment_similarity: float = 0.3
    """Similarity for the only statement left that assigns the same name."""
    edited_neighbour: float = 0.5
    """What a neighbour that was edited too, or sits one statement off, counts in tolerant context."""
    same_copy_context: float = 0.5
    """Context for a surviving copy of a repeated statement to be the annotated one after copies went."""
    moved_locality: float = 0.6
    """Function similarity (Jaccard of statement fingerprints) for a home elsewhere when the target is gone."""
    moved_context: float = 0.5
    moved_margin: float = 0.05
    """Two homes elsewhere whose locality + context differ by less than this are equally good (none is chosen)."""
    ambiguous_margin: float = 0.02
    """A runner-up edit candidate this close to the chosen one makes *changed* ambiguous."""
    max_renames: int = 2
    """At most this many names may differ for an edit to count as a rename that keeps the action."""
    target_moved_overlap: float = 0.3
    """Body overlap for the same qualname in another module to be the target moved."""
    target_renamed_overlap: float = 0.6
    """Body overlap for a definition of another name to be the target renamed."""
    renamed_split_direct: float = 0.15
    """A definition of a new name must hold this share of the reviewed body itself before the helpers it calls count."""
    target_renamed_margin: float = 0.05
    """A second rename candidate this close to the best makes the rename ambiguous (not reported)."""
    carried_statements: int = 3
    """A place elsewhere that gained at least this many of the target's lost statements may be where the step went..."""
    carried_share: float = 0.5
    """...when they are at least this share of what the target lost, or its neighbours came along (:attr:`moved_context`)."""
    position_rank: float = 0.15
    """What standing at the step's rank in its diff hunk adds to an edit candidate's rank (half for elsewhere in the hunk)."""
    max_search_files: int = 16
    """At most this many files are indexed per distribution-wide search (best-ranked first)."""


THRESHOLDS = Thresholds()

T = TypeVar("T")


class Origin(str, Enum):
    """Which strategy proposed a candidate."""

    TARGET = "target"
    """A statement inside the mapped target (in place, moved or renamed)."""
    REACHED = "reached"
    """The same text in a function the target calls or a decorator it carries."""
    ELSEWHERE = "elsewhere"
    """The same text anywhere else in the distribution."""


class Rule(str, Enum):
    """The named rules; the value is what reports and ``--explain`` print."""

    FILE_UNCHANGED = "file-unchanged"
    UNREADABLE = "unreadable"
    SAME_TEXT = "same-text"
    SAME_TREE = "same-tree"
    TARGET_RELOCATED = "target-relocated"
    TARGET_HEADER = "target-header"
    CONFIDENT_EDIT = "confident-edit"
    MOVED_TO_REACHED = "moved-to-reached"
    SAME_ACTION = "same-action"
    EDIT = "edit"
    SOLE_ASSIGNMENT = "sole-assignment"
    MOVED_HOME = "moved-home"
    MOVED_WITH_BLOCK = "moved-with-block"
    DECOYS_ONLY = "decoys-only"
    TARGET_GONE = "target-gone"
    NOTHING_CORRESPONDS = "nothing-corresponds"


RULE_KIND = {
    Rule.FILE_UNCHANGED: StepKind.UNCHANGED,
    Rule.UNREADABLE: StepKind.UNREADABLE,
    Rule.SAME_TEXT: StepKind.UNCHANGED,
    Rule.SAME_TREE: StepKind.UNCHANGED,
    Rule.TARGET_RELOCATED: StepKind.MOVED,
    Rule.TARGET_HEADER: StepKind.CHANGED,
    Rule.CONFIDENT_EDIT: StepKind.CHANGED,
    Rule.MOVED_TO_REACHED: StepKind.MOVED,
    Rule.SAME_ACTION: StepKind.CHANGED,
    Rule.EDIT: StepKind.CHANGED,
    Rule.SOLE_ASSIGNMENT: StepKind.CHANGED,
    Rule.MOVED_HOME: StepKind.MOVED,
    Rule.MOVED_WITH_BLOCK: StepKind.MOVED,
    Rule.DECOYS_ONLY: StepKind.DELETED,
    Rule.TARGET_GONE: StepKind.DELETED,
    Rule.NOTHING_CORRESPONDS: StepKind.DELETED,
}
"""The kind each rule yields."""


class Container(str, Enum):
    """What became of the step's target, as far as its steps are concerned."""

    FILE_UNCHANGED = "file-unchanged"
    UNREADABLE = "unreadable"
    IN_PLACE = "in-place"
    RELOCATED = "relocated"
    """Moved to another module or renamed: an identical statement there is *moved*."""
    GONE = "gone"


@dataclass(frozen=True)
class StepCase:
    """Everything :func:`decide` weighs for one step."""

    container: Container
    own: Evidence | None = None
    """The candidate inside the target that the one-to-one assignment gave this step."""
    reached: Evidence | None = None
    """The same text in a function the target now leads to."""
    home: Evidence | None = None
    """The clearly best home elsewhere (only looked for when the target is gone)."""
    carried: Evidence | None = None
    """The one place elsewhere whose function gained the target's lost statements (see :func:`pick_carried`)."""
    decoys: int = 0
    """How many other places hold the same text."""


@dataclass(frozen=True)
class Decision:
    kind: StepKind
    rule: Rule


def admissible(evidence: Evidence) -> Rule | None:
    """The rule that would accept this candidate inside the target (None: it is not a candidate)."""
    t = THRESHOLDS
    if evidence.exact:
        return Rule.SAME_TEXT
    if evidence.in_old_body:
        return None  # the reviewed body held it already: it was there all along, not an edit of this step
    if evidence.same_ast:
        return Rule.SAME_TREE
    if evidence.header:
        return Rule.TARGET_HEADER  # the mapped target's header is the reviewed header's place, whatever its parameters
    placed = evidence.position in (Position.PAIRED, Position.IN_HUNK)  # the body diff puts it where the step was
    s, c = evidence.similarity, evidence.context
    if evidence.replacement is not None and (c > 0.0 or placed or (s >= t.candidate_similarity and evidence.position is not Position.OUTSIDE)):
        return Rule.SAME_ACTION
    if not evidence.same_shape:
        return None  # an edit keeps the kind of statement
    if (
        s >= t.confident_similarity
        or (s >= t.edit_similarity and (c > 0.0 or placed))
        or (s >= t.candidate_similarity and (c >= 1.0 or evidence.position is Position.PAIRED))
    ):
        return Rule.EDIT
    if evidence.sole_assignment and s >= t.sole_assignment_similarity:
        return Rule.SOLE_ASSIGNMENT
    return None


def weight(evidence: Evidence) -> float:
    """How strongly a step and an admissible candidate belong together (the assignment maximises the sum)."""
    rule = admissible(evidence)
    if rule is Rule.SAME_TEXT:
        return 10.0 + evidence.context
    if rule is Rule.TARGET_HEADER:
        return 9.0
    if rule is Rule.SAME_TREE:
        return 9.0 + evidence.context
    if rule is Rule.SAME_ACTION:
        return 3.0 + evidence.context + evidence.similarity
    if rule is Rule.EDIT:
        return 1.0 + edit_rank(evidence)
    if rule is Rule.SOLE_ASSIGNMENT:
        return 0.5 * evidence.similarity
    return 0.0


_POSITION_SHARE = {Position.PAIRED: 1.0, Position.IN_HUNK: 0.5}


def edit_rank(evidence: Evidence) -> float:
    """The order of edit candidates: mostly text, partly context, and where the body diff puts them."""
    share = THRESHOLDS.position_rank * _POSITION_SHARE.get(evidence.position, 0.0)
    return (0.7 - THRESHOLDS.position_rank) * evidence.similarity + 0.3 * evidence.context + share


def confident(evidence: Evidence) -> bool:
    """Close enough in text and context to be *changed* before looking at places the target leads to."""
    return evidence.similarity >= THRESHOLDS.confident_similarity and evidence.context >= THRESHOLDS.confident_context


def decide(case: StepCase) -> Decision:
    """The kind of one step, and the rule that decided it.

    In order: the same text or tree inside the target (unless a contentless statement went with its neighbours into a
    helper), the target's own header, a confident edit, the text in a function the target reaches, the place that
    gained the target's lost statements (over no or a weak edit), any edit, a home elsewhere, look-alikes, nothing.
    """
    if case.container is Container.FILE_UNCHANGED:
        return Decision(StepKind.UNCHANGED, Rule.FILE_UNCHANGED)
    if case.container is Container.UNREADABLE:
        return Decision(StepKind.UNREADABLE, Rule.UNREADABLE)
    own = case.own
    rule = admissible(own) if own is not None else None
    if rule in (Rule.SAME_TEXT, Rule.SAME_TREE):
        if own is not None and case.reached is not None and left_with_neighbours(own, case.reached):
            return _decided(Rule.MOVED_TO_REACHED)
        return _decided(Rule.TARGET_RELOCATED if case.container is Container.RELOCATED else rule)
    if rule is Rule.TARGET_HEADER:
        return _decided(rule)
    if own is not None and rule in (Rule.SAME_ACTION, Rule.EDIT) and case.reached is None and confident(own):
        return _decided(Rule.SAME_ACTION if rule is Rule.SAME_ACTION else Rule.CONFIDENT_EDIT)
    if case.reached is not None and (not case.reached.contentless or case.reached.context >= THRESHOLDS.moved_context):
        return _decided(Rule.MOVED_TO_REACHED)  # a contentless statement is only where its neighbours are
    if case.carried is not None and carried_can_decide(own):
        return _decided(Rule.MOVED_WITH_BLOCK)
    if rule is not None:
        return _decided(rule)
    if case.home is not None:
        return _decided(Rule.MOVED_HOME)
    if case.decoys:
        return _decided(Rule.DECOYS_ONLY)
    return _decided(Rule.TARGET_GONE if case.container is Container.GONE else Rule.NOTHING_CORRESPONDS)


def _decided(rule: Rule) -> Decision:
    return Decision(RULE_KIND[rule], rule)


def best_scored(scored: Sequence[tuple[float, T]], floor: float) -> list[T]:
    """The container candidates scoring at least ``floor`` and within :attr:`~Thresholds.target_renamed_margin` of the
    best, best first: one means it is clearly the target's new place; several, that none is (unless told apart)."""
    good = sorted((item for item in scored if item[0] >= floor), key=lambda item: -item[0])
    return [found for score, found in good if score >= good[0][0] - THRESHOLDS.target_renamed_margin] if good else []


def clearly_best(scored: Sequence[tuple[float, T]], floor: float) -> T | None:
    """The one candidate :func:`best_scored` leaves, or None."""
    tied = best_scored(scored, floor)
    return tied[0] if len(tied) == 1 else None


def may_be_home(evidence: Evidence) -> bool:
    """Whether a place elsewhere is, by its own evidence, a home for a step whose target is gone: the reviewed
    function (same fingerprint), or one like it in locality with the step's neighbours around."""
    t = THRESHOLDS
    return evidence.function_same or (evidence.locality >= t.moved_locality and evidence.context >= t.moved_context)


def pick_home(candidates: list[Evidence]) -> int | None:
    """Index of the one clearly best home elsewhere (the target is gone), or None when none or several are.

    A home counts when it is the reviewed function (same fingerprint) or resembles it in locality and context.
    """
    t = THRESHOLDS
    good = [(n, e) for n, e in enumerate(candidates) if not e.provenance.preexisting and may_be_home(e)]
    if not good:
        return None
    good.sort(key=lambda item: (item[1].function_same, item[1].locality + item[1].context), reverse=True)
    best = good[0][1]
    floor = best.locality + best.context - t.moved_margin
    if any(e.function_same == best.function_same and e.locality + e.context >= floor for _, e in good[1:]):
        return None
    return good[0][0]


CONTENTLESS = frozenset({"else :", "try :", "finally :", "pass", "break", "continue", "return"})
"""Statements with no content of their own: which one is which is told by their neighbours, not their text."""


def left_with_neighbours(own: Evidence, reached: Evidence) -> bool:
    """Whether a contentless statement (:data:`CONTENTLESS`) the target still holds went to a helper it now calls all the
    same: the copy in the target has none of the step's neighbours and the helper's copy has them (the ``else :`` of a
    branch extracted into a helper, while another ``else :`` stays). A statement with content that kept its text stays."""
    return own.contentless and own.context == 0.0 and reached.context >= THRESHOLDS.moved_context


def carried_can_decide(own: Evidence | None) -> bool:
    """Whether a place that gained the target's lost statements can decide over ``own``, the step's candidate inside
    the target: only over none or a weak edit (a clone of a rewritten target carries the old text too, so a real edit
    in place wins; the call that replaced an extracted block, admitted on its place alone, does not)."""
    return own is None or admissible(own) is None or own.similarity < THRESHOLDS.edit_similarity


def pick_carried(candidates: list[Evidence], *, gone: bool = False) -> int | None:
    """Index of the one place elsewhere where the step went with a block of the target's statements, or None.

    Its function gained at least :attr:`~Thresholds.carried_statements` of the statements the target lost since the
    review, more than it gained of those the target kept (a clone of the whole target copies those too), and they
    are most of what the target lost or the step's neighbours came along. Two such places about as good (a block
    copied into two new functions) tell nothing. Only asked when nothing inside the target corresponds. When the target
    is ``gone``, only a function that was there at the review can have absorbed it: a new function holding part of a
    deleted one is as often a copy of it (a new pipeline's ``prepare_latents``), and a new function that *is* the
    target renamed or moved is the container decision's to find.
    """
    t = THRESHOLDS
    good = [
        (n, e)
        for n, e in enumerate(candidates)
        if e.provenance.carried >= t.carried_statements
        and not (gone and e.provenance.new_place)
        and e.provenance.carried > e.provenance.copied
        and (e.provenance.share >= t.carried_share or e.context >= t.moved_context)
    ]
    if not good:
        return None
    good.sort(key=lambda item: item[1].provenance.share + item[1].context, reverse=True)
    floor = good[0][1].provenance.share + good[0][1].context - t.moved_margin
    if any(e.provenance.share + e.context >= floor for _, e in good[1:]):
        return None
    return good[0][0]


def same_copy(contexts: list[float]) -> bool:
    """Whether neighbours single out one surviving copy of a repeated statement (after some copies went)."""
    best = max(contexts)
    return best >= THRESHOLDS.same_copy_context and contexts.count(best) == 1
