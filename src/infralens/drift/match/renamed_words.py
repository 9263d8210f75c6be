"""A function renamed in its module while keeping its name's words, its body rewritten (rule ``renamed-keeping-words``).

A rename that also rewrites the body leaves too few identical statements for ``renamed-body-overlap``: the module-level
``_validate_yarn_parameters`` became the method ``_validate_yarn_rope_parameters`` of a config mixin, reading a dict
instead of the config, and ``_wrapped_flash_attn_3_original`` became ``_wrapped_flash_attn_3``. What still tells is the
name: the new one keeps every word of the old (or the old every word of the new), and the body still resembles the
reviewed one. As RefactoringMiner's *Rename Method* weighs names beside bodies, both must agree here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.lock.facts import body_of
from infralens.drift.match.callers import calls_before
from infralens.drift.match.imported import Relocated
from infralens.drift.match.names import modules_imported
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in, new_beside, reviewed_texts
from infralens.drift.match.rules import CONTENTLESS, Thresholds
from infralens.drift.match.texts import called_names, names_set, ratio_at_least, statement_shape
from infralens.source import Definition, DefinitionKind

_Held = TypeVar("_Held")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def name_parts(name: str) -> list[str]:
    """The words of an identifier in order, as written: its ``_``-separated and CamelCase parts, letters and digits
    apart (``stage2_denoise`` → stage, 2, denoise; ``OPTSdpaAttention`` → OPT, Sdpa, Attention)."""
    return _WORD.findall(name)


def name_words(name: str) -> frozenset[str]:
    """The words of an identifier (:func:`name_parts`), lower-cased."""
    return frozenset(word.lower() for word in name_parts(name))


def words_kept(old: str, new: str, *, swapped_at_least: int | None = None) -> int:
    """How many words two names share when one name's words all appear in the other, or, with *swapped_at_least*, when
    each has exactly one word the other lacks and they share at least that many (0 otherwise, or for the same name)."""
    before, after = name_words(old), name_words(new)
    if old == new or not before or not after:
        return 0
    shared = len(before & after)
    if before <= after or after <= before:
        return shared
    swapped = len(before) - shared == len(after) - shared == 1
    return shared if swapped and swapped_at_least is not None and shared >= swapped_at_least else 0


def close_share(wanted: list[str], body: list[str], t: Thresholds) -> float:
    """The share of ``wanted`` (reviewed statements) that have a close statement (edit similarity) in ``body``."""
    close = sum(1 for text in wanted if any(ratio_at_least(text, b, t.edit_similarity, t.quick_reject_similarity) is not None for b in body))
    return close / len(wanted)


def replaced_at_callers(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The function new since the review that the reviewed target's callers, no longer calling it, now call and did not
    call before, whose body holds a close statement for at least :attr:`~.rules.Thresholds.replaced_share` of the
    reviewed body's (rule ``replaced-at-callers``): a function renamed with its call's arguments rewritten
    (``_validate_assistant`` folded into ``_validate_generation_mode``); the one most callers call, then resembling
    most, and clearly so. When none resembles that much, a callee whose name keeps the target's words (one word
    swapped at most: ``prepare_image_latents`` → ``prepare_reference_latents``) needs only
    :attr:`~.rules.Thresholds.renamed_words_share`: its callers and its name both say what the body says too little."""
    name = entry.target.rpartition(".")[2]
    if reviewed is None or name.startswith("__") or reader.indexed(entry.relpath) is None:
        return None
    votes, near = _called_instead(reader, reviewed, name, entry.relpath)
    found = _new_callee(reader, reviewed, entry, (votes, near), t.replaced_share, t, "now call it instead")
    if found is not None:
        return found
    named = Counter({new: n for new, n in votes.items() if words_kept(name, new, swapped_at_least=t.renamed_words_kept) >= t.renamed_words_kept})
    return _new_callee(reader, reviewed, entry, (named, near), t.renamed_words_share, t, "now call it instead, by a name keeping its words") if named else None


def called_with_same_arguments(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The function new since the review that the reviewed target's callers, no longer calling it, now call with the very
    arguments they passed it, the statement around the call rewritten or not, whose body holds a close statement for at
    least :attr:`~.rules.Thresholds.renamed_words_share` of the reviewed body's (rule ``called-with-same-arguments``):
    ``_prepare_flash_attention_from_position_ids ( query_states , key_states , value_states , position_ids )`` became
    ``_prepare_from_posids`` with the same four arguments, its result now unpacked differently. A call without
    arguments tells nothing."""
    name = entry.target.rpartition(".")[2]
    if reviewed is None or name.startswith("__") or reader.indexed(entry.relpath) is None:
        return None
    called = _votes(reader, reviewed, name, _arguments_by_caller(reviewed, name, entry.relpath), _called_with)
    return _new_callee(reader, reviewed, entry, called, t.renamed_words_share, t, "now call it with the same arguments")


def assigned_in_its_place(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The function new since the review that the reviewed target's callers, no longer calling it, now call in a
    statement assigning every name the statement around the call assigned, whose body holds a close statement for at
    least :attr:`~.rules.Thresholds.renamed_words_share` of the reviewed body's (rule ``assigned-in-its-place``):
    ``latents = self . _free_init_loop ( … )`` became ``latents , timesteps = self . _apply_free_init ( latents , … )``,
    a rewritten helper of a mixin taking other arguments. A call whose statement assigns nothing tells nothing."""
    name = entry.target.rpartition(".")[2]
    if reviewed is None or name.startswith("__") or reader.indexed(entry.relpath) is None:
        return None
    assigned: dict[tuple[str, str], set[frozenset[str]]] = {}
    for relpath, caller, statement in calls_before(reviewed, name, entry.relpath):
        if names := names_set(statement):
            assigned.setdefault((relpath, caller), set()).add(names)
    called = _votes(reader, reviewed, name, assigned, _called_assigning)
    return _new_callee(reader, reviewed, entry, called, t.renamed_words_share, t, "now assign its result's names from it")


def made_public_at_callers(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The function new since the review named as the target without its leading underscores, that the reviewed
    target's callers, no longer calling it, now call, whose body holds a close statement for at least
    :attr:`~.rules.Thresholds.renamed_words_share` of the reviewed body's (rule ``made-public-at-callers``): the method
    ``Trainer._rotate_checkpoints`` became the module function ``trainer_utils.rotate_checkpoints``, taking as
    arguments the settings it read from ``self``."""
    name = entry.target.rpartition(".")[2]
    public = name.lstrip("_")
    if reviewed is None or public in ("", name) or name.startswith("__") or reader.indexed(entry.relpath) is None:
        return None
    callers = {(relpath, caller): public for relpath, caller, _ in calls_before(reviewed, name, entry.relpath)}
    called = _votes(reader, reviewed, name, callers, lambda now, wanted: {n for text in now for n in called_names(text) if n == wanted})
    return _new_callee(reader, reviewed, entry, called, t.renamed_words_share, t, "now call it by its public name")


def _called_assigning(now: list[str], assigned: set[frozenset[str]]) -> set[str]:
    """The names ``now`` (a caller's statements) calls in a statement assigning every name of one of ``assigned``."""
    return {n for text in now if any(names <= names_set(text) for names in assigned) for n in called_names(text)}


def _called_with(now: list[str], arguments: set[tuple[str, ...]]) -> set[str]:
    """The names ``now`` (a caller's statements) calls with one of the argument lists (tokens) given."""
    passed = [" ".join(("(", *tokens, ")")) for tokens in arguments]
    return {n for text in now for n in called_names(text) if any(f" {n} {call}" in f" {text}" for call in passed)}


def _arguments_by_caller(reviewed: TreeReader, name: str, home: str) -> dict[tuple[str, str], set[tuple[str, ...]]]:
    """The argument lists (the tokens between the brackets, not none) the reviewed callers passed to ``name``."""
    found: dict[tuple[str, str], set[tuple[str, ...]]] = {}
    for relpath, caller, statement in calls_before(reviewed, name, home):
        tokens = statement.split(" ")
        for start in (i for i in range(len(tokens) - 1) if tokens[i] == name and tokens[i + 1] == "("):
            depth, end = 0, start + 1
            for end in range(start + 1, len(tokens)):
                depth += {"(": 1, ")": -1}.get(tokens[end], 0)
                if depth == 0:
                    break
            if depth == 0 and end > start + 2:
                found.setdefault((relpath, caller), set()).add(tuple(tokens[start + 2 : end]))
    return found


def _new_callee(
    reader: TreeReader, reviewed: TreeReader, entry: AnnotationLock, called: tuple[Counter[str], dict[str, str]], floor: float, t: Thresholds, how: str
) -> Relocated | None:
    """Of the names the callers now call (``called``: votes and a caller's file each), the one definition new since the
    review, not a class, whose body holds a close statement for at least ``floor`` of the reviewed body's; the one most
    callers call, then resembling most, and clearly so."""
    texts = reviewed_texts(reviewed, entry)
    if texts is None:
        return None
    wanted = [text for text in texts if text not in CONTENTLESS]
    votes, near = called
    scored = []
    for new_name, calls in votes.items():
        for relpath, source, index in reader.indexed_files(list(dict.fromkeys([entry.relpath, near[new_name], *reader.files_defining([new_name])]))):
            for definition in index.definitions:
                if definition.qualname.rpartition(".")[2] != new_name or definition.kind is DefinitionKind.CLASS or definition.accessor is not None:
                    continue
                share = close_share(wanted, [s.text for s in body_of(index, definition)], t) if wanted else 0.0
                # one there at the review is another function the callers now call (asked last: it parses a reviewed file)
                if share >= floor and not defined_in(reviewed, relpath, definition.qualname):
                    scored.append(((calls, share), source, index, definition))
    scored.sort(key=lambda item: item[0], reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    (calls, share), source, index, definition = scored[0]
    why = f"its {calls} reviewed caller(s) {how}; {share:.0%} of the reviewed statements have a close one there"
    return Relocated(source, index, definition, why)


def _called_instead(reader: TreeReader, reviewed: TreeReader, name: str, home: str) -> tuple[Counter[str], dict[str, str]]:
    """The names the reviewed callers of ``name`` that no longer call it now call and did not call before, in the
    kind of statement that called it (an assignment for an assignment, a bare call for a bare call), with how many
    callers do, and a file of one of them."""
    shapes: dict[tuple[str, str], set[str]] = {}
    for relpath, caller, statement in calls_before(reviewed, name, home):
        shapes.setdefault((relpath, caller), set()).add(statement_shape(statement))
    return _votes(reader, reviewed, name, shapes, lambda now, kinds: {n for text in now if statement_shape(text) in kinds for n in called_names(text)})


def _votes(
    reader: TreeReader, reviewed: TreeReader, name: str, by_caller: dict[tuple[str, str], _Held], picked: Callable[[list[str], _Held], set[str]]
) -> tuple[Counter[str], dict[str, str]]:
    """For each reviewed caller of ``name`` (``by_caller``: ``(relpath, qualname)`` → what it held at the review) that is
    still there and no longer calls it: the names ``picked`` finds in its statements now that it did not call at the
    review, counted once per caller, with a file of one caller of each."""
    votes: Counter[str] = Counter()
    near: dict[str, str] = {}
    for (relpath, caller), held in by_caller.items():
        now, before = body_texts(reader, relpath, caller), body_texts(reviewed, relpath, caller)
        now = _with_new_helpers(reader, reviewed, relpath, caller, now) if now else now
        if not now or before is None or any(name in called_names(text) for text in now):
            continue  # the caller is gone, or still calls the target
        called_before = {n for text in before for n in called_names(text)}
        for new_name in picked(now, held) - called_before:
            votes[new_name] += 1
            near.setdefault(new_name, relpath)
    return votes, near


def _with_new_helpers(reader: TreeReader, reviewed: TreeReader, relpath: str, caller: str, now: list[str]) -> list[str]:
    """``now`` (a method's statements) and those of each method of its class, new since the review, that it now calls on
    ``self``: a caller that handed part of its work to a new helper (``_inner_training_loop`` to ``_finalize_training``)
    still makes those calls, one call away."""
    owner = caller.rpartition(".")[0]
    texts = list(now)
    called = dict.fromkeys(t[i + 2] for t in (text.split(" ") for text in now) for i in range(len(t) - 3) if t[i : i + 2] == ["self", "."] and t[i + 3] == "(")
    for helper in (f"{owner}.{name}" for name in called) if owner else ():
        if helper != caller and not defined_in(reviewed, relpath, helper):
            texts.extend(body_texts(reader, relpath, helper) or ())
    return texts


def body_texts(reader: TreeReader, relpath: str, qualname: str) -> list[str] | None:
    """The statement texts of ``qualname`` in ``relpath`` (None when the file or the function is not there)."""
    indexed = reader.indexed(relpath)
    found = [d for d in indexed[1].definitions if d.qualname == qualname and d.accessor is None] if indexed is not None else []
    return [s.text for s in body_of(indexed[1], found[0])] if indexed is not None and found else None


def renamed_keeping_words(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The function of the target's file (or of a module its file newly imports from), new since the review, whose name
    keeps the target's name's words (at least :attr:`~.rules.Thresholds.renamed_words_kept`: a one-word name tells too
    little; or all but one, at least :attr:`~.rules.Thresholds.renamed_words_swapped`, one word replaced outside a family
    of such names) and whose body holds a close statement
    (:attr:`~.rules.Thresholds.edit_similarity`) for at least :attr:`~.rules.Thresholds.renamed_words_share` of the
    reviewed body's statements; the one sharing the most words, then resembling most, and clearly so (a tie on both
    decides nothing). When the target's file is gone, the files new beside it are read instead (a module renamed with
    its class: ``image_processing_utils_fast.BaseImageProcessorFast._process_image`` →
    ``image_processing_backends.TorchvisionBackend.process_image``)."""
    texts = reviewed_texts(reviewed, entry)
    indexed = reader.indexed(entry.relpath)
    beside = new_beside(reader, reviewed, entry.relpath) if indexed is None else []
    if texts is None or (indexed is None and not beside):
        return None
    wanted = [text for text in texts if text not in CONTENTLESS]
    if not wanted:
        return None
    old = entry.target.rpartition(".")[2]
    swaps = None if _in_a_family(reviewed, entry, old) else t.renamed_words_swapped
    looked = beside or [entry.relpath]
    scored = _scored(reader, reviewed, looked, (old, swaps), wanted, t)
    if not scored and not beside:  # nothing in its own file: the modules it newly imports from, unless its name is new elsewhere
        looked = _newly_imported(reader, reviewed, entry.relpath, old, t)
        scored = _scored(reader, reviewed, looked, (old, swaps), wanted, t)
    beyond = looked != [entry.relpath]  # files beside it, or modules it newly imports from
    if scored and beyond and any(_new_namesake(reader, reviewed, found, old) for found in reader.files_defining([old], skip=entry.relpath)):
        return None  # it kept its name in another file: a namesake rule's case, not a rename
    if scored and beyond and not beside and folded_into_method(reader, reviewed, entry, t) is not None:
        return None  # a method new in its own file holds most of it: rule folded-into-method's case, nearer than a module it imports
    scored.sort(key=lambda item: item[0], reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    (shared, share), found = scored[0]
    where = (
        ""
        if found.source.relpath == entry.relpath
        else f" in {found.source.module}, " + ("new beside its gone module" if beside else "which its module now imports from")
    )
    why = f"renamed keeping its name's words ({shared} shared){where}; {share:.0%} of the reviewed statements have a close one there"
    return Relocated(found.source, found.index, found.definition, why)


def _scored(
    reader: TreeReader, reviewed: TreeReader | None, relpaths: list[str], name: tuple[str, int | None], wanted: list[str], t: Thresholds
) -> list[tuple[tuple[int, float], Relocated]]:
    """The functions of ``relpaths``, new since the review, whose names keep the words of ``name`` (the target's, and
    the words it may share with one replaced) and whose bodies resemble ``wanted``, scored by (words, share)."""
    old, swaps = name
    scored = []
    for relpath, source, index in reader.indexed_files(relpaths):
        for definition in index.definitions:
            shared = words_kept(old, definition.qualname.rpartition(".")[2], swapped_at_least=swaps)
            if definition.kind is DefinitionKind.CLASS or definition.accessor is not None or shared < t.renamed_words_kept:
                continue
            if defined_in(reviewed, relpath, definition.qualname):
                continue  # there at the review: a sibling, not the target under a new name
            share = close_share(wanted, [s.text for s in body_of(index, definition)], t)
            if share >= t.renamed_words_share:
                scored.append(((shared, share), Relocated(source, index, definition, "")))
    return scored


def _newly_imported(reader: TreeReader, reviewed: TreeReader | None, relpath: str, old: str, t: Thresholds) -> list[str]:
    """The files of the modules ``relpath`` imports now and did not import at the review (a function renamed on its way
    into a new package its old module now imports from) whose text holds enough of the target name's words to define a
    function keeping them (so that only those are parsed)."""
    now, before = reader.indexed(relpath), reviewed.indexed(relpath) if reviewed is not None else None
    if now is None or before is None:
        return []
    words = [word.encode() for word in name_words(old)]
    found: list[str] = []
    for module in sorted(modules_imported(*now) - modules_imported(*before)):
        file = reader.tree.module_file(module)
        if file is None or file == relpath or file in found:
            continue
        data = reader.read_bytes(file)
        lowered = data.lower() if data is not None else b""
        if sum(word in lowered for word in words) >= t.renamed_words_kept:
            found.append(file)
    return found


def _in_a_family(reviewed: TreeReader | None, entry: AnnotationLock, old: str) -> bool:
    """Whether the reviewed file held another function whose name is the target's with one word replaced
    (``create_vae_model`` beside ``create_unet_model``): then a new name with one word replaced is a new member of
    that family as likely as the target renamed, and a replaced word keeps nothing."""
    indexed = reviewed.indexed(entry.relpath) if reviewed is not None else None
    names = {d.qualname.rpartition(".")[2] for d in indexed[1].definitions if d.qualname != entry.target} if indexed is not None else set()
    return any(words_kept(old, name, swapped_at_least=1) and not words_kept(old, name) for name in names)


def _new_namesake(reader: TreeReader, reviewed: TreeReader | None, relpath: str, name: str) -> bool:
    """Whether the file defines a function of ``name`` (at any level) that it did not define at the review."""
    indexed = reader.indexed(relpath)
    named = [d.qualname for d in indexed[1].definitions if d.qualname.rpartition(".")[2] == name] if indexed is not None else []
    return any(not defined_in(reviewed, relpath, qualname) for qualname in named)


def folded_into_method(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The one method new since the review in the file of a gone module-level function for whose body at least
    :attr:`~.rules.Thresholds.replaced_share` of the reviewed statements with content have a close statement, clearly
    more than any other definition new there at any level (rule ``folded-into-method``): a sampling callback folded
    into the video processor class new in its file (transformers 4.53: ``smolvlm_sample_indices_fn`` →
    ``SmolVLMVideoProcessor.sample_frames``). A new module-level function as close wins instead, and leaves the
    target to ``renamed-close-body``; asked after ``renamed-keeping-words``, which yields to it when its candidate lies
    beyond the target's file."""
    texts = reviewed_texts(reviewed, entry)
    indexed = reader.indexed(entry.relpath)
    if "." in entry.target or texts is None or reviewed is None or indexed is None:
        return None
    wanted = [text for text in texts if text not in CONTENTLESS]
    if not wanted:
        return None
    source, index = indexed
    classes = {d.qualname for d in index.definitions if d.kind is DefinitionKind.CLASS}
    scopes = {"", *classes}
    new = [d for d in index.definitions if d.kind is entry.kind and d.accessor is None and d.qualname.rpartition(".")[0] in scopes]
    new = [d for d in new if not defined_in(reviewed, entry.relpath, d.qualname)]
    best = clearly_ahead([(share, d) for d in new if (share := close_share(wanted, [s.text for s in body_of(index, d)], t)) >= t.replaced_share], t)
    if best is None or "." not in best[1].qualname:
        return None
    share, definition = best
    return Relocated(source, index, definition, f"a method new in its file since the review, it holds a close statement for {share:.0%} of the reviewed ones")


def clearly_ahead(scored: list[tuple[float, Definition]], t: Thresholds) -> tuple[float, Definition] | None:
    """The best scored definition, when the next is more than :attr:`~.rules.Thresholds.target_renamed_margin` behind."""
    scored = sorted(scored, key=lambda item: item[0], reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] >= scored[0][0] - t.target_renamed_margin):
        return None
    return scored[0]
