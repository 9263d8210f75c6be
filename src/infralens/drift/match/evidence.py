"""Evidence: every measurement the decision weighs, computed in one place for every candidate.

A candidate is a place a locked statement may be now (:class:`~infralens.drift.match.propose.Proposal`).
For each one this module measures, and only measures: the text similarity of the normalised texts,
whether the two statements have the same syntax tree (parentheses and line breaks do not count),
neighbour-context agreement, locality, whether the statement kind is kept, whether the reviewed body
already held the candidate, and whether the edit is a known *replacement* that keeps the action (a
variable or a called function renamed, a setter call written as an attribute assignment). The verdict
is :func:`~infralens.drift.match.decide.decide`'s, from these values alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from infralens.drift.lock.entries import StepLock, short_hash
from infralens.drift.lock.facts import surroundings
from infralens.drift.match.position import Position
from infralens.drift.match.propose import Proposal
from infralens.drift.match.replacements import Replacement, renamed_away, replacement
from infralens.drift.match.reviewed import UNKNOWN, Provenance
from infralens.drift.match.rules import CONTENTLESS, Origin, Thresholds
from infralens.drift.match.texts import (
    another_field,
    bare_return,
    ratio,
    ratio_at_least,
    ratio_without_lone_keywords,
    same_ast,
    statement_shape,
)


@dataclass(frozen=True)
class Evidence:
    """The measurements of one candidate for one locked step (each in [0, 1] or a plain fact)."""

    origin: Origin
    exact: bool
    """The normalised texts are identical."""
    same_ast: bool
    """The syntax trees are identical (the texts differ only in redundant parentheses or layout)."""
    similarity: float
    context: float
    """Share of the recorded neighbours found around the candidate (edited or shifted ones count half)."""
    locality: float
    function_same: bool
    """The candidate's function has the reviewed function's fingerprint."""
    same_shape: bool
    """Same kind of statement (an assignment stays an assignment, an ``if`` header an ``if`` header)."""
    in_old_body: bool
    """The reviewed body already held this exact text (then it is not the edit of another statement)."""
    reach: bool = False
    """The reviewed target now leads to the candidate's function (a call or a decorator resolves there)."""
    replacement: Replacement | None = None
    sole_assignment: bool = False
    """The only statement left in the target that assigns the same name."""
    sole_reader: bool = False
    """The candidate is the only statement reading a name that kept statements set and that only the step read at the review."""
    kept_condition: bool = False
    """The candidate is the only header whose ``and``-joined tests hold all of the step's, or are all among them."""
    extracted: bool = False
    """The candidate calls a helper of its file whose body, read with the call's arguments, clearly holds the step's edit."""
    another_field: bool = False
    """Step and candidate each set a name read from a key of that name, and the names share no word (filter ``another-field``)."""
    sole_return: bool = False
    """The step is the only ``return`` of the reviewed target's body and the candidate the only one of the target now."""
    aligned: bool = False
    """The candidate lies where the target now leads, paired with the step in order between statements that place gained verbatim (:mod:`.aligned`)."""
    same_role: bool = False
    """The only statement left (in the target, or in the places it hands its work to) that plays the step's role
    (:func:`~.texts.statement_role`), and no other step plays it."""
    same_call: bool = False
    """The only statement left (in the target, or in the places it hands its work to) that makes the step's call
    (:func:`~.texts.statement_call`), which the reviewed target made in the step alone, and no other step makes."""
    renamed_throughout: bool = False
    """The edit only renames names (:attr:`ReplacementKind.VARIABLE_RENAMED` or ``CALL_RENAMED``) that the target no
    longer spells in any statement: the rename went through the whole function."""
    position: Position = Position.UNKNOWN
    """Where the diff of the reviewed and the new body puts the candidate relative to the step (:mod:`.position`)."""
    contentless: bool = False
    """The step is a statement with no content of its own (:data:`~.decide.CONTENTLESS`): its neighbours tell which it is."""
    bare_return: bool = False
    """The step returns a bare name (:func:`~.texts.bare_return`): found elsewhere, only its neighbours say it is the step."""
    header: bool = False
    """The step is the reviewed target's ``def`` header and the candidate the mapped target's."""
    decorator: bool = False
    """The step is a decorator the target lost and the candidate the one that took its place (:func:`~.propose.replaced_decorator`)."""
    lifted: bool = False
    """The step is a nested function's ``def`` line and the candidate the one of the helper it was lifted into (:func:`~.propose.lifted_function`)."""
    provenance: Provenance = UNKNOWN
    """What the reviewed release says about a place elsewhere: held the text already, or gained the target's (:mod:`.reviewed`)."""

    def describe(self) -> str:
        """The evidence in words, as ``check --explain`` prints it."""
        parts = [
            f"origin {self.origin.value}",
            f"similarity {self.similarity:.2f}",
            f"context {self.context:.2f}",
            f"locality {self.locality:.2f}",
        ]
        facts = [
            ("same text", self.exact),
            ("same syntax tree", self.same_ast and not self.exact),
            ("same function fingerprint", self.function_same),
            ("same statement kind", self.same_shape),
            ("already in the reviewed body", self.in_old_body),
            ("reached from the target", self.reach),
            ("only assignment of the name", self.sole_assignment),
            ("the target's only return, then and now", self.sole_return),
            ("only reader of a value only the step read", self.sole_reader),
            ("only header keeping the step's tests, or kept by them", self.kept_condition),
            ("calls a helper holding the step's edit", self.extracted),
            ("paired in order with what the target lost", self.aligned),
            ("only statement of its role", self.same_role),
            ("only statement making its call", self.same_call),
            ("renamed throughout the target", self.renamed_throughout),
            ("the target's own header", self.header),
            ("the decorator in its place", self.decorator),
            ("the helper it was lifted into", self.lifted),
        ]
        parts.extend(name for name, on in facts if on)
        if self.position is not Position.UNKNOWN:
            parts.append(f"position {self.position.value}")
        if self.replacement is not None:
            parts.append(self.replacement.describe())
        if self.provenance.describe():
            parts.append(self.provenance.describe())
        return ", ".join(parts)


# -- neighbours ------------------------------------------------------------------------------------


def context_agreement(entry: StepLock, before: tuple[str, ...], after: tuple[str, ...], t: Thresholds, *, tolerant: bool = False) -> float:
    """Share of the recorded neighbours found at the same distance (1.0 when both sides record none).

    ``tolerant`` (for a statement that may itself have been edited): a neighbour that was edited too
    or sits one statement nearer or farther counts :attr:`~.Thresholds.edited_neighbour` instead of nothing.
    """
    recorded = len(entry.before) + len(entry.after)
    if recorded == 0:
        return 1.0 if not before and not after else t.no_neighbours_context
    nearest_first = (tuple(reversed(entry.before)), tuple(reversed(before))), (entry.after, after)
    hits = 0.0
    for wanted, found in nearest_first:
        for distance, text in enumerate(wanted):
            hits += _neighbour(text, found, distance, tolerant, t)
    return hits / recorded


def _neighbour(text: str, found: tuple[str, ...], distance: int, tolerant: bool, t: Thresholds) -> float:
    if distance < len(found) and found[distance] == text:
        return 1.0
    if not tolerant:
        return 0.0
    if any(0 <= d < len(found) and found[d] == text for d in (distance - 1, distance + 1)):
        return t.edited_neighbour
    if distance < len(found) and ratio_at_least(text, found[distance], t.edit_similarity, t.quick_reject_similarity) is not None:
        return t.edited_neighbour
    return 0.0


def measure(
    proposal: Proposal,
    entry: StepLock,
    old_body: frozenset[str],
    t: Thresholds,
    *,
    admit: Callable[[Evidence], bool] | None = None,
    sole_assignment: bool = False,
    sole_return: bool = False,
    sole_reader: bool = False,
    kept_condition: bool = False,
    extracted: bool = False,
    aligned: bool = False,
    same_role: bool = False,
    same_call: bool = False,
    names: tuple[Mapping[str, int], frozenset[str]] | None = None,
    reach: bool = False,
    position: Position = Position.UNKNOWN,
    provenance: Provenance = UNKNOWN,
    line: str = "",
) -> Evidence:
    """The evidence for ``proposal`` as where ``entry`` is now (``old_body``: short hashes the reviewed body held;
    ``position``: where the body diff puts the proposal relative to the step; ``names``: every name the target spelled
    at the review and spells now, when a rename may be checked against them; ``line``: the target's own line the
    proposal is, when it is one: ``header``, ``decorator`` or ``lifted``, see :attr:`Evidence.header` and after).

    Neighbours are only looked up when they could matter: a candidate inside the target that ``admit`` (the decision's
    admission) refuses even with every neighbour in place is returned with its best-case context (the caller drops it).
    """
    texts = proposal.texts
    exact = texts == entry.texts
    wanted, found = "\n".join(entry.texts), "\n".join(texts)
    single = len(texts) == 1 and len(entry.texts) == 1
    tree_same = exact or (single and same_ast(entry.texts[0], texts[0]))
    similarity = 1.0 if exact else ratio(wanted, found, t.quick_reject_similarity)
    if single and not exact and similarity < t.confident_similarity:
        similarity = max(similarity, ratio_without_lone_keywords(entry.texts[0], texts[0], t.quick_reject_similarity))
    swapped = None
    if single and not tree_same and similarity >= t.sole_assignment_similarity:
        swapped = replacement(entry.texts[0], texts[0], t.max_renames, t.kept_message_length)
    evidence = Evidence(
        origin=proposal.origin,
        exact=exact,
        same_ast=tree_same,
        similarity=similarity,
        context=1.0,
        locality=proposal.locality,
        function_same=False,
        same_shape=statement_shape(texts[0]) == statement_shape(entry.texts[0]),
        in_old_body=not exact and short_hash(texts[0]) in old_body and texts[0] not in entry.texts,
        reach=reach,
        replacement=swapped,
        sole_assignment=sole_assignment,
        sole_return=sole_return,
        sole_reader=sole_reader,
        kept_condition=kept_condition,
        extracted=extracted,
        another_field=single and not exact and another_field(entry.texts[0], texts[0]),
        aligned=aligned,
        same_role=same_role,
        same_call=same_call,
        renamed_throughout=names is not None and renamed_away(swapped, names),
        position=position,
        provenance=provenance,
        header=line == "header",
        decorator=line == "decorator",
        lifted=line == "lifted",
        contentless=len(entry.texts) == 1 and entry.texts[0] in CONTENTLESS,
        bare_return=len(entry.texts) == 1 and bare_return(entry.texts[0]),
    )
    if proposal.origin is Origin.TARGET and admit is not None and not admit(evidence):
        return evidence
    around = surroundings(proposal.index, proposal.window[0], proposal.window[-1])
    function_same = around.function_sha256 == entry.function_sha256
    locality = 1.0 if function_same and proposal.origin is not Origin.TARGET else proposal.locality
    context = context_agreement(entry, around.before, around.after, t, tolerant=not exact)
    return replace(evidence, context=context, locality=locality, function_same=function_same)
