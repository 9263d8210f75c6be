"""A class renamed or moved: its methods follow it by name.

When upstream renames a class and moves it to another module (``JoyAIImageTextEncoder`` in its own module became
``QwenImage21TextEncoder`` elsewhere), no single method may keep enough of its body to be recognised alone, but
the class as a whole does: CodeTracker maps the container of a method first (*Rename Class*, *Move Class*), then
the method by its name inside it. This module reads the reviewed class from the reviewed release
(:mod:`.reviewed`), looks for a class new since the review whose statements overlap the reviewed class's the most
and that defines a method of the target's name, and returns that method.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from infralens.drift.lock.entries import AnnotationLock, Place, short_hash
from infralens.drift.lock.facts import jaccard
from infralens.drift.match.best import clearly_best
from infralens.drift.match.callers import class_renamed_at_users, class_renamed_with_users, names_module
from infralens.drift.match.calls import Reach
from infralens.drift.match.forwarding import class_named
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in
from infralens.drift.match.rules import Thresholds
from infralens.drift.match.texts import ratio_at_least
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile, Statement


def copied_class(reader: TreeReader, entry: AnnotationLock, source: SourceFile) -> bool:
    """Rule ``class-copied-not-renamed``: a class in ``source`` is a copy made there, not the reviewed class renamed, when
    the reviewed module is still there and does not name ``source``'s module as an import would (:func:`names_module`: a
    class renamed into another module leaves its old module importing it, or takes the module along)."""
    old = reader.source(entry.relpath)
    return source.relpath != entry.relpath and old is not None and not names_module(old.text, source.module)


def copied_method(reader: TreeReader, entry: AnnotationLock, source: SourceFile) -> bool:
    """:func:`copied_class` for a method whose class is gone from its module: a look-alike in ``source`` is a method of a
    copy of that class made there (a model's "Copied from" clone). A class still in its module says nothing: a method
    may leave it for a new mixin or base elsewhere."""
    owner = entry.target.rpartition(".")[0]
    here = reader.indexed(entry.relpath) if owner else None
    if not owner or (here is not None and any(d.qualname == owner for d in here[1].definitions)):
        return False
    return copied_class(reader, entry, source)


def in_same_named_copy(reader: TreeReader, entry: AnnotationLock, source: SourceFile, qualname: str) -> bool:
    """Whether ``qualname`` in ``source`` is a method of a class named like the target's, a copy made there
    (:func:`copied_method`): a statement found in it was copied with the class, not moved out of the target."""
    owner = entry.target.rpartition(".")[0]
    return bool(owner) and qualname.rpartition(".")[0] == owner and copied_method(reader, entry, source)


def clone_beside_a_rename(
    reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, source: SourceFile, t: Thresholds, keyed: bool = False
) -> bool:
    """Whether a same-named class in ``source`` is a clone made there, not the method's class moved: the class left a
    module that never names ``source``'s (:func:`copied_method`), and that module holds the class renamed
    (:func:`method_of_renamed_class` within it, or the class its users there now build instead: :mod:`.callers`), or
    the module used the class at the review and names it no more (:func:`dropped_by_its_module`). Without either, a class
    whose old module stays unrelated may well have moved."""
    if not copied_method(reader, entry, source):
        return False
    elsewhere = lambda other: other.relpath != entry.relpath  # noqa: E731 - only the target's own module may hold the rename
    if method_of_renamed_class(reader, reviewed, entry, t, copied=elsewhere) is not None:
        return True
    by_users = (class_renamed_at_users(reader, reviewed, entry), class_renamed_with_users(reader, reviewed, entry))
    here = any(renamed is not None and renamed.source.relpath == entry.relpath for renamed in by_users)
    return here or dropped_by_its_module(reader, reviewed, entry, source, t, keyed)


def dropped_by_its_module(
    reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, source: SourceFile, t: Thresholds, keyed: bool = False
) -> bool:
    """Whether the method's class was used in its own module at the review (named by a statement outside the class) and
    that module, still there, names it nowhere now: its users there were rewritten to do without it, so the class was
    replaced in place (DiffSynth's FLUX.2 VAE ``Attention``, whose mid block now builds ``Flux2VAEAttention``), not moved
    to another module, where its users would have to import it from. Unless a user went along (:func:`_users_went_along`)."""
    owner = entry.target.split(".")[0]
    before = reviewed.indexed(entry.relpath) if reviewed is not None and "." in entry.target else None
    now = reader.indexed(entry.relpath) if before is not None else None
    klass = class_named(before[1], owner) if before is not None else None
    if before is None or now is None or klass is None:
        return False
    users = [s for s in _outside(before[1], klass) if owner in s.text.split(" ")]
    if not users or any(owner in s.text.split(" ") for s in now[1].statements):
        return False
    return not _users_went_along(reader, users, now, owner, source, t, keyed)


def _users_went_along(
    reader: TreeReader, users: list[Statement], now: tuple[SourceFile, ModuleIndex], owner: str, source: SourceFile, t: Thresholds, keyed: bool
) -> bool:
    """Whether a statement that used the class in its old module (``users``, each in a function there) has a close one
    in ``source``, outside the same-named class there, in a function that the old user's function, as it is now, leads
    to (:class:`.calls.Reach`; ``keyed``: filter ``class-keyed-entry`` is on): ``RTDetrForObjectDetection.forward`` now
    hands its loss to the function of the loss package that builds ``RTDetrLoss`` as ``forward`` did, so the class moved
    there with the code that builds it. A clone built by its own module's code (a copied model) is not reached from the
    old module."""
    there = reader.indexed(source.relpath)
    home = class_named(there[1], owner) if there is not None else None
    if there is None or home is None:
        return False
    built = [s for s in _outside(there[1], home) if owner in s.text.split(" ") and s.scope]
    for user in users:
        function = next((d for d in now[1].definitions if d.qualname == user.scope), None) if user.scope else None
        close = [s for s in built if ratio_at_least(user.text, s.text, t.edit_similarity, t.quick_reject_similarity) is not None] if function else []
        if function is None or not close:
            continue
        reach = Reach(reader, now[0], now[1], function, keyed=keyed)
        if any(reach.leads_to(Place(source.relpath, source.module, s.scope, s.scope, (s.start_line, s.end_line), ())) for s in close):
            return True
    return False


def _outside(index: ModuleIndex, klass: Definition) -> list[Statement]:
    """The statements of ``index`` outside ``klass``'s lines."""
    return [s for s in index.statements if not klass.start_line <= s.start_line <= klass.end_line]


PROBES = 4
"""How many of the reviewed class's longest statements are searched for in the checked tree."""


@dataclass(frozen=True)
class RenamedClass:
    """The target method in the class it now belongs to."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    owner: str
    """Qualname of the class the method belongs to now."""
    overlap: float
    """Statement overlap (Jaccard) of the two classes."""


def method_of_renamed_class(
    reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds, *, copied: Callable[[SourceFile], bool] = lambda source: False
) -> RenamedClass | None:
    """The target method (``Class.method``) in the one class new since the review that clearly is its class renamed
    (``copied``: whether a file's classes are copies made there, never the class renamed)."""
    owner, _, method = entry.target.rpartition(".")
    if not owner or "." in owner or reviewed is None:
        return None  # a method of a top-level class only
    before = _class_statements(reviewed, entry.relpath, owner)
    here = reader.indexed(entry.relpath)
    if not before or (here is not None and class_named(here[1], owner) is not None):
        return None  # the class is still where it was: it lost the method, it was not renamed
    wanted = {short_hash(text) for text in before}
    probes = sorted(set(before), key=len, reverse=True)[:PROBES]
    scored: list[tuple[float, RenamedClass]] = []
    for relpath, source, index in reader.indexed_files(reader.files_holding(probes, near=entry.relpath, hints=[owner, method])):
        for klass in index.definitions:
            if klass.kind is not DefinitionKind.CLASS or "." in klass.qualname or klass.qualname == owner:
                continue
            if defined_in(reviewed, relpath, klass.qualname):
                continue  # the class was there at the review: a sibling, not the reviewed class renamed
            function = next((d for d in index.definitions if d.qualname == f"{klass.qualname}.{method}" and d.accessor is None), None)
            if function is None or copied(source):
                continue
            statements = {short_hash(s.text) for s in index.statements_within(klass.start_line, klass.end_line) if s.start_line > klass.def_line}
            overlap = jaccard(wanted, statements)
            scored.append((overlap, RenamedClass(source, index, function, klass.qualname, overlap)))
    return clearly_best(scored, t.target_moved_overlap, t.target_renamed_margin)


def _class_statements(reviewed: TreeReader, relpath: str, owner: str) -> list[str]:
    """The texts of the reviewed class's statements (its header excluded)."""
    indexed = reviewed.indexed(relpath)
    klass = class_named(indexed[1], owner) if indexed is not None else None
    if indexed is None or klass is None:
        return []
    return [s.text for s in indexed[1].statements_within(klass.start_line, klass.end_line) if s.start_line > klass.def_line]
