"""Container first: what became of an annotated function, decided once, with the rule and evidence that decided it.

The function is looked for, strictest first: the same file byte for byte (``file-unchanged``); the same
qualname in its file (``same-place``, ``body-changed``); the same qualname in another module
(``moved-module``); its name at the other level, new since the review (``moved-same-name``: a method turned
module function, or the reverse); a shim class that forwards the old name (``renamed-behind-shim``: a deprecated
subclass or a ``__new__`` returning the new class); a definition of another name whose body overlaps
(``renamed-body-overlap``), or that holds it with the helpers it calls (``renamed-and-split``); the new name its callers now call
(``renamed-at-callers``, see :mod:`.callers`); the method of its name in the class its class was renamed to
(``class-renamed``, see :mod:`.classes`); a method folded into the class of its first parameter, which is now ``self``
(``moved-to-receiver``, see :mod:`.receiver`); else ``deleted``. A module function's namesake or look-alike in another
file is not taken when it is a copy made there (``copied-not-moved``, see :func:`.callers.copied_not_moved`). Decorators are part of the target: one added, removed or
replaced makes the finding ``decorators-changed`` (low severity, like a body that changed around
unchanged steps), named in the message. A body that lost statements to helpers it now calls or to a
decorator it now carries is one more decision (``split-into-helpers``, ``wrapped-by-decorator``; see
:mod:`.split`), naming the helpers. Statements are then mapped inside the function found, then in those
helpers (and the other functions it leads to, see :mod:`infralens.drift.match.calls`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from infralens.drift.lock.entries import AnnotationLock, Place, StepLock
from infralens.drift.lock.facts import body_hashes, jaccard
from infralens.drift.match.callers import callers_at_review, copied_not_moved, renamed_at_callers
from infralens.drift.match.classes import method_of_renamed_class
from infralens.drift.match.decide import THRESHOLDS, best_scored, clearly_best
from infralens.drift.match.forwarding import forwarded_method
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.receiver import moved_to_receiver
from infralens.drift.match.results import TargetKind, TargetResult
from infralens.drift.match.reviewed import ReviewedSources, defined_in
from infralens.drift.match.split import Split, split_of
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile


@dataclass(frozen=True)
class Found:
    """A target definition bound to a file in the checked tree."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    locality: float
    """How sure it is the reviewed target: 1.0 in place, 0.9 same qualname elsewhere, 0.8 renamed."""
    in_place: bool
    split: Split | None = None
    """The helpers and decorators it leads to that now hold statements it lost (see :mod:`.split`)."""

    def overlap(self, entry: AnnotationLock) -> float:
        """Statement overlap of the definition's body with the reviewed one."""
        return jaccard(entry.body, body_hashes(self.index, self.definition))

    def place(self) -> Place:
        return definition_place(self.source, self.definition)


def definition_place(source: SourceFile, definition: Definition) -> Place:
    return Place(source.relpath, source.module, definition.qualname, definition.qualname, (definition.start_line, definition.end_line), ())


def definitions_named(index: ModuleIndex, qualname: str) -> list[Definition]:
    """Plain definitions (not property accessors) of ``qualname`` in a module."""
    return [d for d in index.definitions if d.qualname == qualname and d.accessor is None]


class ContainerMapper:
    """Maps each locked target to its definition in one checked tree."""

    def __init__(self, reader: TreeReader, reviewed: ReviewedSources) -> None:
        self.reader = reader
        self.reviewed = reviewed
        self._copies: dict[tuple[str, str], bool] = {}
        self._callers: dict[str, frozenset[str]] = {}

    def map(self, entry: AnnotationLock, steps: list[StepLock]) -> tuple[TargetResult, Found | None]:
        """The target's classification (with its rule) and where it was found."""
        result, found = self._map(entry, steps)
        if found is None or result.kind in (TargetKind.DELETED, TargetKind.UNREADABLE):
            return result, found
        if result.kind is not TargetKind.UNCHANGED:
            split = found.split or split_of(self.reader, found.source, found.index, found.definition, entry)
            if split is not None:
                found = replace(found, split=split)
                rule = split.rule if result.kind is TargetKind.BODY_CHANGED else result.rule
                result = replace(result, message=f"{result.message}; {split.describe()}", rule=rule)
        return _with_decorators(result, entry, found), found

    def _reviewed(self, entry: AnnotationLock) -> TreeReader | None:
        """The release ``entry`` was reviewed against, when the checked tree comes after it (see :mod:`.reviewed`)."""
        return self.reviewed.reader(entry.distribution, entry.version, checked=self.reader.tree.version)

    def in_place(self, entry: AnnotationLock) -> Found | None:
        """The target at its recorded place (its file is byte-identical to the lock's)."""
        indexed = self.reader.indexed(entry.relpath)
        if indexed is None:
            return None
        source, index = indexed
        best = min(definitions_named(index, entry.target), key=lambda d: abs(d.start_line - entry.span[0]), default=None)
        return Found(source, index, best, 1.0, True) if best else None

    def _map(self, entry: AnnotationLock, steps: list[StepLock]) -> tuple[TargetResult, Found | None]:
        source = self.reader.source(entry.relpath)
        if source is not None and source.sha256 == entry.source_sha256:
            place = Place(entry.relpath, entry.module, entry.target, entry.target, entry.span, ())
            return TargetResult(entry, TargetKind.UNCHANGED, place, 1.0, "source file unchanged", rule="file-unchanged"), None
        problem = self.reader.problem(entry.relpath)
        if problem is not None:
            return TargetResult(entry, TargetKind.UNREADABLE, None, 0.0, f"cannot tell: {problem}", 3, rule="unreadable"), None
        here = self._same_qualname_here(entry)
        if here is not None:
            overlap = here.overlap(entry)
            if body_hashes(here.index, here.definition) == entry.body:
                return TargetResult(entry, TargetKind.UNCHANGED, here.place(), overlap, "body unchanged", 1, rule="same-place"), here
            message = f"body changed around the steps (statement overlap {overlap:.2f})"
            return TargetResult(entry, TargetKind.BODY_CHANGED, here.place(), overlap, message, 1, rule="body-changed"), here
        moved = self._same_qualname_elsewhere(entry)
        if moved is not None:
            overlap = moved.overlap(entry)
            message = f"{entry.module}.{entry.target} now lives in {moved.source.module} (statement overlap {overlap:.2f})"
            return TargetResult(entry, TargetKind.MOVED, moved.place(), overlap, message, 3, rule="moved-module"), moved
        named = self._same_name_elsewhere(entry)
        if named is not None:
            overlap = named.overlap(entry)
            now = f"{named.source.module}.{named.definition.qualname}"
            message = f"{entry.module}.{entry.target} now lives in {now}, a definition of its name new since the review (statement overlap {overlap:.2f})"
            return TargetResult(entry, TargetKind.MOVED, named.place(), overlap, message, 3, rule="moved-same-name"), named
        forwarded = forwarded_method(self.reader, entry.relpath, entry.target)
        if forwarded is not None:
            found = Found(forwarded.source, forwarded.index, forwarded.definition, 0.9, False)
            overlap = found.overlap(entry)
            now = f"{forwarded.source.module}.{forwarded.definition.qualname}"
            message = f"{entry.target} now runs {now} (via {forwarded.via}; statement overlap {overlap:.2f})"
            return TargetResult(entry, TargetKind.RENAMED, found.place(), overlap, message, 3, rule="renamed-behind-shim"), found
        renamed = self._renamed(entry, steps)
        if renamed is not None:
            found, rule = renamed
            overlap = found.overlap(entry)
            message = f"{entry.target} looks renamed to {found.source.module}.{found.definition.qualname} (statement overlap {overlap:.2f})"
            return TargetResult(entry, TargetKind.RENAMED, found.place(), overlap, message, 3, rule=rule), found
        renamed_at = renamed_at_callers(self.reader, self._reviewed(entry), entry)
        if renamed_at is not None:
            found = Found(renamed_at.source, renamed_at.index, renamed_at.definition, 0.8, False)
            now = f"{renamed_at.source.module}.{renamed_at.definition.qualname}"
            message = (
                f"{entry.target} looks renamed to {now}: {renamed_at.calls} call(s) to it now call the new name (statement overlap {found.overlap(entry):.2f})"
            )
            return TargetResult(entry, TargetKind.RENAMED, found.place(), found.overlap(entry), message, 3, rule="renamed-at-callers"), found
        renamed_class = method_of_renamed_class(self.reader, self._reviewed(entry), entry)
        if renamed_class is not None:
            found = Found(renamed_class.source, renamed_class.index, renamed_class.definition, 0.8, False)
            now = f"{renamed_class.source.module}.{renamed_class.definition.qualname}"
            owner = entry.target.rpartition(".")[0]
            message = f"{entry.target} now lives in {now}: class {owner} looks renamed to {renamed_class.owner} (class overlap {renamed_class.overlap:.2f})"
            return TargetResult(entry, TargetKind.RENAMED, found.place(), found.overlap(entry), message, 3, rule="class-renamed"), found
        receiver = moved_to_receiver(self.reader, self._reviewed(entry), entry)
        if receiver is not None:
            found = Found(receiver.source, receiver.index, receiver.definition, 0.8, False)
            now = f"{receiver.source.module}.{receiver.definition.qualname}"
            message = f"{entry.target} moved into {now}, its parameter {receiver.parameter} now self (statement overlap {receiver.overlap:.2f})"
            return TargetResult(entry, TargetKind.MOVED, found.place(), receiver.overlap, message, 3, rule="moved-to-receiver"), found
        message = f"{entry.module}.{entry.target} is not defined anywhere in {self.reader.tree.describe()}"
        copies = [relpath for (annotation, relpath), copied in self._copies.items() if copied and annotation == entry.id]
        if copies:
            message += f"; the look-alike in {', '.join(copies)} is a copy made there (copied-not-moved: none of its callers went there)"
        return TargetResult(entry, TargetKind.DELETED, None, 0.0, message, 3, rule="deleted"), None

    def _same_qualname_here(self, entry: AnnotationLock) -> Found | None:
        """The definition of the target's qualname in its recorded file whose body is closest to the reviewed one."""
        indexed = self.reader.indexed(entry.relpath)
        if indexed is None:
            return None
        source, index = indexed
        same = definitions_named(index, entry.target)
        if not same:
            return None
        best = max(same, key=lambda d: jaccard(entry.body, body_hashes(index, d)))
        return Found(source, index, best, 1.0, True)

    def _same_qualname_elsewhere(self, entry: AnnotationLock) -> Found | None:
        """The best definition of the target's qualname in another file (its module moved); one that the reviewed release
        defined there already is a twin that was there, not the target moved."""
        names = entry.target.split(".")
        reviewed = self._reviewed(entry)
        best: tuple[float, Found] | None = None
        for relpath, source, index in self.reader.indexed_files(list(self.reader.files_defining(names, skip=entry.relpath))):
            if defined_in(reviewed, relpath, entry.target):
                continue
            for definition in definitions_named(index, entry.target):
                found = Found(source, index, definition, 0.9, False)
                score = found.overlap(entry)
                if best is None or score > best[0]:
                    best = (score, found)
        if best is None or best[0] < THRESHOLDS.target_moved_overlap or self.copied_away(entry, best[1].source, best[1].index):
            return None
        return best[1]

    def copied_away(self, entry: AnnotationLock, source: SourceFile, index: ModuleIndex) -> bool:
        """Whether a definition in ``source`` is a copy made there, not the target moved (:func:`.callers.copied_not_moved`)."""
        key = (entry.id, source.relpath)
        if key not in self._copies:
            self._copies[key] = copied_not_moved(self.reader, entry, source, index, lambda: self._callers_at_review(entry))
        return self._copies[key]

    def _callers_at_review(self, entry: AnnotationLock) -> frozenset[str]:
        """:func:`.callers.callers_at_review`, read once per target however many files hold a look-alike."""
        if entry.id not in self._callers:
            self._callers[entry.id] = callers_at_review(self._reviewed(entry), entry)
        return self._callers[entry.id]

    def _same_name_elsewhere(self, entry: AnnotationLock) -> Found | None:
        """A definition of the target's own name at the other level (a method turned module function, or the reverse), new
        since the review, whose body clearly overlaps the reviewed one most (needs the reviewed release). Methods moved
        between classes are not taken by name: a new class's ``__call__`` is as often a clone as the target moved."""
        reviewed = self._reviewed(entry)
        name = entry.target.rsplit(".", 1)[-1]
        if reviewed is None:
            return None
        relpaths = [entry.relpath, *self.reader.files_defining([name], skip=entry.relpath)]
        scored: list[tuple[float, Found]] = []
        for relpath, source, index in self.reader.indexed_files(relpaths):
            for definition in index.definitions:
                qualname = definition.qualname
                if qualname.rsplit(".", 1)[-1] != name or ("." in qualname) == ("." in entry.target) or definition.kind is DefinitionKind.CLASS:
                    continue  # only a method turned module function, or a module function turned method
                if defined_in(reviewed, relpath, qualname):
                    continue  # it was there when the lock was reviewed: a namesake, not the target moved
                found = Found(source, index, definition, 0.9, False)
                scored.append((found.overlap(entry), found))
        return clearly_best(scored, THRESHOLDS.target_moved_overlap)

    def _renamed(self, entry: AnnotationLock, steps: list[StepLock]) -> tuple[Found, str] | None:
        """A definition of the same kind and of a name new since the review, in the target's file or where its first steps'
        texts are, with a clearly closest body (``renamed-body-overlap``); else, when the reviewed release is at hand,
        one that holds the reviewed body together with the helpers it calls (``renamed-and-split``)."""
        near = self.reader.files_holding([step.texts[0] for step in steps[:3]], near=entry.relpath, hints=entry.target.split("."))
        relpaths = list(dict.fromkeys([entry.relpath, *near]))
        reviewed = self._reviewed(entry)
        candidates: list[Found] = []
        for relpath, source, index in self.reader.indexed_files(relpaths):
            for definition in index.definitions:
                if definition.kind is not entry.kind or defined_in(reviewed, relpath, definition.qualname):
                    continue  # a name the reviewed release defined there already is a twin that was there, not the new name
                if not self.copied_away(entry, source, index):
                    candidates.append(Found(source, index, definition, 0.8, False))
        plain = _clearly_best([(found.overlap(entry), found) for found in candidates], entry)
        if plain is not None or reviewed is None:
            return (plain, "renamed-body-overlap") if plain is not None else None
        split = _clearly_best([scored for found in candidates if (scored := self._with_helpers(entry, found)) is not None], entry)
        return (split, "renamed-and-split") if split is not None else None

    def _with_helpers(self, entry: AnnotationLock, found: Found) -> tuple[float, Found] | None:
        """The share of the reviewed body ``found`` holds itself or in the helpers it calls (with those helpers), when it
        holds at least :attr:`~.decide.Thresholds.renamed_split_direct` of it itself."""
        held = sum((Counter(entry.body) & Counter(body_hashes(found.index, found.definition))).values())
        if not entry.body or held / len(entry.body) < THRESHOLDS.renamed_split_direct:
            return None
        split = split_of(self.reader, found.source, found.index, found.definition, entry)
        if split is None:
            return None
        return (held + sum(h.received for h in split.helpers)) / len(entry.body), replace(found, split=split)


def _clearly_best(scored: list[tuple[float, Found]], entry: AnnotationLock) -> Found | None:
    """The candidate whose score reaches :attr:`~.decide.Thresholds.target_renamed_overlap` and clearly beats the next;
    among equally good ones, the only one beside the target (same file, same owner): a helper renamed in every
    "Copied from" clone at once is renamed in its own class first."""
    tied = best_scored(scored, THRESHOLDS.target_renamed_overlap)
    if len(tied) == 1:
        return tied[0]
    owner = entry.target.rpartition(".")[0]
    if not tied:
        return None
    beside = [f for f in tied if f.source.relpath == entry.relpath and f.definition.qualname.rpartition(".")[0] == owner]
    return beside[0] if len(beside) == 1 else None


def decorator_change(entry: AnnotationLock, definition: Definition) -> str:
    """The decorators added to or removed from the target, in words ("" when the same or not recorded in the lock)."""
    if entry.decorators is None:
        return ""  # a lock written before decorators were recorded says nothing about them
    old, new = list(entry.decorators), list(definition.decorators)
    if old == new:
        return ""
    added = [d for d in new if d not in old]
    removed = [d for d in old if d not in new]
    parts = [f"decorator added: @{d}" for d in added] + [f"decorator removed: @{d}" for d in removed]
    return "; ".join(parts) or f"decorators reordered: {' '.join('@' + d for d in new)}"


def _with_decorators(result: TargetResult, entry: AnnotationLock, found: Found) -> TargetResult:
    change = decorator_change(entry, found.definition)
    if not change:
        return result
    if result.kind in (TargetKind.UNCHANGED, TargetKind.BODY_CHANGED):
        message = change if result.kind is TargetKind.UNCHANGED else f"{change}; {result.message}"
        rule = result.rule if result.rule == "wrapped-by-decorator" else "decorators-changed"
        return TargetResult(entry, TargetKind.DECORATORS_CHANGED, result.new, result.similarity, message, result.layer, rule=rule)
    return TargetResult(entry, result.kind, result.new, result.similarity, f"{result.message}; {change}", result.layer, rule=result.rule)
