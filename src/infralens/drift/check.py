"""The drift check: every locked step classified against the sources being checked.

:func:`run_check` compares the lock with the annotation files (hash first: an
annotation file whose SHA-256 is recorded in the lock is not even parsed) and
then classifies each locked step and target with
:class:`~infralens.drift.match.matcher.DistributionMatcher`. It never writes a file.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from infralens.drift.lock.entries import AnnotationLock, Lock, StepLock, annotation_of
from infralens.drift.match import DistributionMatcher, ReviewedSources
from infralens.drift.match.results import StepKind, StepResult, TargetKind, TargetResult
from infralens.errors import InfralensError, Location, Severity
from infralens.hashing import sha256_file
from infralens.portable import portable, portable_path
from infralens.project import Project
from infralens.reports import CheckedTree, LockFindingKind
from infralens.resolve import Resolver, still_picks
from infralens.source import SHARED, SourceTree
from infralens.userfiles import journal_for, pending_note

if TYPE_CHECKING:
    from infralens.annotations import Annotation, Step
    from infralens.project import LoadedAnnotations

LOW_SEVERITY_TARGETS = frozenset({TargetKind.BODY_CHANGED, TargetKind.DECORATORS_CHANGED})
"""Target findings that fail the check only with ``--strict``: the body changed around the steps, a decorator changed."""


@dataclass(frozen=True)
class LockFinding:
    """One disagreement between the lock and the annotation files."""

    kind: LockFindingKind
    id: str
    """Annotation or step id."""
    path: str
    """Annotation file, relative to the project root."""
    line: int
    message: str


@dataclass(frozen=True)
class CheckReport:
    """Everything ``infralens check`` found; renderers turn it into text, JSON or CI annotations."""

    lock: Lock
    trees: tuple[CheckedTree, ...]
    targets: tuple[TargetResult, ...]
    steps: tuple[StepResult, ...]
    lock_findings: tuple[LockFinding, ...]
    strict: bool = False
    """Whether a target whose body changed around unchanged steps counts as drift."""
    lines: dict[str, int] = field(default_factory=dict)
    """Current YAML lines of ids in annotation files edited since the lock (others are as locked)."""

    def yaml_line(self, ident: str, locked: int) -> int:
        """Where annotation or step ``ident`` is in its YAML file now (``locked``: the line the lock recorded)."""
        return self.lines.get(ident, locked)

    def annotation_path(self, annotation_id: str) -> str:
        entry = self.lock.annotations.get(annotation_id)
        return entry.path if entry else "<unknown>"

    @property
    def drifted_steps(self) -> tuple[StepResult, ...]:
        return tuple(s for s in self.steps if s.kind is not StepKind.UNCHANGED)

    @property
    def target_findings(self) -> tuple[TargetResult, ...]:
        return tuple(t for t in self.targets if t.kind is not TargetKind.UNCHANGED)

    @property
    def clean(self) -> bool:
        serious_targets = [t for t in self.target_findings if self.strict or t.kind not in LOW_SEVERITY_TARGETS]
        return not (self.drifted_steps or serious_targets or self.lock_findings)

    def counts(self) -> dict[str, int]:
        """Steps per kind; ``unreadable`` only appears when some step is."""
        counts = {kind.value: 0 for kind in StepKind if kind is not StepKind.UNREADABLE}
        for step in self.steps:
            counts[step.kind.value] = counts.get(step.kind.value, 0) + 1
        return counts


# --------------------------------------------------------------------------
# Lock versus annotation files
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Consistency:
    active: tuple[AnnotationLock, ...]
    """Lock annotation entries to classify."""
    live_steps: frozenset[str]
    """Locked step ids that still exist in the annotations."""
    findings: tuple[LockFinding, ...]
    lines: dict[str, int] = field(default_factory=dict)
    """Current YAML line of each annotation and step id in an annotation file edited since the lock."""


def compare_with_annotations(project: Project, lock: Lock) -> _Consistency:
    """Which lock entries are still the annotations' truth; loads only files whose hash changed."""
    note = pending_note(journal_for(project.lock_path))  # a fix killed between its replaces: the next writer finishes it
    if note is not None:
        print(note, file=sys.stderr)
    files = project.annotation_files()
    on_disk = {project.relative(f): f for f in files}
    recorded: dict[str, list[AnnotationLock]] = {}
    for entry in lock.annotations.values():
        recorded.setdefault(entry.path, []).append(entry)
    changed: list[Path] = []
    for relative, path in on_disk.items():
        try:
            digest = sha256_file(path)  # a regular file only: a FIFO, device or linked folder is never waited on
        except OSError:
            digest = None  # counts as changed, so the loader reads it and says what is wrong
        entries = recorded.get(relative, [])
        if not entries or any(e.file_sha256 != digest for e in entries):
            changed.append(path)
    findings: list[LockFinding] = [LockFinding(LockFindingKind.HAND_EDITED, e.id, lock.display, e.line, e.message) for e in lock.hand_edited]
    active: list[AnnotationLock] = []
    live: set[str] = set()
    changed_relative = {project.relative(p) for p in changed}
    for relative, entries in recorded.items():
        if relative in changed_relative:
            continue
        if relative not in on_disk:
            for entry in entries:
                findings.append(
                    LockFinding(
                        LockFindingKind.STALE,
                        entry.id,
                        entry.path,
                        entry.yaml_line,
                        f"{entry.path} no longer exists; the lock still lists annotation {entry.id!r}",
                    )
                )
            continue
        active.extend(entries)
        for entry in entries:
            live.update(entry.steps)
            findings.extend(f for s in entry.steps for f in _under_review(entry.path, s, lock.steps[s].yaml_line, lock.steps[s].review))
    lines: dict[str, int] = {}
    if changed:
        _compare_loaded(project, lock, changed, findings, active, live, lines)
    return _Consistency(tuple(active), frozenset(live), tuple(findings), lines)


def _todo_findings(project: Project, loaded: LoadedAnnotations) -> list[LockFinding]:
    """A finding for each note or summary that still says TODO: unfinished work, not a file that fails to load."""
    found = []
    for diagnostic in loaded.diagnostics:
        if diagnostic.code != "todo":
            continue
        where = diagnostic.location
        owner = next((a for a in loaded.annotations if a.path == where.path), None)
        step = _step_at(owner, where.line) if owner is not None else None
        ident = owner.step_id(step) if owner is not None and step is not None else owner.id if owner is not None else where.path
        found.append(LockFinding(LockFindingKind.TODO, ident, where.path, where.line or 1, diagnostic.message))
    return found


def _step_at(annotation: Annotation, line: int | None) -> Step | None:
    """The step of *annotation* whose YAML starts last at or before *line*."""

    def start(step: Step) -> int:
        return step.location.line or 0 if step.location is not None else 0

    before = [step for step in annotation.steps if step.location is not None and line is not None and start(step) <= line]
    return max(before, key=start) if before else None


def _compare_loaded(
    project: Project, lock: Lock, changed: list[Path], findings: list[LockFinding], active: list[AnnotationLock], live: set[str], lines: dict[str, int]
) -> None:
    from infralens.project import load_annotations  # YAML + JSON Schema: only when an annotation file changed

    loaded = load_annotations(project, [str(p) for p in changed])
    errors = [d for d in loaded.diagnostics if d.severity is Severity.ERROR and d.code != "todo"]
    if errors:
        raise InfralensError("annotation files do not load; fix them (infralens validate) before checking drift", tuple(errors))
    findings.extend(_todo_findings(project, loaded))
    present = {a.id for a in loaded.annotations}
    changed_relative = {project.relative(p) for p in changed}
    for old in lock.annotations.values():
        if old.path in changed_relative and old.id not in present and old.id not in {a.id for a in active}:
            findings.append(LockFinding(LockFindingKind.STALE, old.id, old.path, old.yaml_line, f"annotation {old.id!r} is no longer in {old.path}"))
    for annotation in loaded.annotations:
        entry = _compare_annotation(lock, annotation, findings, lines)
        if entry is not None:
            active.append(entry)
            _compare_steps(lock, annotation, entry, findings, live)


def _compare_annotation(lock: Lock, annotation: Annotation, findings: list[LockFinding], lines: dict[str, int]) -> AnnotationLock | None:
    """Note the YAML lines of an annotation and its steps; its lock entry, or None (a finding) when it is not locked."""
    where = annotation.location or Location(annotation.path)
    lines[annotation.id] = where.line
    lines.update({annotation.step_id(step): (step.location or where).line for step in annotation.steps})
    entry = lock.annotations.get(annotation.id)
    if entry is None:
        findings.append(LockFinding(LockFindingKind.UNLOCKED, annotation.id, annotation.path, where.line, f"annotation {annotation.id!r} is not in the lock"))
        return None
    if (entry.distribution, f"{entry.module}.{entry.target}") != (annotation.source, annotation.target):
        findings.append(
            LockFinding(
                LockFindingKind.EDITED,
                annotation.id,
                annotation.path,
                where.line,
                f"target edited: locked {entry.module}.{entry.target}, now {annotation.target}",
            )
        )
    elif entry.path != annotation.path:
        findings.append(LockFinding(LockFindingKind.EDITED, annotation.id, annotation.path, where.line, f"annotation moved from {entry.path}"))
    return entry


def _compare_steps(lock: Lock, annotation: Annotation, entry: AnnotationLock, findings: list[LockFinding], live: set[str]) -> None:
    """Findings for the steps of a locked annotation: gone from the file, not locked, or no longer selecting; the rest are *live*."""
    where = annotation.location or Location(annotation.path)
    current = {annotation.step_id(step): step for step in annotation.steps}
    for step_id in entry.steps:
        if step_id not in current:
            gone = lock.steps[step_id]
            findings.append(
                LockFinding(LockFindingKind.STALE, step_id, annotation.path, gone.yaml_line, f"step {step_id} is in the lock but no longer in the annotation")
            )
    for step_id, step in current.items():
        location = step.at.location or step.location or where
        findings.extend(_under_review(annotation.path, step_id, (step.location or where).line, step.review or ""))
        locked = lock.steps.get(step_id)
        if locked is None or step_id not in entry.steps:
            findings.append(LockFinding(LockFindingKind.UNLOCKED, step_id, annotation.path, location.line, f"step {step_id} is not in the lock"))
        elif not still_picks(step.at, locked.texts):
            findings.append(
                LockFinding(
                    LockFindingKind.EDITED,
                    step_id,
                    annotation.path,
                    location.line,
                    f"selector {step.at.describe()} no longer selects the locked statement {_short(locked.texts[0])!r}",
                )
            )
            live.add(step_id)
        else:
            live.add(step_id)


def _under_review(path: str, step_id: str, line: int, review: str) -> list[LockFinding]:
    """The finding for a step whose ``review:`` mark is still there (none without one)."""
    if not review:
        return []
    return [LockFinding(LockFindingKind.UNDER_REVIEW, step_id, path, line, f"step {step_id} is under review: {_short(review, 160)}")]


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------
# The check
# --------------------------------------------------------------------------


def require_locked(lock: Lock, ids: Collection[str]) -> None:
    """Raise :class:`InfralensError` naming every id (annotation or ``annotation/step``) the lock lacks."""
    unknown = set(ids) - set(lock.annotations) - set(lock.steps)
    if unknown:
        raise InfralensError(f"not in the lock: {', '.join(sorted(unknown))} (ids are annotation ids or annotation/step ids)")


def run_check(
    project: Project,
    resolver: Resolver,
    lock: Lock,
    *,
    against: dict[str, SourceTree] | None = None,
    ids: Collection[str] | None = None,
    strict: bool = False,
    consistency: _Consistency | None = None,
    reviewed: dict[str, SourceTree] | None = None,
) -> CheckReport:
    """Classify every locked step (optionally only ``ids``: annotation or step ids) against the sources.

    ``reviewed``: the trees the lock was reviewed against, where the installed one or a cached wheel is not it (see
    :class:`~infralens.drift.match.reviewed.ReviewedSources`).

    ``consistency``: the lock compared with the annotation files already (a walk compares the reviewed lock once,
    then checks entries moved to each release: the active entries are then taken from ``lock`` by id).
    """
    consistency = consistency or compare_with_annotations(project, lock)
    against = against or {}
    matchers: dict[str, DistributionMatcher] = {}
    sources_as_reviewed = ReviewedSources(resolver, reviewed)
    targets: list[TargetResult] = []
    steps: list[StepResult] = []
    wanted = set(ids or ())
    require_locked(lock, wanted)
    chosen: list[tuple[AnnotationLock, list[StepLock], list[StepLock]]] = []
    for entry in sorted((lock.annotations.get(e.id, e) for e in consistency.active), key=lambda e: (e.path, e.id)):
        siblings = [lock.steps[s] for s in entry.steps if s in consistency.live_steps]
        shown = siblings if not wanted or entry.id in wanted else [s for s in siblings if s.step_id in wanted]
        if not shown:
            continue
        if entry.distribution not in matchers:
            tree = against.get(entry.distribution) or resolver.tree(entry.distribution)
            matchers[entry.distribution] = DistributionMatcher(resolver, tree, fast=entry.distribution in against, reviewed=sources_as_reviewed)
        chosen.append((entry, siblings, shown))
    _index_changed_files(resolver, matchers, [entry for entry, _, _ in chosen])
    for entry, siblings, shown in chosen:  # a step is decided with all its annotation's steps, whichever are shown
        matcher = matchers[entry.distribution]
        targets.append(matcher.target(entry, siblings)[0])
        for step in shown:
            steps.append(matcher.step(step, entry, siblings))
    trees = tuple(CheckedTree(d, m.tree.version, _shown_origin(project, m.tree.origin)) for d, m in sorted(matchers.items()))
    findings = tuple(f for f in consistency.findings if not wanted or f.id in wanted or annotation_of(f.id) in wanted)
    return CheckReport(lock, trees, tuple(targets), tuple(steps), findings, strict, consistency.lines)


_INSTALLED = "installed at "


_PACKAGES_FOLDER = re.compile(r"/(?:lib/python[\d.]*|Lib)/(?:site|dist)-packages$")


def _shown_origin(project: Project, origin: str) -> str:
    """*origin* as a report shows it, with no path of the machine that wrote it (the report is committed): an install
    inside the project by its environment folder (``installed in .venv``), one outside it from ``site-packages`` on,
    a wheel or folder by its name (:func:`infralens.portable.portable_path`)."""
    if origin.startswith(_INSTALLED):
        where = project.relative(origin.removeprefix(_INSTALLED))
        if not Path(where).is_absolute():
            return f"installed in {_PACKAGES_FOLDER.sub('', where)}"
        return _INSTALLED + portable_path(where)
    return portable_path(origin) if Path(origin).is_absolute() else portable(origin)


def _index_changed_files(resolver: Resolver, matchers: dict[str, DistributionMatcher], entries: list[AnnotationLock]) -> None:
    """Index, in parallel, the target files whose content differs from the lock.

    Files identical to what was locked are classified without parsing, so they are left alone;
    this only pays off for ``--against`` another release or after an upgrade.
    """
    changed: dict[bool, list[tuple[str, str]]] = {False: [], True: []}
    for entry in entries:
        matcher = matchers[entry.distribution]
        source = matcher.source(entry.relpath)
        if source is not None and source.sha256 != entry.source_sha256:
            changed[matcher.reader.fast].append((source.text, source.sha256))
    SHARED.index(resolver.cache, changed[True], fast=True)  # started on the workers the later searches use; waited for when first read
    resolver.cache.index_many(changed[False])
