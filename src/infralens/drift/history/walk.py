"""Walking the releases in between: a check against a far release made of one check per release step.

A direct comparison of a statement reviewed in 0.30 with 0.42 misses it when it was renamed in one
release and edited in another: neither the text nor the place still matches. The walk compares release
by release instead (as CodeTracker follows commits): the statement found in release *k* becomes the
reviewed statement for the comparison with release *k + 1* (its text, neighbours and place, measured
with the lock's own :mod:`~infralens.drift.lock.facts`), and the kinds of the hops compose into one:
*deleted* if the last hop lost it (a release that misses it is a gap when a later one finds it again, and a
gap reads at least *changed*), *unreadable* if a hop could not read it, *changed* if any hop edited it, *moved* if any hop moved it, else
*unchanged*. The result keeps the original reviewed entry, so its diff
runs from the reviewed text to the last release's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from infralens.drift.check import CheckReport, compare_with_annotations, require_locked, run_check
from infralens.drift.lock.entries import AnnotationLock, Lock, StepLock, annotation_of, text_hash
from infralens.drift.lock.facts import definition_facts, occurrence_in, surroundings
from infralens.drift.match import TreeReader
from infralens.drift.match.results import StepKind, StepResult, TargetKind, TargetResult
from infralens.errors import InfralensError, SourceNotFoundError
from infralens.project import Project
from infralens.resolve import Resolver
from infralens.source import Definition, ModuleIndex, SourceTree, WheelTree, cached_wheel, fetch_wheel, list_releases, select_releases, version_key

STEP_ORDER = (StepKind.UNCHANGED, StepKind.MOVED, StepKind.CHANGED, StepKind.UNREADABLE, StepKind.DELETED)
"""Step kinds from weakest to strongest: a walk's kind is the strongest of its hops'."""

TARGET_ORDER = (
    TargetKind.UNCHANGED,
    TargetKind.DECORATORS_CHANGED,
    TargetKind.BODY_CHANGED,
    TargetKind.MOVED,
    TargetKind.RENAMED,
    TargetKind.UNREADABLE,
    TargetKind.DELETED,
)
"""Target kinds from weakest to strongest, composed the same way."""

Progress = Callable[[str], None]

FILE_UNCHANGED = "file-unchanged"
"""The rule of a target or step whose file is byte-identical: its entry carries over without parsing."""


@dataclass(frozen=True)
class Hop:
    """One release step of a walk: the release and the check of the previous release's places against it."""

    version: str
    report: CheckReport


def compose_steps(kinds: Sequence[StepKind]) -> StepKind:
    """The kind of a walk from its hops' kinds (unchanged only when every hop is).

    *Deleted* only when the last hop lost the statement: a hop that misses it keeps the last place it was
    found, and a later hop that finds it again (a statement gone for a release, or a hop that could not
    place it) makes that gap no deletion. A gap still counts as *changed* at least: what was found again
    may be another copy, so a walk with a gap never reads *unchanged*.
    """
    if kinds and kinds[-1] is StepKind.DELETED:
        return StepKind.DELETED
    gap = StepKind.CHANGED if StepKind.DELETED in kinds else StepKind.UNCHANGED
    return max((gap, *(k for k in kinds if k is not StepKind.DELETED)), key=STEP_ORDER.index)


def compose_targets(kinds: Sequence[TargetKind]) -> TargetKind:
    return max(kinds, key=TARGET_ORDER.index, default=TargetKind.UNCHANGED)


Checker = Callable[[Lock, SourceTree], CheckReport]
"""Checks a lock against one release's tree (the walk's one comparison)."""


def walk(
    lock: Lock, stops: Sequence[tuple[str, SourceTree]], check: Checker, resolver: Resolver, *, progress: Progress | None = None
) -> tuple[CheckReport, tuple[Hop, ...]]:
    """Check ``lock`` against the last of ``stops`` (``(version, tree)``, oldest first) through every one before it.

    Returns the composed report (against the last tree, each result keeping its original entry) and every hop;
    ``resolver`` indexes each release's files for the next hop's entries (through its cache).
    """
    if not stops:
        raise ValueError("a walk needs at least one release")
    hops: list[Hop] = []
    current = lock
    for count, (version, tree) in enumerate(stops, 1):
        if progress:
            progress(f"walking {tree.distribution} {version} ({count}/{len(stops)})")
        report = check(current, tree)
        hops.append(Hop(version, report))
        if count < len(stops):
            current = relock(current, report, TreeReader(resolver, tree, fast=True), version)
    return compose(lock, hops), tuple(hops)


def walk_check(
    project: Project,
    resolver: Resolver,
    lock: Lock,
    distribution: str,
    stops: Sequence[tuple[str, SourceTree]],
    *,
    ids: Collection[str] | None = None,
    strict: bool = False,
    progress: Progress | None = None,
) -> tuple[CheckReport, tuple[Hop, ...]]:
    """:func:`walk` with the project's check (``check --against --walk``, ``history --walk``)."""

    consistency = compare_with_annotations(project, lock)  # the annotation files against the reviewed lock, once

    def check(current: Lock, tree: SourceTree) -> CheckReport:
        return run_check(project, resolver, current, against={distribution: tree}, ids=ids, strict=strict, consistency=consistency)

    return walk(lock, stops, check, resolver, progress=progress)


def walk_stops(
    distribution: str, reviewed: str, target: str, *, offline: bool = False, progress: Progress | None = None
) -> tuple[list[tuple[str, SourceTree]], tuple[str, ...]]:
    """The releases a walk from ``reviewed`` to ``target`` steps through (both excluded), each with its wheel's tree.

    A walk runs either way: to an older release it steps back through the releases in between, newest first.

    One stop per minor series: the newest final release of each series in between (patch releases seldom move
    code, and every stop costs a check). Returns the stops, oldest first, and the releases skipped for want of a
    wheel (offline and not cached, or the download failed): the walk then takes a longer step over them.
    """
    try:
        start, end = version_key(reviewed), version_key(target)
    except InfralensError:  # a directory of no known release: nothing to walk through, one jump
        return [], ()
    if start == end:
        return [], ()
    low, high = min(start, end), max(start, end)
    listed = list_releases(distribution, offline=offline).versions
    between = [v for v in select_releases(listed, str(low), str(high), per_series=True) if low < version_key(v) < high]
    if end < start:  # an older release: walk back, newest first
        between.reverse()
    stops: list[tuple[str, SourceTree]] = []
    skipped: list[str] = []
    for version in between:
        wheel = cached_wheel(distribution, version)
        if wheel is None and not offline:
            if progress:
                progress(f"fetching {distribution} {version}")
            try:
                wheel = fetch_wheel(distribution, version)
            except SourceNotFoundError:
                wheel = None
        try:
            tree = WheelTree(wheel) if wheel is not None else None
        except SourceNotFoundError:
            tree = None
        if tree is None:
            skipped.append(version)
        else:
            stops.append((version, tree))
    return stops, tuple(skipped)


def walk_against(
    project: Project,
    resolver: Resolver,
    lock: Lock,
    against: dict[str, SourceTree],
    *,
    ids: Collection[str] | None = None,
    strict: bool = False,
    progress: Progress | None = None,
) -> CheckReport:
    """``check --against --walk``: each ``against`` distribution walked from the lock's release to the tree given.

    Distributions not in ``against`` are checked directly against their installed sources, as without ``--walk``.
    """
    wanted = set(ids or ())
    require_locked(lock, wanted)
    parts: list[CheckReport] = []
    for distribution, tree in sorted(against.items()):
        chosen = _ids_on(lock, wanted, {distribution})
        if not chosen:
            continue
        reviewed = max((a.version for a in lock.annotations.values() if a.distribution == distribution), key=version_key)
        stops, _skipped = walk_stops(distribution, reviewed, tree.version, progress=progress)
        parts.append(walk_check(project, resolver, lock, distribution, [*stops, (tree.version, tree)], ids=chosen, strict=strict, progress=progress)[0])
    rest = _ids_on(lock, wanted, {a.distribution for a in lock.annotations.values()} - set(against))
    if rest:
        parts.append(run_check(project, resolver, lock, ids=rest, strict=strict))
    consistency = compare_with_annotations(project, lock)
    findings = tuple(f for f in consistency.findings if not wanted or f.id in wanted or annotation_of(f.id) in wanted)
    trees = {t.distribution: t for p in parts for t in p.trees}
    return CheckReport(
        lock,
        tuple(trees[d] for d in sorted(trees)),
        tuple(t for p in parts for t in p.targets),
        tuple(s for p in parts for s in p.steps),
        findings,
        strict,
        consistency.lines,
    )


def _ids_on(lock: Lock, wanted: set[str], distributions: set[str]) -> list[str]:
    """The ids of ``wanted`` (every annotation when empty) whose annotation is on one of ``distributions``."""
    if not wanted:
        return sorted(a.id for a in lock.annotations.values() if a.distribution in distributions)
    return sorted(i for i in wanted if lock.annotations[annotation_of(i)].distribution in distributions)


def walk_releases(
    project: Project, resolver: Resolver, lock: Lock, distribution: str, ids: Collection[str], releases: Sequence[tuple[str, SourceTree]], reviewed: str
) -> dict[str, CheckReport]:
    """``history --walk``: each release's composed report, walked from ``reviewed`` outwards both ways.

    Newer releases are reached oldest first, older ones newest first (a statement lost on the way back stays
    lost, which the history shows as not yet present); the reviewed release itself is checked directly.
    """
    start = version_key(reviewed)
    newer = [r for r in releases if version_key(r[0]) > start]
    older = [r for r in releases if version_key(r[0]) < start][::-1]
    reports = {}
    consistency = compare_with_annotations(project, lock)
    for version, tree in releases:
        if version_key(version) == start:
            reports[version] = run_check(project, resolver, lock, against={distribution: tree}, ids=ids, consistency=consistency)
    for chain in (newer, older):
        hops: list[Hop] = []
        current = lock
        for version, tree in chain:
            report = run_check(project, resolver, current, against={distribution: tree}, ids=ids, consistency=consistency)
            hops.append(Hop(version, report))
            reports[version] = compose(lock, hops)
            current = relock(current, report, TreeReader(resolver, tree, fast=True), version)
    return reports


def compose(lock: Lock, hops: Sequence[Hop]) -> CheckReport:
    """One report from a walk's hops: kinds composed, places from the last hop, entries from ``lock``."""
    last = hops[-1].report
    step_rows = [{r.entry.step_id: r for r in hop.report.steps} for hop in hops]
    target_rows = [{r.entry.id: r for r in hop.report.targets} for hop in hops]
    steps = tuple(_step(lock.steps[r.entry.step_id], r, [row[r.entry.step_id] for row in step_rows if r.entry.step_id in row], hops) for r in last.steps)
    targets = tuple(_target(lock.annotations[r.entry.id], r, [row[r.entry.id] for row in target_rows if r.entry.id in row]) for r in last.targets)
    first = hops[0].report  # the lock versus the annotation files: judged on the reviewed entries, not a hop's
    return replace(last, lock=lock, steps=steps, targets=targets, lock_findings=first.lock_findings, lines=first.lines)


def _step(entry: StepLock, last: StepResult, results: list[StepResult], hops: Sequence[Hop]) -> StepResult:
    kind = compose_steps([r.kind for r in results])
    if kind is StepKind.UNCHANGED and last.new is not None and last.new.texts != entry.texts:  # guard: every hop equal, so must be the text
        kind = StepKind.CHANGED
    deciding = next((r for r in results if r.kind is kind), last)
    path = " → ".join(f"{hop.version} {r.kind.value}" for hop, r in zip(hops, results, strict=False))
    new = None if kind is StepKind.DELETED else last.new
    evidence = f"walked {path}; decided at the first {kind.value} hop by {deciding.rule or 'file-unchanged'}: {deciding.evidence}".rstrip(": ")
    message = deciding.message if kind is not last.kind else last.message
    return replace(last, entry=entry, kind=kind, new=new, message=message, rule=deciding.rule, evidence=evidence)


def _target(entry: AnnotationLock, last: TargetResult, results: list[TargetResult]) -> TargetResult:
    kind = compose_targets([r.kind for r in results])
    deciding = next((r for r in results if r.kind is kind), last)
    new = None if kind is TargetKind.DELETED else last.new
    return replace(last, entry=entry, kind=kind, new=new, message=deciding.message, rule=deciding.rule)


# --------------------------------------------------------------------------
# The places of one release as the next hop's reviewed entries
# --------------------------------------------------------------------------


def relock(lock: Lock, report: CheckReport, reader: TreeReader, version: str) -> Lock:
    """``lock`` as if it had been reviewed in the release ``report`` checked: every entry found there moved to it.

    An entry whose statement or target was not found (deleted, unreadable) keeps its old values: the walk has
    already composed its kind, and the next hops cannot bring it back.
    """
    annotations = dict(lock.annotations)
    for target in report.targets:
        moved = _target_entry(target, reader, version)
        if moved is not None:
            annotations[moved.id] = moved
    steps = dict(lock.steps)
    for result in report.steps:
        moved_step = _step_entry(result, reader, version)
        if moved_step is not None:
            steps[moved_step.step_id] = moved_step
    return replace(lock, annotations=annotations, steps=steps)


def _definition(index: ModuleIndex, qualname: str, near: int) -> Definition | None:
    named = [d for d in index.definitions if d.qualname == qualname and d.accessor is None]
    return min(named, key=lambda d: abs(d.start_line - near), default=None)


def _target_entry(result: TargetResult, reader: TreeReader, version: str) -> AnnotationLock | None:
    if result.new is None or result.kind in (TargetKind.DELETED, TargetKind.UNREADABLE):
        return None
    if result.rule == FILE_UNCHANGED:  # byte-identical file: every value holds, nothing to parse
        return replace(result.entry, version=version)
    indexed = reader.indexed(result.new.relpath)
    if indexed is None:
        return None
    source, index = indexed
    definition = _definition(index, result.new.target, result.new.lines[0])
    if definition is None:
        return None
    return replace(
        result.entry,
        version=version,
        module=result.new.module,
        **definition_facts(source, index, definition),
    )


def _step_entry(result: StepResult, reader: TreeReader, version: str) -> StepLock | None:
    new = result.new
    if new is None or result.kind in (StepKind.DELETED, StepKind.UNREADABLE) or not new.texts:
        return None
    if result.rule == FILE_UNCHANGED:
        return replace(result.entry, version=version)
    indexed = reader.indexed(new.relpath)
    if indexed is None:
        return None
    source, index = indexed
    first = next((s for s in index.statements if s.start_line == new.lines[0] and s.text == new.texts[0]), None)
    last = next((s for s in index.statements if s.end_line == new.lines[1] and s.text == new.texts[-1]), None)
    if first is None or last is None:
        return None
    around = surroundings(index, first, last)
    home = _definition(index, new.target, new.lines[0])
    pool = index.statements_within(home.start_line, home.end_line) if home is not None else (first,)
    return replace(
        result.entry,
        version=version,
        relpath=source.relpath,
        module=new.module,
        target=new.target,
        scope=first.scope,
        lines=(first.start_line, last.end_line),
        texts=new.texts,
        text_sha256=text_hash(new.texts),
        before=around.before,
        after=around.after,
        function_sha256=around.function_sha256,
        file_sha256=source.sha256,
        occurrence=occurrence_in(pool, first),
        copies=sum(1 for s in pool if s.text == first.text),
    )
