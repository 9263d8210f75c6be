"""Where a gone target went, found among the definitions new since the review: a function grown around its body in its
own file (rule ``renamed-holding-body``), a method renamed in its class and its base at once (rule
``renamed-with-base``), and the one namesake left anywhere (rule ``moved-sole-namesake``).

``renamed-body-overlap`` weighs a renamed function by the Jaccard overlap of the two bodies, so a rename that also
gained many statements falls short: diffusers 0.32 replaced ``create_scheduler_from_ldm`` with
``_legacy_load_scheduler``, which keeps two thirds of the old statements word for word among twenty new ones. Here
the measure is one-way: the share of the reviewed body the new function holds. Only the target's own file is
searched, in the target's own scope (module level, or its class), and only functions its release did not define at the
review, so a new model file's copy of a shared helper, or a new class's clone of a method, is never taken; a second
function holding about as much leaves the target deleted (a body copied into two).

A method renamed across a class hierarchy (transformers 5 renamed ``HfQuantizer.check_quantized_param`` to
``param_needs_quantization`` in the base and in every quantizer) keeps too little text for either, its body rewritten
for the new signature. What tells is the hierarchy: the base the reviewed class named lost the same name and gained
the same new one, so the override moved with it; the body must still resemble the reviewed one.

A function that left its module keeping its name but not its body (transformers 4.54 moved ``_unflatten_dynamic_cache``
from ``cache_utils`` to ``integrations.executorch`` and rewrote it for per-layer caches) falls short of
``moved-module``'s overlap. When a module function's name is defined exactly once in the whole new release, in a
file that did not define it at the review, and that definition is not a copy made there, the name alone says where it
went; the body must still resemble the reviewed one. A method that left its class for another class keeping its name
(diffusers 0.34 moved ``_unfuse_lora_apply`` from the UNet loader mixin to the PEFT mixin) is found the same way, when
its own class is still there and the new one is not a same-named copy of it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from infralens.drift.lock.entries import AnnotationLock, short_hash
from infralens.drift.lock.facts import body_hashes, body_of, header_of
from infralens.drift.match.callers import callers_at_review, copied_not_moved
from infralens.drift.match.forwarding import base_names, class_named
from infralens.drift.match.imported import Relocated
from infralens.drift.match.names import defining
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.receiver import parameter_names
from infralens.drift.match.renamed_words import clearly_ahead, close_share
from infralens.drift.match.reviewed import defined_in, reviewed_texts
from infralens.drift.match.rules import CONTENTLESS, Thresholds
from infralens.drift.match.texts import ratio_at_least, searched_texts
from infralens.source import Definition, DefinitionKind, ModuleIndex


def renamed_holding_body(
    reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds, reviewed_file: str | None = None
) -> Relocated | None:
    """The one definition of the target's kind and scope (module level, or its class), new since the review in the
    target's file, that holds at least :attr:`~.rules.Thresholds.held_body_share` of the reviewed body's statements
    with content, clearly more than any other (by :attr:`~.rules.Thresholds.target_renamed_margin`). Only the
    statements the target alone held at the review count: one its sibling definitions in ``reviewed_file`` (the
    target's file unless told) held too is boilerplate any of them may carry on (transformers' hub functions each
    repeat the same ``use_auth_token`` block)."""
    indexed = reader.indexed(entry.relpath)
    if reviewed is None or indexed is None:
        return None
    contentless = {short_hash(text) for text in CONTENTLESS} | _held_by_siblings(reviewed, reviewed_file or entry.relpath, entry.target)
    wanted = Counter(h for h in entry.body if h not in contentless)
    total = sum(wanted.values())
    if not total:
        return None
    source, index = indexed
    owner = entry.target.rpartition(".")[0]
    shares = ((sum((wanted & Counter(body_hashes(index, d))).values()) / total, d) for d in _new_in_scope(index, reviewed, entry, owner))
    best = clearly_ahead([(share, d) for share, d in shares if share >= t.held_body_share], t)
    if best is None:
        return None
    share, definition = best
    return Relocated(source, index, definition, f"new in its file since the review, it holds {share:.0%} of the reviewed statements")


def _siblings(index: ModuleIndex, target: str) -> list[Definition]:
    """The definitions of ``target``'s scope (module level, or its class) in ``index`` other than classes, ``target``
    among them."""
    owner = target.rpartition(".")[0]
    return [d for d in index.definitions if d.kind is not DefinitionKind.CLASS and d.qualname.rpartition(".")[0] == owner]


def _held_by_siblings(reviewed: TreeReader, relpath: str, target: str) -> set[str]:
    """The short hashes of the body statements of the definitions of ``target``'s scope (module level, or its class) in
    the reviewed file ``relpath`` other than ``target``."""
    indexed = reviewed.indexed(relpath)
    if indexed is None:
        return set()
    return {h for d in _siblings(indexed[1], target) if d.qualname != target for h in body_hashes(indexed[1], d)}


def _own_texts(reviewed: TreeReader | None, entry: AnnotationLock) -> list[str] | None:
    """The reviewed target's statements with content that no sibling of it held too (None without its reviewed body)."""
    texts = reviewed_texts(reviewed, entry)
    if texts is None or reviewed is None:
        return None
    shared = _held_by_siblings(reviewed, entry.relpath, entry.target)
    return [text for text in texts if text not in CONTENTLESS and short_hash(text) not in shared]


def _closeness(wanted: list[str], body: list[str], t: Thresholds) -> float:
    """How closely ``body`` holds ``wanted``, graded: the mean over ``wanted`` of its closest statement's similarity in
    ``body`` (0 where none is close): :func:`~.renamed_words.close_share` with each close statement weighed by how close."""
    best = (max((r for b in body if (r := ratio_at_least(text, b, t.edit_similarity, t.quick_reject_similarity)) is not None), default=0.0) for text in wanted)
    return sum(best) / len(wanted) if wanted else 0.0


def _gone_siblings(reviewed: TreeReader, index: ModuleIndex | None, entry: AnnotationLock) -> list[list[str]]:
    """The statements with content that each sibling of the target at the review (a definition of its scope, not a class)
    held alone there, for the siblings gone from ``index`` (the target's file now, None when it is gone) too."""
    indexed = reviewed.indexed(entry.relpath)
    if indexed is None:
        return []
    defined = {d.qualname for d in index.definitions} if index is not None else set()
    scope = _siblings(indexed[1], entry.target)
    texts = {d.qualname: [s.text for s in body_of(indexed[1], d) if s.text not in CONTENTLESS] for d in scope}
    holders = Counter(text for held in texts.values() for text in set(held))
    gone = [d.qualname for d in scope if d.qualname != entry.target and d.qualname not in defined]
    return [alone for qualname in gone if (alone := [text for text in texts[qualname] if holders[text] == 1])]


def _index_of(reader: TreeReader, relpath: str) -> ModuleIndex | None:
    indexed = reader.indexed(relpath)
    return indexed[1] if indexed is not None else None


def _a_siblings(rivals: list[list[str]], wanted: list[str], body: list[str], t: Thresholds) -> bool:
    """Whether a gone sibling (``rivals``: each one's own statements) resembles ``body`` more than ``wanted`` does: the
    definition is that sibling's rename (a rename is one to one)."""
    if not rivals:
        return False
    own = _closeness(wanted, body, t)
    return any(_closeness(rival, body, t) > own for rival in rivals)


def _new_in_scope(index: ModuleIndex, reviewed: TreeReader, entry: AnnotationLock, owner: str) -> list[Definition]:
    """The definitions of ``index`` (the target's file) of the target's kind in its scope ``owner`` (module level, or its
    class) that the reviewed release did not define there: a function of another scope (a new class's method) is as
    often a copy of the target as the target renamed."""
    return [
        d
        for d in index.definitions
        if d.kind is entry.kind and d.accessor is None and d.qualname.rpartition(".")[0] == owner and not defined_in(reviewed, entry.relpath, d.qualname)
    ]


def renamed_close_body(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The one definition of the target's kind and scope, new since the review in the target's file, for whose body at
    least :attr:`~.rules.Thresholds.replaced_share` of the reviewed statements with content have a close statement,
    clearly more than any other (rule ``renamed-close-body``): a small function rewritten under a new name, whose
    statements were edited too much for the word-for-word share of :func:`renamed_holding_body` (transformers 5
    replaced ``masking_utils._vmap_for_bhqkv`` with ``_vmap_expansion_sdpa``, the option and its branch gone, the
    dimension list folded into one literal). Its name may share nothing with the target's, so the body must say as
    much as for ``replaced-at-callers``; a second function about as close leaves the target deleted. As for
    :func:`renamed_holding_body`, only statements no sibling of the target held at the review count; and a rename is one
    to one: a definition that a sibling gone too resembles more (:func:`_a_siblings`) is that sibling's rename
    (transformers 5 replaced ``_check_and_enable_sdpa`` and ``_check_and_enable_flex_attn`` with ``_sdpa_can_dispatch``
    and ``_flex_attn_can_dispatch``, alike but for the backend's name)."""
    wanted = _own_texts(reviewed, entry)
    indexed = reader.indexed(entry.relpath)
    if not wanted or reviewed is None or indexed is None:
        return None
    source, index = indexed
    rivals = _gone_siblings(reviewed, index, entry)
    kept = []
    for d in _new_in_scope(index, reviewed, entry, entry.target.rpartition(".")[0]):
        body = [s.text for s in body_of(index, d)]
        share = close_share(wanted, body, t)
        if share >= t.replaced_share and not _a_siblings(rivals, wanted, body, t):
            kept.append((share, d))
    best = clearly_ahead(kept, t)
    if best is None:
        return None
    share, definition = best
    return Relocated(source, index, definition, f"new in its file since the review, it holds a close statement for {share:.0%} of the reviewed ones")


def renamed_elsewhere(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The one definition of the target's kind and depth, new since the review in another file or another class of its
    own file (one new there only when its body is mostly the target's), that holds at least
    :attr:`~.rules.Thresholds.carried_share` (and :attr:`~.rules.Thresholds.carried_statements`) of the target's own
    statements (those no sibling held too) word for word and a close statement for
    :attr:`~.rules.Thresholds.replaced_share`, clearly more than any other and more than a gone sibling does (rule
    ``renamed-elsewhere``): a function moved to another module and renamed on the way
    (diffusers 0.42 moved ``tensor_parallel_neuron._neuron_styles`` into ``tensor_parallel`` as ``_hooks_only_styles``;
    transformers 5 turned ``FbgemmFp8HfQuantizer.create_quantized_param`` into ``FbgemmFp8Quantize.convert`` in
    ``integrations.fbgemm_fp8``). Of definitions about as close, the only one in the target's file is taken (a
    ``modular_*`` source repeating the model file's method is not the move). The word-for-word share keeps out code that
    only looks alike; a definition of the target's own name, and a module function copied where none of the target's
    callers went (``copied-not-moved``), are not taken (a model file copies whole classes and helpers of another, which
    lives on)."""
    wanted = _own_texts(reviewed, entry)
    if wanted is None or reviewed is None or len(wanted) < t.carried_statements:
        return None
    owner = entry.target.rpartition(".")[0]
    files = list(dict.fromkeys([entry.relpath, *reader.files_holding(searched_texts(wanted), near=entry.relpath, hints=entry.target.split("."))]))
    depth, name, rivals, held = entry.target.count("."), entry.target.rpartition(".")[2], None, Counter(short_hash(text) for text in wanted)
    scored: list[tuple[float, Relocated]] = []
    for relpath, source, index in reader.indexed_files(files):
        for d in index.definitions:
            if d.kind is not entry.kind or d.accessor is not None or d.qualname.count(".") != depth or d.qualname.rpartition(".")[2] == name:
                continue  # a namesake elsewhere is a move or a copy, which the rules before this one tell apart
            home, hashes = d.qualname.rpartition(".")[0], reader.body_hashes(index, d)
            if relpath == entry.relpath and home == owner:
                continue  # its own scope is renamed-close-body's
            kept = sum((held & Counter(hashes)).values())
            if kept < max(t.carried_statements, t.carried_share * len(wanted)):
                continue
            if relpath == entry.relpath and not defined_in(reviewed, relpath, home) and kept < t.carried_share * len(hashes):
                continue  # a class new in its file, whose method is mostly other work: as often a copy of part of it
            if defined_in(reviewed, relpath, d.qualname) or copied_not_moved(reader, entry, source, index, lambda: callers_at_review(reviewed, entry)):
                continue
            body = [s.text for s in body_of(index, d)]
            share = close_share(wanted, body, t)
            rivals = rivals if rivals is not None else _gone_siblings(reviewed, _index_of(reader, entry.relpath), entry)
            if share >= t.replaced_share and not _a_siblings(rivals, wanted, body, t):
                why = f"new in {source.module} since the review, it holds a close statement for {share:.0%} of the reviewed ones"
                scored.append((share, Relocated(source, index, d, why)))
    scored.sort(key=lambda item: item[0], reverse=True)
    tied = [found for share, found in scored if share >= scored[0][0] - t.target_renamed_margin]
    beside = [found for found in tied if found.source.relpath == entry.relpath]
    return tied[0] if len(tied) == 1 else (beside[0] if len(beside) == 1 else None)


def renamed_with_base(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The method of the target's class, new since the review, that a base the reviewed class named also gained while
    losing the target's name, and whose body holds a close statement for at least
    :attr:`~.rules.Thresholds.renamed_words_share` of the reviewed body's; the one resembling most, then keeping most of
    its parameters, and clearly so."""
    owner, _, name = entry.target.rpartition(".")
    texts = reviewed_texts(reviewed, entry)
    before, now = (reviewed.indexed(entry.relpath) if reviewed is not None else None), reader.indexed(entry.relpath)
    if not owner or "." in owner or texts is None or reviewed is None or before is None or now is None:
        return None
    klass = class_named(before[1], owner)
    if klass is None or class_named(now[1], owner) is None:
        return None  # a method of a top-level class that is still there
    source, index = now
    new_here = {
        d.qualname.rpartition(".")[2]: d
        for d in index.definitions
        if d.qualname.rpartition(".")[0] == owner and d.kind is entry.kind and d.accessor is None and not defined_in(reviewed, entry.relpath, d.qualname)
    }
    renamed_in_bases = set().union(*(_renamed_in_base(reader, reviewed, entry.relpath, base, name) for base in base_names(before[1], klass)))
    wanted = [text for text in texts if text not in CONTENTLESS]
    kept = set(_parameters(before[1], next(d for d in before[1].definitions if d.qualname == entry.target and d.accessor is None)))
    scored = []
    for new_name in sorted(renamed_in_bases & new_here.keys()):
        share = close_share(wanted, [s.text for s in body_of(index, new_here[new_name])], t) if wanted else 0.0
        if share >= t.renamed_words_share:
            scored.append(((share, len(kept & set(_parameters(index, new_here[new_name])))), new_here[new_name]))
    scored.sort(key=lambda item: item[0], reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None  # a tie on resemblance and on the parameters kept tells nothing
    (share, _), definition = scored[0]
    why = f"its base lost {name} and gained {definition.qualname.rpartition('.')[2]} too; {share:.0%} of the reviewed statements have a close one there"
    return Relocated(source, index, definition, why)


def _renamed_in_base(reader: TreeReader, reviewed: TreeReader, relpath: str, base: str, name: str) -> set[str]:
    """The method names the class ``base`` (as the target's file sees it at the review) defines now and did not then,
    when it defined ``name`` then and does not now; empty otherwise."""
    found = defining(reviewed, relpath, base)
    home, there = found if found is not None else (relpath, base)
    then, now = reviewed.indexed(home), reader.indexed(home)
    if then is None or now is None or class_named(then[1], there) is None or class_named(now[1], there) is None:
        return set()
    methods_then = {d.qualname.rpartition(".")[2] for d in then[1].definitions if d.qualname.rpartition(".")[0] == there}
    methods_now = {d.qualname.rpartition(".")[2] for d in now[1].definitions if d.qualname.rpartition(".")[0] == there}
    return methods_now - methods_then if name in methods_then and name not in methods_now else set()


def _parameters(index: ModuleIndex, definition: Definition) -> list[str]:
    """The parameter names of a function's ``def`` line (none when it cannot be read)."""
    header = header_of(index, definition)
    return (parameter_names(header.text) or []) if header is not None else []


def moved_sole_namesake(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The one definition of the target's name in the new release, in a scope that did not define it at the review,
    whose body holds a close statement for at least :attr:`~.rules.Thresholds.renamed_words_share` of the reviewed
    body's: for a module function, in another file, not a copy made there (:func:`.callers.copied_not_moved`); for a
    method, on another class than its own, which is still there (a class copied into a new file keeps its methods'
    names without any move: ``_unfuse_lora_apply`` left the UNet loader mixin, still there, for the PEFT mixin)."""
    texts = reviewed_texts(reviewed, entry)
    if texts is None or reviewed is None:
        return None
    owner, _, name = entry.target.rpartition(".")
    if owner and "." in owner:
        return None  # a nested function: its name tells nothing outside its function
    found = [
        (relpath, source, index, d)
        for relpath, source, index in reader.indexed_files(list(reader.files_defining([name], skip="" if owner else entry.relpath, top_level=not owner)))
        for d in index.definitions
        if d.qualname.rpartition(".")[2] == name and d.accessor is None and ("." in d.qualname) == bool(owner)
    ]
    if len(found) != 1:
        return None  # none, or several namesakes: the name alone does not tell
    relpath, source, index, definition = found[0]
    if definition.kind is not entry.kind or defined_in(reviewed, relpath, definition.qualname):
        return None
    scope = definition.qualname.rpartition(".")[0]
    if owner and (scope == owner or "." in scope or class_named(index, scope) is None or not _class_still_here(reader, entry.relpath, owner)):
        return None  # a same-named class elsewhere is a copy of the class (a nested function no method); a class gone too moved
    if not owner and copied_not_moved(reader, entry, source, index, lambda: callers_at_review(reviewed, entry)):
        return None
    wanted = [text for text in texts if text not in CONTENTLESS]
    share = close_share(wanted, [s.text for s in body_of(index, definition)], t) if wanted else 0.0
    if share < t.renamed_words_share:
        return None
    return Relocated(source, index, definition, f"the release's only {name}, new there; {share:.0%} of the reviewed statements have a close one")


def _class_still_here(reader: TreeReader, relpath: str, name: str) -> bool:
    """Whether the file at ``relpath`` still defines the top-level class ``name``."""
    indexed = reader.indexed(relpath)
    return indexed is not None and class_named(indexed[1], name) is not None


def renamed_in_moved_class(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """A method renamed while its class moved: the class gone from the target's file and defined, new since the review,
    in exactly one other file, where :func:`renamed_holding_body` finds the method as if the target's file were that
    one (transformers 5 turned ``generation.continuous_batching`` into a package, ``RequestState`` moved into its
    ``requests`` module, and ``update_with_token`` became ``update_and_check_completion`` there); a method the class
    had at the review is not taken."""
    owner = entry.target.rpartition(".")[0]
    if reviewed is None or not owner or "." in owner or _class_still_here(reader, entry.relpath, owner):
        return None
    homes = [
        relpath
        for relpath in reader.files_defining([owner], skip=entry.relpath, top_level=True)
        if _class_still_here(reader, relpath, owner) and not defined_in(reviewed, relpath, owner)
    ]
    if len(homes) != 1:
        return None  # no new home, or the class copied into several files
    source = reader.source(homes[0])
    if source is None:
        return None
    found = renamed_holding_body(reader, reviewed, replace(entry, relpath=homes[0], module=source.module), t, entry.relpath)
    if found is None or defined_in(reviewed, entry.relpath, found.definition.qualname):
        return None
    return Relocated(found.source, found.index, found.definition, f"its class moved to {source.module}; {found.why}")


def init_as_post_init(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """A class's ``__init__`` gone while the class, still in its file, now defines a ``__post_init__`` it did not define at
    the review: the class became a dataclass, its fields declared on the class and what its ``__init__`` derived from
    them now done in ``__post_init__`` (transformers 5's configurations: ``LlamaConfig``'s key-value heads default)."""
    owner, _, name = entry.target.rpartition(".")
    if name != "__init__" or not owner or "." in owner or reviewed is None:
        return None
    indexed = reader.indexed(entry.relpath)
    if indexed is None or class_named(indexed[1], owner) is None:
        return None
    definition = next((d for d in indexed[1].definitions if d.qualname == f"{owner}.__post_init__"), None)
    if definition is None or defined_in(reviewed, entry.relpath, definition.qualname):
        return None
    return Relocated(indexed[0], indexed[1], definition, f"{owner} became a dataclass: __post_init__, new since the review, does what its __init__ did")
