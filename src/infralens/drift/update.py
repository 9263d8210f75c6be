"""What ``infralens lock`` does: resolve annotations into entries, choose which to rewrite, write the lock.

A plain lock rewrites the whole file (keeping its preamble and entry comments). ``lock --update``
accepts the named annotations or steps (default: every one that drifted) and rewrites only their
entries, keeping every other byte. Both hold the project's writer lock from reading the annotation files to
writing the lock, so ``add`` and ``fix`` never write in between, and record each file's hash of the very bytes
that were parsed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from enum import Enum

from infralens.drift.check import CheckReport, run_check
from infralens.drift.lock.entries import AnnotationLock, EntryKind, Lock, LockEntry, StepLock, annotation_of, lock_key
from infralens.drift.lock.facts import entries_for
from infralens.drift.lock.file import compose, finish_interrupted_write, read_lock_text, write_lock_file, writer_lock
from infralens.drift.lock.text import LockText
from infralens.errors import Diagnostic, InfralensError, LockfileError, Severity
from infralens.project import LoadedAnnotations, Project, load_annotations
from infralens.resolve import Resolver
from infralens.source import UNKNOWN_VERSION, SourceTree


@dataclass(frozen=True)
class BuiltEntries:
    """Lock entries for the annotations as they are now."""

    entries: tuple[LockEntry, ...]
    diagnostics: tuple[Diagnostic, ...]
    failed: frozenset[str]
    """Annotation ids that did not resolve (their old entries must be kept)."""


def build_entries(project: Project, resolver: Resolver, paths: list[str] | None = None) -> BuiltEntries:
    """Resolve annotations (all, or those in ``paths``) into lock entries.

    Each entry records the SHA-256 of exactly the bytes its annotations were parsed from (:func:`load_as_hashed`),
    never of a file read later: a file saved in between would otherwise be recorded with the old file's steps, and
    ``check``, which trusts a matching hash, would call the new steps locked.
    """
    loaded, digests = load_as_hashed(project, paths)
    diagnostics = [d for d in loaded.diagnostics if d.severity is Severity.ERROR]
    entries: list[LockEntry] = []
    failed: set[str] = set()
    hashes: dict[str, str] = {}
    origins: dict[str, tuple[str, str]] = {}
    for annotation in loaded.annotations:
        resolved, problems = resolver.resolve_annotation(annotation)
        if resolved is None:
            diagnostics.extend(problems)
            failed.add(annotation.id)
            continue
        path = annotation.path
        if path not in hashes:
            digest = digests.get(path)
            if digest is None:
                raise InfralensError(f"{path}: the file could not be read again to record its hash; nothing was written — run 'infralens lock' again")
            hashes[path] = digest
        tree = resolver.tree(annotation.source)
        if tree.distribution not in origins:
            refuse_unknown_version(tree)
            origins[tree.distribution] = (tree.kind, tree.content_sha256())
        kind, digest = origins[tree.distribution]
        built = entries_for(resolved, resolver.index(resolved.target.source), path, hashes[path])
        entries.extend(replace(e, origin=kind, sources_sha256=digest) if isinstance(e, AnnotationLock) else e for e in built)
    bad_files = {d.location.path for d in diagnostics}
    failed.update(a.id for a in loaded.annotations if a.path in bad_files)
    return BuiltEntries(tuple(entries), tuple(diagnostics), frozenset(failed))


def load_as_hashed(project: Project, paths: list[str] | None = None) -> tuple[LoadedAnnotations, dict[str, str | None]]:
    """The annotations and, per file (as ``Annotation.path`` names it), the SHA-256 of the bytes they were parsed from.

    The loader reads each file once and hashes the very bytes it parses (``LoadResult.sha256``), so a file saved
    while ``lock`` runs is recorded either with its old steps and its old hash, or with its new steps and its new
    hash — never the new hash with the old steps, which ``check`` would then trust.
    """
    loaded = load_annotations(project, paths)
    return loaded, dict(loaded.sha256)


def refuse_unknown_version(tree: SourceTree) -> None:
    """Raise when nothing names the release of ``tree``: a lock entry must say what was reviewed."""
    if tree.version != UNKNOWN_VERSION:
        return
    where = getattr(tree, "root", tree.origin)
    raise InfralensError(
        f"{tree.distribution} read from {where} names no version (no {tree.distribution}-*.dist-info metadata and no __version__ in its "
        f"__init__.py), so the lock could not say what was reviewed; nothing was written — name the release: "
        f"infralens --source {tree.distribution}==VERSION={where} lock"
    )


class LockAction(Enum):
    """What ``infralens lock`` did."""

    WROTE = "wrote"
    """Wrote the whole lock."""
    REFUSED = "refused"
    """Wrote nothing: some annotations have errors (do not load or resolve) (a whole lock needs all of them)."""
    UPDATED = "updated"
    """Rewrote, added or removed the chosen entries."""
    UNCHANGED = "unchanged"
    """``--update`` found nothing to rewrite."""


@dataclass(frozen=True)
class LockOutcome:
    """The result of ``infralens lock``, for the command to report."""

    action: LockAction
    display: str
    """The lock's path as messages show it."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """Problems to show: why annotations have errors."""
    unresolved: tuple[str, ...] = ()
    """Annotations that do not resolve, sorted: all of them when refused; with ``--update``, the chosen
    ones whose entries were kept as they were."""
    annotations: int = 0
    """Annotation entries written (whole lock)."""
    steps: int = 0
    """Step entries written (whole lock)."""
    rewritten: int = 0
    """Entries rewritten or added (``--update``)."""
    removed: int = 0
    """Entries removed (``--update``)."""

    @property
    def complete(self) -> bool:
        """Everything asked for is in the lock."""
        return self.action is not LockAction.REFUSED and not self.unresolved


def write_lock(project: Project, resolver: Resolver, *, update: bool, ids: Collection[str] = ()) -> LockOutcome:
    """Write the whole lock, or with ``update`` only the entries of ``ids`` (default: of everything drifted)."""
    display = project.relative(project.lock_path)
    with writer_lock(project.lock_path):  # from reading the annotations to writing the lock: no add or fix in between
        finish_interrupted_write(project.lock_path, project.root)
        built = build_entries(project, resolver)
        if update:
            old = read_lock_text(project.lock_path, display)  # a missing or broken lock cannot be updated
            return _update(project, resolver, old, built, ids, display)
        return _write_whole(project, display, built)


def _write_whole(project: Project, display: str, built: BuiltEntries) -> LockOutcome:
    path = project.lock_path
    if built.diagnostics:
        return LockOutcome(LockAction.REFUSED, display, built.diagnostics, tuple(sorted(built.failed)))
    old: LockText | None = None
    if path.exists():
        try:
            old = read_lock_text(path, display)  # keeps its preamble and entry comments
        except LockfileError:
            old = None  # a whole lock replaces a broken file
    write_lock_file(path, compose(old, list(built.entries), None, set()), within=project.root)
    steps = sum(1 for e in built.entries if isinstance(e, StepLock))
    return LockOutcome(LockAction.WROTE, display, annotations=len(built.entries) - steps, steps=steps)


def _update(project: Project, resolver: Resolver, old: LockText, built: BuiltEntries, ids: Collection[str], display: str) -> LockOutcome:
    chosen = select(ids, old.lock, built, lambda: run_check(project, resolver, old.lock))
    blocked = tuple(sorted(i for i in chosen.annotations if i in built.failed))
    shown = built.diagnostics if blocked else ()
    plan = plan_rewrite(chosen, old.lock, built)
    if not plan.replace and not plan.remove:
        return LockOutcome(LockAction.UNCHANGED, display, shown, blocked)
    write_lock_file(project.lock_path, compose(old, list(plan.entries), plan.replace, plan.remove), within=project.root)
    return LockOutcome(LockAction.UPDATED, display, shown, blocked, rewritten=len(plan.replace), removed=len(plan.remove))


# --------------------------------------------------------------------------
# Which entries to rewrite
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """What ``lock --update`` accepts: whole annotations, or single steps of them."""

    annotations: frozenset[str]
    """Every annotation concerned (those of single steps included)."""
    steps: frozenset[str]
    """Single steps named; an annotation with none here is accepted whole."""

    def steps_of(self, annotation_id: str) -> frozenset[str]:
        """The single steps named for one annotation."""
        return frozenset(s for s in self.steps if annotation_of(s) == annotation_id)


def select(ids: Collection[str], lock: Lock, built: BuiltEntries, check: Callable[[], CheckReport]) -> Selection:
    """Which annotations/steps to accept: the named ones, or every drifted one (``check`` runs the drift check)."""
    if not ids:
        report = check()
        drifted = {s.entry.annotation for s in report.drifted_steps}
        drifted |= {t.entry.id for t in report.target_findings}
        drifted |= {annotation_of(f.id) for f in report.lock_findings}
        return Selection(frozenset(drifted), frozenset())
    current = {e.id for e in built.entries if isinstance(e, AnnotationLock)} | set(built.failed)
    current_steps = {e.step_id for e in built.entries if isinstance(e, StepLock)}
    annotations: set[str] = set()
    steps: set[str] = set()
    for item in ids:
        if "/" in item:
            if item not in lock.steps and item not in current_steps:
                raise InfralensError(f"{item}: no such step in the lock or the annotations")
            steps.add(item)
            annotations.add(annotation_of(item))
        else:
            if item not in lock.annotations and item not in current:
                raise InfralensError(f"{item}: no such annotation in the lock or the annotations")
            annotations.add(item)
    return Selection(frozenset(annotations), frozenset(steps))


@dataclass(frozen=True)
class Rewrite:
    """A partial rewrite of the lock: keys (``kind:id``) to rewrite or add, keys to remove, and the entries to write."""

    replace: frozenset[str]
    remove: frozenset[str]
    entries: tuple[LockEntry, ...]
    """The built entries, where accepting single steps must not accept the rest of their annotation."""


def plan_rewrite(chosen: Selection, lock: Lock, built: BuiltEntries) -> Rewrite:
    """The lock keys to rewrite/add and to remove for the chosen annotations (or single steps)."""
    rewrite: set[str] = set()
    remove: set[str] = set()
    overrides: dict[str, LockEntry] = {}
    new_by_annotation: dict[str, list[LockEntry]] = {}
    for entry in built.entries:
        new_by_annotation.setdefault(entry.owner, []).append(entry)
    for annotation_id in chosen.annotations:
        if annotation_id in built.failed:
            continue
        fresh = new_by_annotation.get(annotation_id, [])
        fresh_keys = {e.key for e in fresh}
        only_steps = chosen.steps_of(annotation_id)
        previous = lock.annotations.get(annotation_id)
        if only_steps and previous is not None:
            # Single steps: rewrite those and the annotation entry (its step list and file hash).
            step_keys = {lock_key(EntryKind.STEP, s) for s in only_steps}
            rewrite.update(step_keys & fresh_keys)
            remove.update(step_keys - fresh_keys)
            head = next((e for e in fresh if isinstance(e, AnnotationLock)), None)
            if head is not None:
                kept = tuple(s for s in head.steps if s in previous.steps or s in only_steps)
                # The old file hash stays: steps not accepted here are still reported until accepted.
                overrides[head.key] = replace(head, steps=kept, file_sha256=previous.file_sha256)
                rewrite.add(head.key)
            continue
        rewrite.update(fresh_keys)
        if previous is not None:
            remove.update({lock_key(EntryKind.STEP, s) for s in previous.steps} - fresh_keys)
            if not fresh:
                remove.add(previous.key)
    entries = tuple(overrides.get(e.key, e) for e in built.entries)
    return Rewrite(frozenset(rewrite), frozenset(remove), entries)
