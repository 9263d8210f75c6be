"""Re-find locked statements in a (possibly newer) source tree and classify them.

Layers, strictest first:

0. the file's SHA-256 equals the lock's → unchanged, nothing is parsed;
1. the exact text at the hinted line inside the target;
2. the exact text elsewhere inside the target's span (or the target's new home);
3. a search across the whole distribution: files are prefiltered by tokens of the
   statement (a bytes search) and by a whitespace-tolerant regex before any parse
   (:mod:`.reader`).

Locality (is it the same function?) and text similarity are scored separately and
thresholded separately, together with neighbour-context agreement (:mod:`.scoring`).
A statement found only somewhere else is *moved* only when that place's function
matches the reviewed one and exactly one candidate scores best; the same line copied
into other pipelines never counts as unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from infralens.drift.calls import Reach
from infralens.drift.entries import AnnotationLock, Place, StepLock, short_hash
from infralens.drift.facts import body_hashes, enclosing_definitions, jaccard, surroundings
from infralens.drift.forwarding import forwarded_method
from infralens.drift.reader import TreeReader
from infralens.drift.results import Candidate, Scores, StepKind, StepResult, TargetKind, TargetResult
from infralens.drift.scoring import (
    ASSIGNMENT_SIMILARITY,
    CANDIDATE_SIMILARITY,
    acceptable_change,
    assigned_name,
    changed_rank,
    claimed_by_sibling,
    close_runner_up,
    confident_change,
    context_agreement,
    pick_exact,
    pick_moved,
    ratio,
    ratio_at_least,
    same_copy,
    statement_shape,
)
from infralens.resolve import Resolver
from infralens.source import Definition, DefinitionKind, ModuleIndex, SourceFile, SourceTree, Statement

TARGET_MOVED_SIMILARITY = 0.3
"""Minimum body overlap for a definition of the same qualname in another file to be the target moved."""
TARGET_RENAMED_SIMILARITY = 0.6
"""Minimum body overlap for a definition of another name to be the target renamed."""
TARGET_RENAMED_MARGIN = 0.05
"""A second rename candidate this close to the best makes the rename ambiguous (not reported)."""
MAX_SEARCH_FILES = 16
"""At most this many files are indexed per distribution-wide search (best-ranked first)."""


@dataclass(frozen=True)
class _Found:
    """A target definition bound to a file in the checked tree."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    locality: float
    """How sure it is the reviewed target: 1.0 in place, 0.9 same qualname elsewhere, 0.8 renamed."""
    in_place: bool

    def overlap(self, entry: AnnotationLock) -> float:
        """Statement overlap of the definition's body with the reviewed one."""
        return jaccard(entry.body, body_hashes(self.index, self.definition))

    def place(self) -> Place:
        """Where the definition is."""
        return _definition_place(self.source, self.definition)


class DistributionMatcher:
    """Classifies locked annotations and steps against one source tree."""

    def __init__(self, resolver: Resolver, tree: SourceTree, *, fast: bool = False) -> None:
        self.reader = TreeReader(resolver, tree, fast=fast)
        self.tree = tree
        self._targets: dict[str, tuple[TargetResult, _Found | None]] = {}

    def source(self, relpath: str) -> SourceFile | None:
        """The checked tree's file at ``relpath`` (None when it is gone)."""
        return self.reader.source(relpath)

    # -- targets ------------------------------------------------------------

    def target(self, entry: AnnotationLock, steps: list[StepLock]) -> tuple[TargetResult, _Found | None]:
        """The target's classification (computed once per annotation) and where it was found."""
        if entry.id not in self._targets:
            self._targets[entry.id] = self._classify_target(entry, steps)
        return self._targets[entry.id]

    def _classify_target(self, entry: AnnotationLock, steps: list[StepLock]) -> tuple[TargetResult, _Found | None]:
        source = self.source(entry.relpath)
        if source is not None and source.sha256 == entry.source_sha256:
            definition_place = Place(entry.relpath, entry.module, entry.target, entry.target, entry.span, ())
            return TargetResult(entry, TargetKind.UNCHANGED, definition_place, 1.0, "source file unchanged"), None
        problem = self.reader.problem(entry.relpath)
        if problem is not None:
            return TargetResult(entry, TargetKind.UNREADABLE, None, 0.0, f"cannot tell: {problem}", 3), None
        here = self._same_qualname_here(entry)
        if here is not None:
            similarity = here.overlap(entry)
            if body_hashes(here.index, here.definition) == entry.body:
                kind, message = TargetKind.UNCHANGED, "body unchanged"
            else:
                kind, message = TargetKind.BODY_CHANGED, f"body changed around the steps (statement overlap {similarity:.2f})"
            return TargetResult(entry, kind, here.place(), similarity, message, 1), here
        moved = self._same_qualname_elsewhere(entry)
        if moved is not None:
            similarity = moved.overlap(entry)
            message = f"{entry.module}.{entry.target} now lives in {moved.source.module} (statement overlap {similarity:.2f})"
            return TargetResult(entry, TargetKind.MOVED, moved.place(), similarity, message, 3), moved
        forwarded = forwarded_method(self.reader, entry.relpath, entry.target)
        if forwarded is not None:
            found = _Found(forwarded.source, forwarded.index, forwarded.definition, 0.9, False)
            similarity = found.overlap(entry)
            message = (
                f"{entry.target} now runs {forwarded.source.module}.{forwarded.definition.qualname} (via {forwarded.via}; statement overlap {similarity:.2f})"
            )
            return TargetResult(entry, TargetKind.RENAMED, found.place(), similarity, message, 3), found
        renamed = self._renamed(entry, steps)
        if renamed is not None:
            similarity = renamed.overlap(entry)
            message = f"{entry.target} looks renamed to {renamed.source.module}.{renamed.definition.qualname} (statement overlap {similarity:.2f})"
            return TargetResult(entry, TargetKind.RENAMED, renamed.place(), similarity, message, 3), renamed
        return TargetResult(entry, TargetKind.DELETED, None, 0.0, f"{entry.module}.{entry.target} is not defined anywhere in {self.tree.describe()}", 3), None

    def _same_qualname_here(self, entry: AnnotationLock) -> _Found | None:
        """The definition of the target's qualname in its recorded file whose body is closest to the reviewed one."""
        indexed = self.reader.indexed(entry.relpath)
        if indexed is None:
            return None
        source, index = indexed
        same = _definitions_named(index, entry.target)
        if not same:
            return None
        best = max(same, key=lambda d: jaccard(entry.body, body_hashes(index, d)))
        return _Found(source, index, best, 1.0, True)

    def _in_place(self, entry: AnnotationLock) -> _Found | None:
        """The target at its recorded place (its file is byte-identical to the lock's)."""
        indexed = self.reader.indexed(entry.relpath)
        if indexed is None:
            return None
        source, index = indexed
        best = min(_definitions_named(index, entry.target), key=lambda d: abs(d.start_line - entry.span[0]), default=None)
        return _Found(source, index, best, 1.0, True) if best else None

    def _same_qualname_elsewhere(self, entry: AnnotationLock) -> _Found | None:
        """The best definition of the target's qualname in another file (its module moved)."""
        patterns = [re.compile(rb"(?m)^\s*(?:async\s+def|def|class)\s+" + re.escape(n.encode()) + rb"\b") for n in entry.target.split(".")]
        best: tuple[float, _Found] | None = None
        for relpath in self.reader.files_matching(patterns, words=entry.target.split("."), skip=entry.relpath):
            indexed = self.reader.indexed(relpath)
            if indexed is None:
                continue
            source, index = indexed
            for definition in _definitions_named(index, entry.target):
                found = _Found(source, index, definition, 0.9, False)
                score = found.overlap(entry)
                if best is None or score > best[0]:
                    best = (score, found)
        if best is None or best[0] < TARGET_MOVED_SIMILARITY:
            return None
        return best[1]

    def _renamed(self, entry: AnnotationLock, steps: list[StepLock]) -> _Found | None:
        """A definition of the same kind, in the target's file or where its first steps' texts are, with a clearly closest body."""
        relpaths = [entry.relpath] if self.source(entry.relpath) else []
        for step in steps[:3]:
            relpaths.extend(r for r in self._files_with_text(step.texts[0], entry)[:4] if r not in relpaths)
        scored: list[tuple[float, _Found]] = []
        for relpath in relpaths:
            indexed = self.reader.indexed(relpath)
            if indexed is None:
                continue
            source, index = indexed
            for definition in index.definitions:
                if definition.kind is not entry.kind:
                    continue
                found = _Found(source, index, definition, 0.8, False)
                score = found.overlap(entry)
                if score >= TARGET_RENAMED_SIMILARITY:
                    scored.append((score, found))
        scored.sort(key=lambda item: -item[0])
        if not scored or (len(scored) > 1 and scored[1][0] >= scored[0][0] - TARGET_RENAMED_MARGIN):
            return None
        return scored[0][1]

    # -- steps --------------------------------------------------------------

    def step(self, entry: StepLock, annotation: AnnotationLock, siblings: list[StepLock]) -> StepResult:
        """Classify one locked step (``siblings``: the annotation's other locked steps)."""
        source = self.source(entry.relpath)
        if source is not None and source.sha256 == entry.file_sha256:
            return StepResult(entry, StepKind.UNCHANGED, 0, entry.place, Scores(1.0, 1.0, 1.0), (), "source file unchanged")
        target_result, found = self.target(annotation, siblings)
        if target_result.kind is TargetKind.UNREADABLE:  # the step's file is its target's: already judged once
            return StepResult(entry, StepKind.UNREADABLE, 3, None, None, (), target_result.message)
        if found is None and target_result.kind is TargetKind.UNCHANGED:
            found = self._in_place(annotation)
        similar: Candidate | None = None
        others: list[Candidate] = []
        if found is not None:
            pool = found.index.statements_within(found.definition.start_line, found.definition.end_line)
            exact = self._units(found, pool, entry, exact=True)
            if exact and len(exact) < entry.copies and not same_copy(exact, entry):
                # A copy of a repeated statement went, and the neighbours do not say the annotated one stayed:
                # never "unchanged" on text alone; the remaining copies are not candidates for an edit either.
                pool = tuple(s for s in pool if s.text != entry.texts[0])
                exact = []
            if exact:
                chosen, ambiguous = pick_exact(exact, entry)
                if found.in_place:
                    layer = 1 if chosen.place.lines[0] == entry.lines[0] else 2
                    return StepResult(entry, StepKind.UNCHANGED, layer, chosen.place, chosen.scores, (), "same statement in the same target", ambiguous)
                return StepResult(entry, StepKind.MOVED, 2, chosen.place, chosen.scores, (), f"the target moved ({target_result.kind.value})", ambiguous)
            claimed = [s.texts for s in siblings if s.step_id != entry.step_id]
            # A statement the reviewed body already held is not an edit of this one (it was there all along).
            old_body = set(annotation.body)
            pool = tuple(s for s in pool if short_hash(s.text) not in old_body or s.text in entry.texts)
            ranked = [c for c in self._units(found, pool, entry, exact=False) if not claimed_by_sibling(c, claimed)]
            ranked.sort(key=changed_rank, reverse=True)
            ranked = [c for c in ranked if acceptable_change(c)]
            if not ranked:
                ranked = self._same_assignment(found, pool, entry, claimed)
            if ranked:
                similar, others = ranked[0], ranked[1:4]
        moved, rivals = self._search_elsewhere(entry, annotation, found)
        if found is not None:
            # The reviewed target is still there and lost the statement: a copy of the text elsewhere (a
            # "# Copied from" clone, a sibling class) is a decoy; only a place the target now calls is a move.
            everywhere = [moved, *rivals] if moved is not None else rivals
            reach = Reach(self.reader, found.source, found.index, found.definition)
            moved = next((candidate for candidate in everywhere if reach.leads_to(candidate.place)), None)
            rivals = [candidate for candidate in everywhere if candidate is not moved]
        if moved is None and similar is not None and confident_change(similar):
            return _changed(entry, similar, others)
        if moved is not None:
            return StepResult(entry, StepKind.MOVED, 3, moved.place, moved.scores, tuple(rivals), f"found in {moved.place.target or moved.place.module}")
        if similar is not None:
            return _changed(entry, similar, others)
        candidates = tuple(rivals[:5])
        if candidates:
            message = f"the same text appears in {len(rivals)} other place(s), none of them clearly the reviewed function"
        elif found is None:
            message = target_result.message
        else:
            message = f"nothing in {found.definition.qualname} corresponds"
        return StepResult(entry, StepKind.DELETED, 3, None, None, candidates, message, ambiguous=bool(candidates))

    def _same_assignment(self, found: _Found, pool: tuple[Statement, ...], entry: StepLock, claimed: list[tuple[str, ...]]) -> list[Candidate]:
        """A rewritten assignment: the only statement in the target assigning the same name corresponds to it."""
        name = assigned_name(entry.texts[0])
        if name is None or len(entry.texts) != 1:
            return []
        same = [s for s in pool if assigned_name(s.text) == name]
        if len(same) != 1 or any(assigned_name(t[0]) == name for t in claimed):
            return []
        similarity = ratio(entry.texts[0], same[0].text)
        if similarity < ASSIGNMENT_SIMILARITY:
            return []
        return [_candidate(found.source, found.index, (same[0],), entry, similarity, found.locality, edited=True)]

    def _units(self, found: _Found, pool: tuple[Statement, ...], entry: StepLock, *, exact: bool) -> list[Candidate]:
        """Candidate statement runs (as long as the locked block) inside ``pool``."""
        size = len(entry.texts)
        wanted = "\n".join(entry.texts)
        shape = statement_shape(entry.texts[0])
        results = []
        for start in range(max(0, len(pool) - size + 1)):
            window = pool[start : start + size]
            if exact:
                if tuple(s.text for s in window) != entry.texts:
                    continue
                similarity = 1.0
            else:
                if statement_shape(window[0].text) != shape:
                    continue  # an edit keeps the kind of statement: an assignment never becomes an ``if`` header
                close = ratio_at_least(wanted, "\n".join(s.text for s in window), CANDIDATE_SIMILARITY)
                if close is None:
                    continue
                similarity = close
            results.append(_candidate(found.source, found.index, window, entry, similarity, found.locality, edited=not exact))
        return results

    def _search_elsewhere(self, entry: StepLock, annotation: AnnotationLock, found: _Found | None) -> tuple[Candidate | None, list[Candidate]]:
        """Layer 3: the exact text anywhere in the distribution, outside the (re)found target."""
        candidates: list[Candidate] = []
        for relpath in self._files_with_text(entry.texts[0], annotation)[:MAX_SEARCH_FILES]:
            indexed = self.reader.indexed(relpath)
            if indexed is None:
                continue
            source, index = indexed
            statements = index.statements
            for start, statement in enumerate(statements):
                if statement.text != entry.texts[0]:
                    continue
                if found is not None and relpath == found.source.relpath and found.definition.start_line <= statement.start_line <= found.definition.end_line:
                    continue
                window = statements[start : start + len(entry.texts)]
                if tuple(s.text for s in window) != entry.texts:
                    continue
                locality = max((jaccard(annotation.body, body_hashes(index, d)) for d in enclosing_definitions(index, statement)), default=0.0)
                candidates.append(_candidate(source, index, window, entry, 1.0, locality, same_function_is_local=True))
        return pick_moved(candidates)

    def _files_with_text(self, text: str, annotation: AnnotationLock) -> list[str]:
        return self.reader.files_with_text(text, near=annotation.relpath, hints=annotation.target.split("."))


def _definitions_named(index: ModuleIndex, qualname: str) -> list[Definition]:
    """Plain definitions (not property accessors) of ``qualname`` in a module."""
    return [d for d in index.definitions if d.qualname == qualname and d.accessor is None]


def _candidate(
    source: SourceFile,
    index: ModuleIndex,
    window: tuple[Statement, ...],
    entry: StepLock,
    similarity: float,
    locality: float,
    *,
    same_function_is_local: bool = False,
    edited: bool = False,
) -> Candidate:
    """Score the statements ``window`` as where ``entry`` may be now.

    With ``same_function_is_local``, a window inside the reviewed function (same fingerprint) gets locality 1.0;
    ``edited`` (a candidate for *changed*) scores neighbours that were edited or shifted too.
    """
    around = surroundings(index, window[0], window[-1])
    same_function = around.function_sha256 == entry.function_sha256
    if same_function and same_function_is_local:
        locality = 1.0
    context = context_agreement(entry, around.before, around.after, tolerant=edited)
    return Candidate(_statement_place(source, index, window), Scores(similarity, context, locality), same_function)


def _changed(entry: StepLock, best: Candidate, others: list[Candidate]) -> StepResult:
    ambiguous = close_runner_up(best, others)
    message = "edited in place" + (" (several statements are about as close; see candidates)" if ambiguous else "")
    return StepResult(entry, StepKind.CHANGED, 2, best.place, best.scores, tuple(others) if ambiguous else (), message, ambiguous)


def _statement_place(source: SourceFile, index: ModuleIndex, window: tuple[Statement, ...]) -> Place:
    """Where a run of statements is: the innermost enclosing function (else the outermost definition)."""
    definitions = enclosing_definitions(index, window[0])
    target = definitions[-1].qualname if definitions else ""
    functions = [d for d in definitions if d.kind is not DefinitionKind.CLASS]
    if functions:
        target = functions[0].qualname
    return Place(source.relpath, source.module, target, window[0].scope, (window[0].start_line, window[-1].end_line), tuple(s.text for s in window))


def _definition_place(source: SourceFile, definition: Definition) -> Place:
    return Place(source.relpath, source.module, definition.qualname, definition.qualname, (definition.start_line, definition.end_line), ())
