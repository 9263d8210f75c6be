"""Container first: what became of an annotated function, decided once, with the rule and evidence that decided it.

The function is looked for, strictest first: the same file byte for byte (``file-unchanged``); the same qualname in its file (``same-place``,
``body-changed``); the same qualname in another module (``moved-module``); its name at the other level, new since the review (``moved-same-name``; or a new
top-level function of its name its module has, ``named-by-its-module``); its namesake on a class its class now builds (``moved-to-built-class``); a shim that
forwards the old name (``renamed-behind-shim``); a definition of another name whose body overlaps (``renamed-body-overlap``), or holds it with its helpers
(``renamed-and-split``), or named with one word dropped (``renamed-dropping-a-word``); the new name its callers now call (``renamed-at-callers``;
``replaced-at-callers``, ``called-with-same-arguments``, ``assigned-in-its-place``, ``made-public-at-callers``: :mod:`.renamed_words`; a method new in its
file close to most of it, ``folded-into-method``); a function new in its file holding most of its body (``renamed-holding-body``; in another file,
``renamed-elsewhere``; ``renamed-with-base``, ``moved-sole-namesake``, ``init-as-post-init``: :mod:`.new_definitions`); the method of its name in the
class its class was renamed to (``class-renamed``, :mod:`.classes`), that its class's old name now aliases (``class-kept-as-alias``, :mod:`.aliases`) or
that inherits its class (``folded-into-subclass``, ``pushed-down-to-subclass``); the class its users now build (``class-renamed-at-users``,
``class-renamed-with-users``); a method folded into its first parameter's class (``moved-to-receiver``); the one caller that took it in
(``inlined-into-caller``, whose own header and returns stay its own); else ``deleted``. A copy made in another file is not taken
(``copied-not-moved``). A decorator added, removed or replaced is ``decorators-changed``. Helpers or a decorator taking statements are a decision of
their own (:mod:`.split`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from infralens.drift.lock.entries import AnnotationLock, Place, StepLock
from infralens.drift.lock.facts import body_hashes, jaccard
from infralens.drift.match import dropped_word, new_definitions, renamed_words, texts
from infralens.drift.match.aliases import kept_as_alias, renamed_to_alias
from infralens.drift.match.best import best_scored, clearly_best
from infralens.drift.match.built import helper_to_built_class, moved_to_built_class
from infralens.drift.match.callers import Renamed, callers_at_review, class_renamed_at_users, class_renamed_with_users, copied_not_moved, renamed_at_callers
from infralens.drift.match.classes import clone_beside_a_rename, copied_class, copied_method, method_of_renamed_class
from infralens.drift.match.decorators import moved_into_decorator, with_decorators
from infralens.drift.match.forwarding import forwarded_method
from infralens.drift.match.imported import Relocated, folded_into_base, inlined_into_caller, moved_to_class, moved_with_imports, re_exported, same_name_here
from infralens.drift.match.namesakes import folded_into_subclass, moved_to_sibling_base, named_by_its_module, pushed_down_to_subclass
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.receiver import moved_to_receiver, overlap_read_off_self
from infralens.drift.match.results import TargetKind, TargetResult
from infralens.drift.match.reviewed import ReviewedSources, defined_in, new_beside
from infralens.drift.match.rules import RENAMING, Action, Filter, Policy, TargetRule, Thresholds, Trace
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
    absorbed: bool = False
    """A caller that took the inlined target in (rule ``inlined-into-caller``), with a header and returns of its own."""

    def overlap(self, entry: AnnotationLock) -> float:
        """Statement overlap of the definition's body with the reviewed one."""
        return jaccard(entry.body, body_hashes(self.index, self.definition))

    def place(self) -> Place:
        d = self.definition
        return Place(self.source.relpath, self.source.module, d.qualname, d.qualname, (d.start_line, d.end_line), ())


Decided = tuple[TargetResult, "Found | None"]
"""A container rule's decision: the result, and the definition found (None when the file is unchanged or it is gone)."""
Finder = Callable[[AnnotationLock, list[StepLock], Trace], "Decided | None"]
"""A container rule: its decision, or None when it does not apply."""
Relocation = Callable[[TreeReader, "TreeReader | None", AnnotationLock, Thresholds], "Relocated | None"]


def definitions_named(index: ModuleIndex, qualname: str) -> list[Definition]:
    """Plain definitions (not property accessors) of ``qualname`` in a module."""
    return [d for d in index.definitions if d.qualname == qualname and d.accessor is None]


class ContainerMapper:
    """Maps each locked target to its definition in one checked tree."""

    def __init__(self, reader: TreeReader, reviewed: ReviewedSources, policy: Policy) -> None:
        self.reader = reader
        self.reviewed = reviewed
        self.policy = policy
        self._copies: dict[tuple[str, str], bool] = {}
        self._callers: dict[str, frozenset[str]] = {}

    def map(self, entry: AnnotationLock, steps: list[StepLock]) -> tuple[TargetResult, Found | None]:
        """The target's classification (with its rule and the trace of every rule that acted) and where it was found."""
        trace = Trace()
        result, found = self._map(entry, steps, trace)
        if found is not None and result.kind not in (TargetKind.DELETED, TargetKind.UNREADABLE, TargetKind.UNCHANGED):
            split = found.split or self._split(entry, found, trace)
            if split is not None and self.policy.allows(TargetRule(split.rule), trace, split.describe()):
                trace.add(TargetRule(split.rule), Action.FIRED, split.describe())
                deeper = [f"{h.name} (through {h.via})" for h in split.helpers if h.via]
                if deeper:
                    trace.add(TargetRule.HELPERS_OF_HELPERS, Action.FIRED, "helpers of its helpers hold lost statements: " + ", ".join(deeper))
                found = replace(found, split=split)
                rule = split.rule if result.kind is TargetKind.BODY_CHANGED else result.rule
                result = replace(result, message=f"{result.message}; {split.describe()}", rule=rule)
        if found is not None and result.kind not in (TargetKind.DELETED, TargetKind.UNREADABLE):
            result = with_decorators(result, entry, found.definition, trace)
        return replace(result, trace=trace.frozen()), found

    def _split(self, entry: AnnotationLock, found: Found, trace: Trace | None) -> Split | None:
        """:func:`.split.split_of` for ``found``, through the helpers of its helpers unless rule ``helpers-of-helpers`` is off."""
        deeper = self.policy.allows(TargetRule.HELPERS_OF_HELPERS, trace, "helpers of its helpers not followed")
        held_since = self._reviewed(entry) if self.policy.on(Filter.INSTANCE_CALLED) else None
        keyed = self.policy.on(Filter.CLASS_KEYED_ENTRY)
        return split_of(self.reader, found.source, found.index, found.definition, entry, deeper=deeper, held_since=held_since, keyed=keyed)

    def _reviewed(self, entry: AnnotationLock) -> TreeReader | None:
        """The release ``entry`` was reviewed against, when the checked tree comes after it (see :mod:`.reviewed`)."""
        return self.reviewed.reader(entry.distribution, entry.version, checked=self.reader.tree.version)

    def in_place(self, entry: AnnotationLock) -> Found | None:
        """The target at its recorded place (its file is byte-identical to the lock's)."""
        if (indexed := self.reader.indexed(entry.relpath)) is None:
            return None
        source, index = indexed
        best = min(definitions_named(index, entry.target), key=lambda d: abs(d.start_line - entry.span[0]), default=None)
        return Found(source, index, best, 1.0, True) if best else None

    def _map(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> tuple[TargetResult, Found | None]:
        """Ask the container rules in order; the first that finds the target decides (its event opens the trace)."""
        for rule, finder in self._finders():
            if not self.policy.on(rule):
                continue
            decided = finder(entry, steps, trace)
            if decided is not None:
                result, found = decided
                trace.add(TargetRule(result.rule), Action.FIRED, result.message)
                return result, found
        raise AssertionError("the deleted rule always decides")  # pragma: no cover

    def _finders(self) -> list[tuple[TargetRule, Finder]]:
        """The container rules in the order they are asked (each a finder that returns a decision or None)."""
        return [
            (TargetRule.FILE_UNCHANGED, self._file_unchanged),
            (TargetRule.UNREADABLE, self._unreadable),
            (TargetRule.SAME_PLACE, self._here),
            (TargetRule.RE_EXPORTED, lambda entry, steps, trace: self._relocated(entry, re_exported(self.reader, entry), TargetRule.RE_EXPORTED)),
            (TargetRule.MOVED_MODULE, self._moved_module),
            (TargetRule.MOVED_WITH_IMPORTS, self._by(moved_with_imports, TargetRule.MOVED_WITH_IMPORTS)),
            (TargetRule.MOVED_SAME_NAME, self._moved_same_name),
            (TargetRule.NAMED_BY_ITS_MODULE, self._by(named_by_its_module, TargetRule.NAMED_BY_ITS_MODULE)),
            (TargetRule.SAME_NAME_IN_MODULE, self._by(same_name_here, TargetRule.SAME_NAME_IN_MODULE)),
            (TargetRule.MOVED_TO_CLASS, self._by(moved_to_class, TargetRule.MOVED_TO_CLASS)),
            (TargetRule.MOVED_TO_BUILT_CLASS, self._by(moved_to_built_class, TargetRule.MOVED_TO_BUILT_CLASS)),
            (TargetRule.HELPER_TO_BUILT_CLASS, self._by(helper_to_built_class, TargetRule.HELPER_TO_BUILT_CLASS)),
            (TargetRule.RENAMED_BEHIND_SHIM, self._behind_shim),
            (TargetRule.RENAMED_TO_ALIAS, lambda entry, steps, trace: self._aliased(entry, TargetRule.RENAMED_TO_ALIAS)),
            (TargetRule.MERGED_INTO_ALIAS, lambda entry, steps, trace: self._aliased(entry, TargetRule.MERGED_INTO_ALIAS)),
            (TargetRule.RENAMED_BODY_OVERLAP, self._renamed_found),
            (TargetRule.RENAMED_DROPPING_A_WORD, self._by(dropped_word.renamed_dropping_a_word, TargetRule.RENAMED_DROPPING_A_WORD)),
            (TargetRule.RENAMED_AT_CALLERS, self._renamed_at_callers),
            (TargetRule.CLASS_RENAMED, self._class_renamed),
            (TargetRule.CLASS_RENAMED_AT_USERS, self._class_renamed_at_users),
            (TargetRule.CLASS_RENAMED_WITH_USERS, self._class_renamed_with_users),
            (TargetRule.MOVED_TO_RECEIVER, self._moved_to_receiver),
            (TargetRule.FOLDED_INTO_BASE, self._by(folded_into_base, TargetRule.FOLDED_INTO_BASE)),
            (TargetRule.FOLDED_INTO_SUBCLASS, self._by(folded_into_subclass, TargetRule.FOLDED_INTO_SUBCLASS)),
            (TargetRule.PUSHED_DOWN_TO_SUBCLASS, self._by(pushed_down_to_subclass, TargetRule.PUSHED_DOWN_TO_SUBCLASS)),
            (TargetRule.MOVED_TO_SIBLING_BASE, self._by(moved_to_sibling_base, TargetRule.MOVED_TO_SIBLING_BASE)),
            (TargetRule.MOVED_INTO_DECORATOR, self._by(moved_into_decorator, TargetRule.MOVED_INTO_DECORATOR)),
            (TargetRule.INLINED_INTO_CALLER, self._by(inlined_into_caller, TargetRule.INLINED_INTO_CALLER)),
            (TargetRule.RENAMED_KEEPING_WORDS, self._by(renamed_words.renamed_keeping_words, TargetRule.RENAMED_KEEPING_WORDS)),
            (TargetRule.FOLDED_INTO_METHOD, self._by(renamed_words.folded_into_method, TargetRule.FOLDED_INTO_METHOD)),
            (TargetRule.REPLACED_AT_CALLERS, self._by(renamed_words.replaced_at_callers, TargetRule.REPLACED_AT_CALLERS)),
            (TargetRule.CALLED_WITH_SAME_ARGUMENTS, self._by(renamed_words.called_with_same_arguments, TargetRule.CALLED_WITH_SAME_ARGUMENTS)),
            (TargetRule.ASSIGNED_IN_ITS_PLACE, self._by(renamed_words.assigned_in_its_place, TargetRule.ASSIGNED_IN_ITS_PLACE)),
            (TargetRule.MADE_PUBLIC_AT_CALLERS, self._by(renamed_words.made_public_at_callers, TargetRule.MADE_PUBLIC_AT_CALLERS)),
            (TargetRule.RENAMED_HOLDING_BODY, self._by(new_definitions.renamed_holding_body, TargetRule.RENAMED_HOLDING_BODY)),
            (TargetRule.RENAMED_WITH_BASE, self._by(new_definitions.renamed_with_base, TargetRule.RENAMED_WITH_BASE)),
            (TargetRule.MOVED_SOLE_NAMESAKE, self._by(new_definitions.moved_sole_namesake, TargetRule.MOVED_SOLE_NAMESAKE)),
            (TargetRule.RENAMED_IN_MOVED_CLASS, self._by(new_definitions.renamed_in_moved_class, TargetRule.RENAMED_IN_MOVED_CLASS)),
            (TargetRule.INIT_AS_POST_INIT, self._by(new_definitions.init_as_post_init, TargetRule.INIT_AS_POST_INIT)),
            (TargetRule.CLASS_KEPT_AS_ALIAS, self._by(kept_as_alias, TargetRule.CLASS_KEPT_AS_ALIAS)),
            (TargetRule.RENAMED_CLOSE_BODY, self._by(new_definitions.renamed_close_body, TargetRule.RENAMED_CLOSE_BODY)),
            (TargetRule.RENAMED_ELSEWHERE, self._by(new_definitions.renamed_elsewhere, TargetRule.RENAMED_ELSEWHERE)),
            (TargetRule.DELETED, self._deleted),
        ]

    def _file_unchanged(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        source = self.reader.source(entry.relpath)
        if source is None or source.sha256 != entry.source_sha256:
            return None
        place = Place(entry.relpath, entry.module, entry.target, entry.target, entry.span, ())
        return TargetResult(entry, TargetKind.UNCHANGED, place, 1.0, "source file unchanged", rule=TargetRule.FILE_UNCHANGED.value), None

    def _unreadable(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        if (problem := self.reader.problem(entry.relpath)) is None:
            return None
        return TargetResult(entry, TargetKind.UNREADABLE, None, 0.0, f"cannot tell: {problem}", rule=TargetRule.UNREADABLE.value), None

    def _here(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        """The same qualname in its file: ``same-place`` when its body is the reviewed one, else ``body-changed``."""
        here = self._same_qualname_here(entry)
        if here is None:
            return None
        overlap = here.overlap(entry)
        if body_hashes(here.index, here.definition) == entry.body:
            return TargetResult(entry, TargetKind.UNCHANGED, here.place(), overlap, "body unchanged", rule=TargetRule.SAME_PLACE.value), here
        message = f"body changed around the steps (statement overlap {overlap:.2f})"
        return TargetResult(entry, TargetKind.BODY_CHANGED, here.place(), overlap, message, rule=TargetRule.BODY_CHANGED.value), here

    def _moved_module(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        if (moved := self._same_qualname_elsewhere(entry, trace)) is None:
            return None
        overlap = moved.overlap(entry)
        message = f"{entry.module}.{entry.target} now lives in {moved.source.module} (statement overlap {overlap:.2f})"
        return TargetResult(entry, TargetKind.MOVED, moved.place(), overlap, message, rule=TargetRule.MOVED_MODULE.value), moved

    def _relocated(self, entry: AnnotationLock, relocated: Relocated | None, rule: TargetRule) -> Decided | None:
        """A decision of one of the rules of :mod:`.imported`: moved, or renamed when imported under another name."""
        if relocated is None:
            return None
        renamed, t = rule in RENAMING and relocated.definition.qualname != entry.target, self.policy.thresholds
        locality = t.renamed_locality if renamed else t.moved_elsewhere_locality
        found = Found(relocated.source, relocated.index, relocated.definition, locality, False, absorbed=rule is TargetRule.INLINED_INTO_CALLER)
        message = f"{entry.module}.{entry.target} now lives in {relocated.source.module}.{relocated.definition.qualname}: {relocated.why}"
        kind = TargetKind.RENAMED if renamed else TargetKind.MOVED
        return TargetResult(entry, kind, found.place(), found.overlap(entry), message, rule=rule.value), found

    def _by(self, relocate: Relocation, rule: TargetRule) -> Finder:
        """The container rule ``rule`` that a function of :mod:`.imported` or :mod:`.built` decides (see :meth:`_relocated`)."""
        return lambda entry, steps, trace: self._relocated(entry, relocate(self.reader, self._reviewed(entry), entry, self.policy.thresholds), rule)

    def _moved_same_name(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        if (named := self._same_name_elsewhere(entry)) is None:
            return None
        overlap = named.overlap(entry)
        now = f"{named.source.module}.{named.definition.qualname}"
        message = f"{entry.module}.{entry.target} now lives in {now}, a definition of its name new since the review (statement overlap {overlap:.2f})"
        return TargetResult(entry, TargetKind.MOVED, named.place(), overlap, message, rule=TargetRule.MOVED_SAME_NAME.value), named

    def _behind_shim(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        if (forwarded := forwarded_method(self.reader, entry.relpath, entry.target)) is None:
            return None
        found = Found(forwarded.source, forwarded.index, forwarded.definition, self.policy.thresholds.moved_elsewhere_locality, False)
        overlap = found.overlap(entry)
        now = f"{forwarded.source.module}.{forwarded.definition.qualname}"
        message = f"{entry.target} now runs {now} (via {forwarded.via}; statement overlap {overlap:.2f})"
        return TargetResult(entry, TargetKind.RENAMED, found.place(), overlap, message, rule=TargetRule.RENAMED_BEHIND_SHIM.value), found

    def _aliased(self, entry: AnnotationLock, rule: TargetRule) -> Decided | None:
        verb = "was merged, with the alias's other choices (all gone), into" if rule is TargetRule.MERGED_INTO_ALIAS else "looks renamed to"
        aliased = renamed_to_alias(self.reader, self._reviewed(entry), entry, merged=rule is TargetRule.MERGED_INTO_ALIAS)
        if aliased is None:
            return None
        found = Found(aliased.source, aliased.index, aliased.definition, self.policy.thresholds.renamed_locality, False)
        overlap = found.overlap(entry)
        now = f"{aliased.source.module}.{aliased.definition.qualname}"
        message = f"{entry.target} {verb} {now}, the name that aliased it at the review ({aliased.alias}; statement overlap {overlap:.2f})"
        return TargetResult(entry, TargetKind.RENAMED, found.place(), overlap, message, rule=rule.value), found

    def _renamed_found(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        renamed = self._renamed(entry, steps, trace)
        if renamed is None:
            return None
        found, rule = renamed
        overlap = found.overlap(entry)
        message = f"{entry.target} looks renamed to {found.source.module}.{found.definition.qualname} (statement overlap {overlap:.2f})"
        return TargetResult(entry, TargetKind.RENAMED, found.place(), overlap, message, rule=rule.value), found

    def _renamed_at_callers(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        renamed_at = renamed_at_callers(self.reader, self._reviewed(entry), entry)
        if renamed_at is None:
            return None
        found = Found(renamed_at.source, renamed_at.index, renamed_at.definition, self.policy.thresholds.renamed_locality, False)
        now = f"{renamed_at.source.module}.{renamed_at.definition.qualname}"
        overlap = found.overlap(entry)
        message = f"{entry.target} looks renamed to {now}: {renamed_at.calls} call(s) to it now call the new name (statement overlap {overlap:.2f})"
        return TargetResult(entry, TargetKind.RENAMED, found.place(), overlap, message, rule=TargetRule.RENAMED_AT_CALLERS.value), found

    def _class_renamed(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        copied = lambda source: self._class_copied(entry, source, trace)  # noqa: E731 - read by one call
        renamed_class = method_of_renamed_class(self.reader, self._reviewed(entry), entry, self.policy.thresholds, copied=copied)
        if renamed_class is None:
            return None
        found = Found(renamed_class.source, renamed_class.index, renamed_class.definition, self.policy.thresholds.renamed_locality, False)
        now = f"{renamed_class.source.module}.{renamed_class.definition.qualname}"
        owner = entry.target.rpartition(".")[0]
        message = f"{entry.target} now lives in {now}: class {owner} looks renamed to {renamed_class.owner} (class overlap {renamed_class.overlap:.2f})"
        return TargetResult(entry, TargetKind.RENAMED, found.place(), found.overlap(entry), message, rule=TargetRule.CLASS_RENAMED.value), found

    def _class_renamed_at_users(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        return self._built_instead(entry, class_renamed_at_users(self.reader, self._reviewed(entry), entry), TargetRule.CLASS_RENAMED_AT_USERS)

    def _class_renamed_with_users(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        return self._built_instead(entry, class_renamed_with_users(self.reader, self._reviewed(entry), entry), TargetRule.CLASS_RENAMED_WITH_USERS)

    def _built_instead(self, entry: AnnotationLock, built: Renamed | None, rule: TargetRule) -> Decided | None:
        """The decision of a rule that found the class its users now build instead of the target's (``built``)."""
        if built is None:
            return None
        found = Found(built.source, built.index, built.definition, self.policy.thresholds.renamed_locality, False)
        now = f"{built.source.module}.{built.definition.qualname}"
        message = f"{entry.target} now lives in {now}: {built.calls} place(s) that built its class now build {built.definition.qualname.split('.')[0]}"
        return TargetResult(entry, TargetKind.RENAMED, found.place(), found.overlap(entry), message, rule=rule.value), found

    def _class_copied(self, entry: AnnotationLock, source: SourceFile, trace: Trace, *, method: bool = False) -> bool:
        """Rule ``class-copied-not-renamed`` (:func:`.classes.copied_class`; with ``method``, :func:`.classes.copied_method`):
        whether ``source`` holds a copy made there, not the reviewed class (or the method's class) renamed."""
        if not (copied_method if method else copied_class)(self.reader, entry, source):
            return False
        detail = f"{source.relpath} holds a look-alike class; {entry.relpath} is still there and does not name its module"
        return self.policy.vetoes(Filter.CLASS_COPIED_NOT_RENAMED, trace, detail)

    def _moved_to_receiver(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        receiver = moved_to_receiver(self.reader, self._reviewed(entry), entry, self.policy.thresholds)
        if receiver is None:
            return None
        found = Found(receiver.source, receiver.index, receiver.definition, self.policy.thresholds.renamed_locality, False)
        now = f"{receiver.source.module}.{receiver.definition.qualname}"
        message = f"{entry.target} moved into {now}, its parameter {receiver.parameter} now self (statement overlap {receiver.overlap:.2f})"
        return TargetResult(entry, TargetKind.MOVED, found.place(), receiver.overlap, message, rule=TargetRule.MOVED_TO_RECEIVER.value), found

    def _deleted(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> Decided | None:
        message = f"{entry.module}.{entry.target} is not defined anywhere in {self.reader.tree.describe()}"
        copies = [relpath for (annotation, relpath), copied in self._copies.items() if copied and annotation == entry.id]
        if copies:
            message += f"; the look-alike in {', '.join(copies)} is a copy made there (copied-not-moved: none of its callers went there)"
        return TargetResult(entry, TargetKind.DELETED, None, 0.0, message, rule=TargetRule.DELETED.value), None

    def _same_qualname_here(self, entry: AnnotationLock) -> Found | None:
        """The definition of the target's qualname in its recorded file whose body is closest to the reviewed one."""
        if (indexed := self.reader.indexed(entry.relpath)) is None:
            return None
        source, index = indexed
        same = definitions_named(index, entry.target)
        if not same:
            return None
        best = max(same, key=lambda d: jaccard(entry.body, body_hashes(index, d)))
        return Found(source, index, best, 1.0, True)

    def _same_qualname_elsewhere(self, entry: AnnotationLock, trace: Trace) -> Found | None:
        """Its qualname in another file (its module moved; not there at the review): the closest body, or one in a new file beside its gone one."""
        names, reviewed, t = entry.target.split("."), self._reviewed(entry), self.policy.thresholds
        beside = set(new_beside(self.reader, reviewed, entry.relpath))
        best: tuple[tuple[bool, float], Found] | None = None
        for relpath, source, index in self.reader.indexed_files(list(self.reader.files_defining(names, skip=entry.relpath))):
            if defined_in(reviewed, relpath, entry.target):
                continue
            for definition in definitions_named(index, entry.target):
                found = Found(source, index, definition, t.moved_elsewhere_locality, False)
                score = (relpath in beside, found.overlap(entry))
                if best is None or score > best[0]:
                    best = (score, found)
        if best is None or not (best[0][0] or best[0][1] >= t.target_moved_overlap) or self.copied_away(entry, best[1].source, best[1].index, trace):
            return None
        return None if self._clone_beside_a_rename(entry, best[1].source, trace) else best[1]

    def _clone_beside_a_rename(self, entry: AnnotationLock, source: SourceFile, trace: Trace) -> bool:
        """Rule ``class-copied-not-renamed`` for a same-named class elsewhere (:func:`.classes.clone_beside_a_rename`)."""
        if not clone_beside_a_rename(self.reader, self._reviewed(entry), entry, source, self.policy.thresholds, self.policy.on(Filter.CLASS_KEYED_ENTRY)):
            return False
        detail = f"{source.relpath} holds a same-named clone; {entry.relpath}, still there and never naming it, holds the class renamed"
        return self.policy.vetoes(Filter.CLASS_COPIED_NOT_RENAMED, trace, detail)

    def copied_away(self, entry: AnnotationLock, source: SourceFile, index: ModuleIndex, trace: Trace | None = None) -> bool:
        """Whether a definition in ``source`` is a copy made there, not the target moved (:func:`.callers.copied_not_moved`;
        rule :attr:`~.rules.Filter.COPIED_NOT_MOVED`, which the trace records when it vetoes)."""
        key = (entry.id, source.relpath)
        if key not in self._copies:
            self._copies[key] = copied_not_moved(self.reader, entry, source, index, lambda: self._callers_at_review(entry))
        if not self._copies[key]:
            return False
        return self.policy.vetoes(Filter.COPIED_NOT_MOVED, trace, f"{source.relpath} holds a copy made there: none of the reviewed callers went there")

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
        other_level = "." in entry.target  # a method's name at column 0, a module function's name indented
        relpaths = [entry.relpath, *self.reader.files_defining([name], skip=entry.relpath, top_level=other_level)]
        scored: list[tuple[float, Found]] = []
        for relpath, source, index in self.reader.indexed_files(relpaths):
            for definition in index.definitions:
                qualname = definition.qualname
                if qualname.rsplit(".", 1)[-1] != name or ("." in qualname) == ("." in entry.target) or definition.kind is DefinitionKind.CLASS:
                    continue  # only a method turned module function, or a module function turned method
                if defined_in(reviewed, relpath, qualname):
                    continue  # it was there when the lock was reviewed: a namesake, not the target moved
                found = Found(source, index, definition, self.policy.thresholds.moved_elsewhere_locality, False)
                scored.append((max(found.overlap(entry), overlap_read_off_self(reviewed, entry, index, definition)), found))
        t = self.policy.thresholds
        return clearly_best(scored, t.target_moved_overlap, t.target_renamed_margin)

    def _renamed(self, entry: AnnotationLock, steps: list[StepLock], trace: Trace) -> tuple[Found, TargetRule] | None:
        """A definition of the same kind and of a name new since the review, in the target's file, where its first steps'
        texts are (:func:`~.texts.searched_texts`), or (its file gone) in a file new beside it, with a clearly closest body (``renamed-body-overlap``); else,
        when the reviewed release is at hand, one that holds the reviewed body with the helpers it calls (``renamed-and-split``)."""
        reviewed = self._reviewed(entry)
        near = self.reader.files_holding(texts.searched_texts([step.texts[0] for step in steps]), near=entry.relpath, hints=entry.target.split("."))
        relpaths = list(dict.fromkeys([entry.relpath, *near, *new_beside(self.reader, reviewed, entry.relpath)]))
        candidates: list[Found] = []
        for relpath, source, index in self.reader.indexed_files(relpaths):
            new_names = [d for d in index.definitions if d.kind is entry.kind and not defined_in(reviewed, relpath, d.qualname)]
            # a name the reviewed release defined there already is a twin that was there, not the new name
            if new_names and not self.copied_away(entry, source, index, trace) and not self._class_copied(entry, source, trace, method=True):
                candidates.extend(Found(source, index, d, self.policy.thresholds.renamed_locality, False) for d in new_names)
        plain = self._clearly_best([(found.overlap(entry), found) for found in candidates], entry, trace)
        if plain is not None or reviewed is None:
            return (plain, TargetRule.RENAMED_BODY_OVERLAP) if plain is not None else None
        if not self.policy.allows(TargetRule.RENAMED_AND_SPLIT, trace):
            return None
        split = self._clearly_best([scored for found in candidates if (scored := self._with_helpers(entry, found)) is not None], entry, trace)
        return (split, TargetRule.RENAMED_AND_SPLIT) if split is not None else None

    def _with_helpers(self, entry: AnnotationLock, found: Found) -> tuple[float, Found] | None:
        """The share of the reviewed body ``found`` holds itself or in its helpers (with them), when it holds ``renamed_split_direct`` itself."""
        held = sum((Counter(entry.body) & Counter(body_hashes(found.index, found.definition))).values())
        if not entry.body or held / len(entry.body) < self.policy.thresholds.renamed_split_direct:
            return None
        split = self._split(entry, found, None)
        if split is None:
            return None
        return (held + sum(h.received for h in split.helpers)) / len(entry.body), replace(found, split=split)

    def _clearly_best(self, scored: list[tuple[float, Found]], entry: AnnotationLock, trace: Trace) -> Found | None:
        """The candidate whose score reaches :attr:`~.rules.Thresholds.target_renamed_overlap` and clearly beats the next;
        among equally good ones, the only one beside the target (same file, same owner; rule ``beside-the-target``): a
        helper renamed in every "Copied from" clone at once is renamed in its own class first."""
        t = self.policy.thresholds
        tied = best_scored(scored, t.target_renamed_overlap, t.target_renamed_margin)
        if len(tied) == 1:
            return tied[0]
        if not tied:  # nothing reaches the floor
            return None
        beside = [f for f in tied if f.source.relpath == entry.relpath and f.definition.qualname.rpartition(".")[0] == entry.target.rpartition(".")[0]]
        if len(beside) != 1 or not self.policy.allows(TargetRule.BESIDE_THE_TARGET, trace):
            return None
        trace.add(TargetRule.BESIDE_THE_TARGET, Action.FIRED, f"{len(tied)} rename candidates alike; {beside[0].definition.qualname} is the target's own")
        return beside[0]
