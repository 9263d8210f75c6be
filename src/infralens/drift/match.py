"""Re-find locked statements in a (possibly newer) source tree and classify them.

Layers, strictest first:

0. the file's SHA-256 equals the lock's → unchanged, nothing is parsed;
1. the exact text at the hinted line inside the target;
2. the exact text elsewhere inside the target's span (or the target's new home);
3. a search across the whole distribution: files are prefiltered by tokens of the
   statement (a bytes search) and by a whitespace-tolerant regex before any parse.

Locality (is it the same function?) and text similarity (difflib ratio on the
normalised text) are scored separately and thresholded separately, together with
neighbour-context agreement. A statement found only somewhere else is *moved* only
when that place's function matches the reviewed one and exactly one candidate scores
best; the same line copied into other pipelines never counts as unchanged.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from infralens.drift.facts import body_hashes, enclosing_definitions, jaccard, surroundings
from infralens.drift.lock import AnnotationLock, StepLock
from infralens.drift.results import (
    CHANGED_SIMILARITY,
    CHANGED_SIMILARITY_CONFIDENT,
    MOVED_CONTEXT,
    MOVED_LOCALITY,
    Candidate,
    Place,
    Scores,
    StepKind,
    StepResult,
    TargetKind,
    TargetResult,
)
from infralens.errors import InfralensError
from infralens.resolve import Resolver
from infralens.source import Definition, ModuleIndex, SourceFile, SourceTree, Statement

ASSIGNMENT_SIMILARITY = 0.3
"""Minimum similarity when the only statement assigning the same name is taken as the edited one."""
TARGET_RENAMED_SIMILARITY = 0.6
MAX_SEARCH_FILES = 16
"""At most this many files are indexed per distribution-wide search (best-ranked first)."""
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_COMMON = {
    "self",
    "None",
    "True",
    "False",
    "return",
    "import",
    "from",
    "else",
    "elif",
    "lambda",
    "while",
    "with",
    "yield",
    "assert",
    "raise",
    "pass",
    "break",
    "continue",
    "class",
    "async",
    "await",
    "torch",
}


@dataclass(frozen=True)
class _Found:
    """A target definition bound to a file in the checked tree."""

    source: SourceFile
    index: ModuleIndex
    definition: Definition
    locality: float
    in_place: bool


def ratio(left: str, right: str) -> float:
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    if matcher.real_quick_ratio() < CHANGED_SIMILARITY / 2:
        return matcher.real_quick_ratio() / 2
    return matcher.ratio()


def context_agreement(entry: StepLock, before: tuple[str, ...], after: tuple[str, ...]) -> float:
    """Share of the recorded neighbours found at the same distance (1.0 when both sides record none)."""
    recorded = len(entry.before) + len(entry.after)
    if recorded == 0:
        return 1.0 if not before and not after else 0.5
    hits = sum(1 for k in range(1, len(entry.before) + 1) if len(before) >= k and before[-k] == entry.before[-k])
    hits += sum(1 for k in range(len(entry.after)) if len(after) > k and after[k] == entry.after[k])
    return hits / recorded


class DistributionMatcher:
    """Classifies locked annotations and steps against one source tree."""

    def __init__(self, resolver: Resolver, tree: SourceTree) -> None:
        self.resolver = resolver
        self.tree = tree
        self._bytes: dict[str, bytes | None] = {}
        self._sources: dict[str, SourceFile | None] = {}
        self._targets: dict[str, tuple[TargetResult, _Found | None]] = {}

    # -- reading ------------------------------------------------------------

    def source(self, relpath: str) -> SourceFile | None:
        if relpath not in self._sources:
            found = None
            if self._exists(relpath):
                try:
                    found = self.resolver.source_file(self.tree, relpath)
                except InfralensError:
                    found = None
            self._sources[relpath] = found
        return self._sources[relpath]

    def _exists(self, relpath: str) -> bool:
        try:
            return self.tree._exists(relpath)
        except InfralensError:
            return False

    def _read_bytes(self, relpath: str) -> bytes | None:
        if relpath not in self._bytes:
            try:
                self._bytes[relpath] = self.tree.read_bytes(relpath)
            except InfralensError:
                self._bytes[relpath] = None
        return self._bytes[relpath]

    def _index(self, source: SourceFile) -> ModuleIndex | None:
        index = self.resolver.index(source)
        return None if index.syntax_error else index

    # -- targets ------------------------------------------------------------

    def target(self, entry: AnnotationLock, steps: list[StepLock]) -> tuple[TargetResult, _Found | None]:
        if entry.id not in self._targets:
            self._targets[entry.id] = self._classify_target(entry, steps)
        return self._targets[entry.id]

    def _classify_target(self, entry: AnnotationLock, steps: list[StepLock]) -> tuple[TargetResult, _Found | None]:
        source = self.source(entry.relpath)
        if source is not None and source.sha256 == entry.source_sha256:
            definition_place = Place(entry.relpath, entry.module, entry.target, entry.target, entry.span, ())
            return TargetResult(entry, TargetKind.UNCHANGED, definition_place, 1.0, "source file unchanged"), None
        if source is not None:
            index = self._index(source)
            if index is not None:
                same = [d for d in index.definitions if d.qualname == entry.target and d.accessor is None]
                if same:
                    best = max(same, key=lambda d: jaccard(entry.body, body_hashes(index, d)))
                    found = _Found(source, index, best, 1.0, True)
                    similarity = jaccard(entry.body, body_hashes(index, best))
                    kind = TargetKind.UNCHANGED if body_hashes(index, best) == entry.body else TargetKind.BODY_CHANGED
                    message = "body unchanged" if kind is TargetKind.UNCHANGED else f"body changed around the steps (statement overlap {similarity:.2f})"
                    return TargetResult(entry, kind, _definition_place(source, best), similarity, message, 1), found
        moved = self._same_qualname_elsewhere(entry)
        if moved is not None:
            similarity = jaccard(entry.body, body_hashes(moved.index, moved.definition))
            message = f"{entry.module}.{entry.target} now lives in {moved.source.module} (statement overlap {similarity:.2f})"
            return TargetResult(entry, TargetKind.MOVED, _definition_place(moved.source, moved.definition), similarity, message, 3), moved
        renamed = self._renamed(entry, steps)
        if renamed is not None:
            similarity = jaccard(entry.body, body_hashes(renamed.index, renamed.definition))
            message = f"{entry.target} looks renamed to {renamed.source.module}.{renamed.definition.qualname} (statement overlap {similarity:.2f})"
            return TargetResult(entry, TargetKind.RENAMED, _definition_place(renamed.source, renamed.definition), similarity, message, 3), renamed
        return TargetResult(entry, TargetKind.DELETED, None, 0.0, f"{entry.module}.{entry.target} is not defined anywhere in {self.tree.describe()}", 3), None

    def _in_place(self, entry: AnnotationLock) -> _Found | None:
        """The target at its recorded place (its file is byte-identical to the lock's)."""
        source = self.source(entry.relpath)
        index = self._index(source) if source else None
        if index is None:
            return None
        same = [d for d in index.definitions if d.qualname == entry.target and d.accessor is None]
        best = min(same, key=lambda d: abs(d.start_line - entry.span[0]), default=None)
        return _Found(source, index, best, 1.0, True) if best else None

    def _same_qualname_elsewhere(self, entry: AnnotationLock) -> _Found | None:
        names = entry.target.split(".")
        patterns = [re.compile(rb"(?m)^\s*(?:async\s+def|def|class)\s+" + re.escape(n.encode()) + rb"\b") for n in names]
        best: tuple[float, _Found] | None = None
        for relpath in self.tree.iter_python_files():
            if relpath == entry.relpath:
                continue
            data = self._read_bytes(relpath)
            if data is None or not all(p.search(data) for p in patterns):
                continue
            source = self.source(relpath)
            index = self._index(source) if source else None
            if index is None:
                continue
            for definition in index.definitions:
                if definition.qualname == entry.target and definition.accessor is None:
                    score = jaccard(entry.body, body_hashes(index, definition))
                    if best is None or score > best[0]:
                        best = (score, _Found(source, index, definition, 0.9, False))
        if best is None or best[0] < 0.3:
            return None
        return best[1]

    def _renamed(self, entry: AnnotationLock, steps: list[StepLock]) -> _Found | None:
        relpaths = [entry.relpath] if self.source(entry.relpath) else []
        for step in steps[:3]:
            relpaths.extend(r for r in self._files_with_text(step.texts[0], entry)[:4] if r not in relpaths)
        scored: list[tuple[float, _Found]] = []
        for relpath in relpaths:
            source = self.source(relpath)
            index = self._index(source) if source else None
            if index is None:
                continue
            for definition in index.definitions:
                if definition.kind.value != entry.kind:
                    continue
                score = jaccard(entry.body, body_hashes(index, definition))
                if score >= TARGET_RENAMED_SIMILARITY:
                    scored.append((score, _Found(source, index, definition, 0.8, False)))
        scored.sort(key=lambda item: -item[0])
        if not scored or (len(scored) > 1 and scored[1][0] >= scored[0][0] - 0.05):
            return None
        return scored[0][1]

    # -- steps --------------------------------------------------------------

    def step(self, entry: StepLock, annotation: AnnotationLock, siblings: list[StepLock]) -> StepResult:
        source = self.source(entry.relpath)
        if source is not None and source.sha256 == entry.file_sha256:
            place = Place(entry.relpath, entry.module, entry.target, entry.scope, entry.lines, entry.texts)
            return StepResult(entry, StepKind.UNCHANGED, 0, place, Scores(1.0, 1.0, 1.0), (), "source file unchanged")
        target_result, found = self.target(annotation, siblings)
        if found is None and target_result.kind is TargetKind.UNCHANGED:
            found = self._in_place(annotation)
        similar: Candidate | None = None
        others: list[Candidate] = []
        if found is not None:
            pool = found.index.statements_within(found.definition.start_line, found.definition.end_line)
            exact = self._units(found, pool, entry, exact=True)
            if exact:
                chosen, ambiguous = _pick_exact(exact, entry)
                if found.in_place:
                    layer = 1 if chosen.place.lines[0] == entry.lines[0] else 2
                    return StepResult(entry, StepKind.UNCHANGED, layer, chosen.place, chosen.scores, (), "same statement in the same target", ambiguous)
                return StepResult(entry, StepKind.MOVED, 2, chosen.place, chosen.scores, (), f"the target moved ({target_result.kind.value})", ambiguous)
            claimed = [s.texts for s in siblings if s.step_id != entry.step_id]
            ranked = [c for c in self._units(found, pool, entry, exact=False) if not _claimed_by_sibling(c, claimed)]
            ranked.sort(key=_changed_rank, reverse=True)
            ranked = [c for c in ranked if _acceptable_change(c)]
            if not ranked:
                ranked = self._same_assignment(found, pool, entry, claimed)
            if ranked:
                similar, others = ranked[0], ranked[1:4]
                if similar.scores.similarity >= CHANGED_SIMILARITY_CONFIDENT and similar.scores.context >= 0.5:
                    return self._changed(entry, similar, others)
        moved, rivals = self._search_elsewhere(entry, annotation, found)
        if moved is not None:
            return StepResult(entry, StepKind.MOVED, 3, moved.place, moved.scores, tuple(rivals), f"found in {moved.place.target or moved.place.module}")
        if similar is not None:
            return self._changed(entry, similar, others)
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
        around = surroundings(found.index, same[0])
        similarity = ratio(entry.texts[0], same[0].text)
        if similarity < ASSIGNMENT_SIMILARITY:
            return []
        context = context_agreement(entry, around.before, around.after)
        place = _statement_place(found.source, found.index, (same[0],))
        return [Candidate(place, Scores(similarity, context, found.locality), around.function_sha256 == entry.function_sha256)]

    def _changed(self, entry: StepLock, best: Candidate, others: list[Candidate]) -> StepResult:
        ambiguous = bool(others) and _changed_rank(others[0]) >= _changed_rank(best) - 0.02
        message = "edited in place" + (" (several statements are about as close; see candidates)" if ambiguous else "")
        return StepResult(entry, StepKind.CHANGED, 2, best.place, best.scores, tuple(others) if ambiguous else (), message, ambiguous)

    def _units(self, found: _Found, pool: tuple[Statement, ...], entry: StepLock, *, exact: bool) -> list[Candidate]:
        """Candidate statement runs (as long as the locked block) inside ``pool``."""
        size = len(entry.texts)
        wanted = "\n".join(entry.texts)
        results = []
        for start in range(max(0, len(pool) - size + 1)):
            window = pool[start : start + size]
            if exact:
                if tuple(s.text for s in window) != entry.texts:
                    continue
                similarity = 1.0
            else:
                similarity = ratio(wanted, "\n".join(s.text for s in window))
                if similarity < 0.45:
                    continue
            around = surroundings(found.index, window[0], window[-1])
            context = context_agreement(entry, around.before, around.after)
            place = _statement_place(found.source, found.index, window)
            results.append(Candidate(place, Scores(similarity, context, found.locality), around.function_sha256 == entry.function_sha256))
        return results

    def _search_elsewhere(self, entry: StepLock, annotation: AnnotationLock, found: _Found | None) -> tuple[Candidate | None, list[Candidate]]:
        """Layer 3: the exact text anywhere in the distribution, outside the (re)found target."""
        candidates: list[Candidate] = []
        for relpath in self._files_with_text(entry.texts[0], annotation)[:MAX_SEARCH_FILES]:
            source = self.source(relpath)
            index = self._index(source) if source else None
            if index is None:
                continue
            statements = index.statements
            for start, statement in enumerate(statements):
                if statement.text != entry.texts[0]:
                    continue
                if found is not None and relpath == found.source.relpath and found.definition.start_line <= statement.start_line <= found.definition.end_line:
                    continue
                window = _block_window(statements, start, entry)
                if window is None:
                    continue
                around = surroundings(index, window[0], window[-1])
                locality = max((jaccard(annotation.body, body_hashes(index, d)) for d in enclosing_definitions(index, statement)), default=0.0)
                same_function = around.function_sha256 == entry.function_sha256
                if same_function:
                    locality = 1.0
                context = context_agreement(entry, around.before, around.after)
                candidates.append(Candidate(_statement_place(source, index, window), Scores(1.0, context, locality), same_function))
        candidates.sort(key=lambda c: (c.function_same, c.scores.locality + c.scores.context), reverse=True)
        good = [c for c in candidates if c.function_same or (c.scores.locality >= MOVED_LOCALITY and c.scores.context >= MOVED_CONTEXT)]
        if not good:
            return None, candidates
        best = good[0]
        rivals = [
            c
            for c in good[1:]
            if c.function_same == best.function_same and c.scores.locality + c.scores.context >= best.scores.locality + best.scores.context - 0.05
        ]
        if rivals:
            return None, candidates  # two equally good homes: ambiguous, never guess
        return best, [c for c in candidates if c is not best]

    def _files_with_text(self, text: str, annotation: AnnotationLock) -> list[str]:
        """Files whose text contains the statement's tokens in order, best-ranked first."""
        words = sorted({w for w in _WORD.findall(text) if w not in _COMMON}, key=len, reverse=True)[:3]
        needles = [w.encode() for w in words]
        pattern = _flexible_pattern(text)
        hints = [p.encode() for p in annotation.target.split(".")]
        hits: list[tuple[tuple, str]] = []
        for relpath in self.tree.iter_python_files():
            data = self._read_bytes(relpath)
            if data is None or not all(n in data for n in needles):
                continue
            if pattern is not None and not pattern.search(data):
                continue
            rank = (sum(1 for h in hints if h in data), _common_prefix(relpath, annotation.relpath))
            hits.append((rank, relpath))
        hits.sort(key=lambda item: item[0], reverse=True)
        return [relpath for _, relpath in hits]


def _acceptable_change(candidate: Candidate) -> bool:
    """Text similarity and neighbour agreement, thresholded together: weak text needs context."""
    s = candidate.scores
    if s.similarity >= CHANGED_SIMILARITY_CONFIDENT:
        return True
    if s.similarity >= CHANGED_SIMILARITY:
        return s.context > 0.0
    return s.similarity >= 0.45 and s.context >= 1.0


def assigned_name(text: str) -> str | None:
    """The target of a plain assignment in normalised text (``a . b = ...`` → ``a . b``), else None."""
    tokens = text.split(" ")
    if "=" not in tokens:
        return None
    left = tokens[: tokens.index("=")]
    if not left or len(left) > 9 or any(t in ("(", "[", "{", "lambda", "if", "for", "def", "class") for t in left):
        return None
    return " ".join(left)


def _claimed_by_sibling(candidate: Candidate, sibling_texts: list[tuple[str, ...]]) -> bool:
    """A statement belongs to the locked step it resembles most: skip those closer to another step."""
    text = "\n".join(candidate.place.texts)
    return any(ratio(text, "\n".join(other)) > candidate.scores.similarity for other in sibling_texts)


def _changed_rank(candidate: Candidate) -> float:
    return 0.7 * candidate.scores.similarity + 0.3 * candidate.scores.context


def _pick_exact(candidates: list[Candidate], entry: StepLock) -> tuple[Candidate, bool]:
    if len(candidates) == 1:
        return candidates[0], False
    best_context = max(c.scores.context for c in candidates)
    top = [c for c in candidates if c.scores.context == best_context]
    if len(top) == 1:
        return top[0], False
    if 1 <= entry.occurrence <= len(candidates):
        return candidates[entry.occurrence - 1], True
    return min(top, key=lambda c: abs(c.place.lines[0] - entry.lines[0])), True


def _block_window(statements: tuple[Statement, ...], start: int, entry: StepLock) -> tuple[Statement, ...] | None:
    window = statements[start : start + len(entry.texts)]
    if tuple(s.text for s in window) != entry.texts:
        return None
    return window


def _statement_place(source: SourceFile, index: ModuleIndex, window: tuple[Statement, ...]) -> Place:
    definitions = enclosing_definitions(index, window[0])
    target = definitions[-1].qualname if definitions else ""
    functions = [d for d in definitions if d.kind.value != "class"]
    if functions:
        target = functions[0].qualname
    return Place(source.relpath, source.module, target, window[0].scope, (window[0].start_line, window[-1].end_line), tuple(s.text for s in window))


def _definition_place(source: SourceFile, definition: Definition) -> Place:
    return Place(source.relpath, source.module, definition.qualname, definition.qualname, (definition.start_line, definition.end_line), ())


def _flexible_pattern(text: str) -> re.Pattern[bytes] | None:
    """A bytes regex matching ``text``'s tokens separated by any layout, comments or line continuations."""
    tokens = text.split()[:400]  # any whitespace, no empty pieces (adjacent gaps would backtrack badly)
    if not tokens:
        return None
    gap = rb"(?:\s|\\\n|#[^\n]*)*"
    pieces = []
    for token in tokens:
        piece = re.escape(token.encode("utf-8"))
        if token in (")", "]", "}"):
            piece = b"(?:," + gap + b")?" + piece  # the normaliser drops magic trailing commas
        pieces.append(piece)
    try:
        return re.compile(gap.join(pieces))
    except re.error:
        return None


def _common_prefix(left: str, right: str) -> int:
    count = 0
    for a, b in zip(left.split("/"), right.split("/")):
        if a != b:
            break
        count += 1
    return count
