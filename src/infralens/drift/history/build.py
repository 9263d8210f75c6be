"""Release history: the drift check run over many upstream releases, one row of states per step.

:func:`plan_history` picks the releases (final releases in ``--since``/``--until``, their wheels
fetched into the cache unless ``offline``); :func:`run_history` classifies every locked step
against each release with :func:`~infralens.drift.check.run_check` (the same classifier as
``check --against``), then turns each step's row into a :class:`~infralens.reports.HistoryReport`
entry: a missing statement before its first appearance is *absent* (not yet present), the span
where it holds as reviewed and every difference, its releases grouped (the same edit at other line numbers is one). Each release's states are
remembered in the cache, keyed by the lock, the annotation files, the wheel and the checker's code.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from infralens import __version__
from infralens.atomic import write_quietly
from infralens.cachedir import cache_root, read_cache_entry
from infralens.drift.check import require_locked, run_check
from infralens.drift.diffs import statement_diff
from infralens.drift.lock.entries import AnnotationLock, Lock, StepLock
from infralens.drift.match.results import StepKind, StepResult
from infralens.errors import InfralensError, SourceNotFoundError
from infralens.hashing import sha256_file, sha256_text
from infralens.project import Project
from infralens.reports import AnnotationHistory, Difference, HistoryReport, ReleaseSpan, ReleaseState, StepHistory, holding_span, worst_state
from infralens.resolve import Resolver
from infralens.source import (
    ReleaseListOrigin,
    WheelTree,
    cached_wheel,
    canonical_name,
    code_fingerprint,
    fetch_wheel,
    list_releases,
    select_releases,
    unreadable_cached_wheel,
    version_key,
    wheel_problem,
)

HISTORY_CACHE = "history-v1"
CHECKER_MODULES = (
    "infralens.drift.check",
    "infralens.drift.diffs",
    "infralens.drift.lock.entries",
    "infralens.drift.lock.facts",
    "infralens.drift.history.build",
    "infralens.drift.history.walk",
    "infralens.source.normal_form",
    "infralens.source.index",
    "infralens.source.fast_index",
)
"""The modules outside the matcher whose code decides a release's states (with every module of the matcher, part of
each cached row's key: :func:`checker_modules`)."""


def checker_modules() -> tuple[str, ...]:
    """:data:`CHECKER_MODULES` and every module of :mod:`infralens.drift.match` (listed from its folder, so a new
    module of the matcher can never be left out of the key)."""
    spec = importlib.util.find_spec("infralens.drift.match")
    folders = spec.submodule_search_locations if spec is not None and spec.submodule_search_locations else []
    matcher = sorted(f"infralens.drift.match.{path.stem}" for folder in folders for path in Path(folder).glob("*.py") if path.stem != "__init__")
    return (*CHECKER_MODULES, *matcher)


Progress = Callable[[str], None]


@dataclass(frozen=True)
class ReleasePlan:
    """The releases of one distribution the history will read."""

    distribution: str
    baseline: str
    wheels: tuple[tuple[str, Path], ...]
    """``(version, wheel)`` oldest first."""
    missing: tuple[str, ...]
    list_origin: str
    note: str = ""
    """Why some releases are missing or the list is not the index's (empty when neither)."""

    @property
    def releases(self) -> tuple[str, ...]:
        return tuple(version for version, _ in self.wheels)


@dataclass(frozen=True)
class _Cell:
    """One step in one release."""

    state: ReleaseState
    where: str = ""
    message: str = ""
    diff: tuple[str, ...] = ()


def chosen_annotations(lock: Lock, ids: Collection[str]) -> list[AnnotationLock]:
    """The lock's annotations named by ``ids`` (annotation or step ids; all when empty)."""
    require_locked(lock, ids)
    wanted = {i.partition("/")[0] for i in ids}
    return [a for _, a in sorted(lock.annotations.items()) if not wanted or a.id in wanted]


def _bounds(specs: Collection[str], listed: dict[str, tuple[str, ...]], option: str) -> dict[str, str]:
    """The version ``--since``/``--until`` gives each distribution.

    ``DIST=VERSION`` names its distribution; a bare ``VERSION`` applies to every distribution that has
    that release, or to the only distribution there is.
    """
    bounds: dict[str, str] = {}
    by_canonical = {canonical_name(d): d for d in listed}
    for spec in specs:
        name, sep, version = spec.replace("==", "=").rpartition("=")
        version_key(version)
        if sep:
            distribution = by_canonical.get(canonical_name(name))
            if distribution is None:
                raise InfralensError(f"{option} {spec}: the history covers {', '.join(sorted(listed))}, not {name}")
            bounds[distribution] = version
            continue
        having = [d for d, versions in listed.items() if version in versions] or (list(listed) if len(listed) == 1 else [])
        if not having:
            raise InfralensError(f"{option} {spec}: no distribution here has release {version}; write DIST={version} (one of {', '.join(sorted(listed))})")
        for distribution in having:
            bounds.setdefault(distribution, version)
    return bounds


def plan_history(
    annotations: list[AnnotationLock],
    since: Collection[str],
    until: Collection[str],
    *,
    offline: bool,
    per_series: bool = False,
    progress: Progress | None = None,
) -> list[ReleasePlan]:
    """Per distribution of ``annotations``: the final releases in range, with a wheel for each one there is.

    Without a ``--since`` for it, a distribution's range starts at its baseline's minor series (``0.42.0`` for 0.42.1).
    """
    listings = {d: list_releases(d, offline=offline) for d in sorted({a.distribution for a in annotations})}
    versions = {d: listed.versions for d, listed in listings.items()}
    lows, highs = _bounds(since, versions, "--since"), _bounds(until, versions, "--until")
    plans = []
    for distribution, listed in listings.items():
        baseline = max((a.version for a in annotations if a.distribution == distribution), key=version_key)
        low = lows.get(distribution) or ".".join(baseline.split(".")[:2]) + ".0"
        high = highs.get(distribution)
        wanted = select_releases(listed.versions, low, high, per_series=per_series)
        wheels: list[tuple[str, Path]] = []
        missing: list[str] = []
        problems: list[str] = [listed.problem] if listed.problem and not offline else []  # --offline asked for it
        may_fetch = not offline and listed.origin is ReleaseListOrigin.INDEX  # an index that did not answer will not serve wheels
        for version in wanted:
            wheel = cached_wheel(distribution, version)
            if may_fetch and wheel is not None and wheel_problem(wheel) is not None:
                wheel = None  # a damaged download: fetch_wheel deletes it and fetches it anew
            if wheel is None and may_fetch:
                if progress:
                    progress(f"fetching {distribution} {version}")
                try:
                    wheel = fetch_wheel(distribution, version)
                except SourceNotFoundError as error:
                    problems.append(str(error))
            if wheel is None:
                missing.append(version)
            else:
                wheels.append((version, wheel))
        if missing:
            problems.append(f"no cached wheel for {', '.join(missing)}" + _missing_hint(offline, listed.origin))
        if not wanted:
            problems.append(f"no final release of {distribution} between {low} and {high or 'the newest'} is known")
        note = "; ".join(dict.fromkeys(problems))
        plans.append(ReleasePlan(distribution, baseline, tuple(wheels), tuple(missing), listed.origin.value, note))
    return plans


def _missing_hint(offline: bool, origin: ReleaseListOrigin) -> str:
    """What to do about releases with no wheel: go online, or (online already) reach the index that did not answer."""
    if offline:
        return " (run without --offline to fetch them)"
    if origin is not ReleaseListOrigin.INDEX:
        return " (the package index could not be reached; run again when it can be)"
    return " (their downloads failed, see above; run again to retry)"


def run_history(
    project: Project,
    resolver: Resolver,
    lock: Lock,
    annotations: list[AnnotationLock],
    plans: list[ReleasePlan],
    *,
    step_ids: Collection[str] = (),
    progress: Progress | None = None,
    walk: bool = False,
) -> HistoryReport:
    """Classify every step of ``annotations`` (only ``step_ids`` when given) in every planned release.

    With ``walk``, each release is reached from the lock's release through the planned releases in between
    (:func:`~infralens.drift.history.walk.walk_releases`); those rows are not remembered (each depends on the
    releases before it), though every index still is.
    """
    key_base = _key_base(project, lock)
    rows: dict[str, list[_Cell]] = {}
    for plan in plans:
        ids = sorted(a.id for a in annotations if a.distribution == plan.distribution)
        walked = _walked_cells(project, resolver, lock, ids, plan, progress) if walk and ids else None
        for count, (version, wheel) in enumerate(plan.wheels, 1):
            if progress and walked is None:
                progress(f"reading {plan.distribution} {version} ({count}/{len(plan.wheels)})")
            cells = walked[version] if walked is not None else _release_cells(project, resolver, lock, ids, plan.distribution, version, wheel, key_base)
            for step_id, cell in cells.items():
                rows.setdefault(step_id, []).append(cell)
    spans = tuple(ReleaseSpan(p.distribution, p.baseline, p.releases, p.missing, p.list_origin) for p in plans)
    releases = {p.distribution: p.releases for p in plans}
    histories = []
    for annotation in annotations:
        steps = [
            _step_history(lock.steps[s], rows.get(s, []), releases[annotation.distribution])
            for s in annotation.steps
            if s in lock.steps and (not step_ids or s in step_ids or annotation.id in step_ids)
        ]
        count = len(releases[annotation.distribution])
        states = tuple(worst_state([step.states[i] for step in steps if len(step.states) == count]) for i in range(count))
        target = f"{annotation.module}.{annotation.target}"
        histories.append(AnnotationHistory(annotation.id, annotation.distribution, target, annotation.path, states, tuple(steps)))
    return HistoryReport(f"infralens {__version__}", sha256_file(lock.path), spans, tuple(histories))


def _key_base(project: Project, lock: Lock) -> str:
    """What every cached row depends on besides the release: the checker's code, the lock, the annotation files."""
    files = sorted(project.annotation_files())
    parts = [code_fingerprint(checker_modules()), _file_key(lock.path), *(f"{project.relative(f)}={_file_key(f)}" for f in files)]
    return sha256_text("\n".join(parts))


def _file_key(path: Path) -> str:
    """The file's SHA-256; for a FIFO, device or linked folder (never read), a key no file has: the check reports it."""
    try:
        return sha256_file(path)
    except OSError:
        return "unreadable"


def _release_cells(
    project: Project, resolver: Resolver, lock: Lock, ids: list[str], distribution: str, version: str, wheel: Path, key_base: str
) -> dict[str, _Cell]:
    """Every step of ``ids`` in one release: remembered, else checked (and remembered)."""
    stat = wheel.stat()
    key = sha256_text(f"{key_base}\n{wheel.name}\n{stat.st_size}\n{stat.st_mtime_ns}\n{','.join(ids)}")
    entry = Path(cache_root()) / HISTORY_CACHE / f"{key}.json"
    remembered = _recall(entry)
    if remembered is not None:
        return remembered
    if not ids:
        return {}
    try:
        tree = WheelTree(wheel)
    except SourceNotFoundError as error:  # a damaged cached download: this release is unreadable, the others are still read
        cell = _Cell(ReleaseState.UNREADABLE, "", unreadable_cached_wheel(wheel, wheel_problem(wheel) or str(error).removeprefix(f"{wheel}: ")))
        return {step: cell for annotation in ids for step in lock.annotations[annotation].steps}
    report = run_check(project, resolver, lock, against={distribution: tree}, ids=ids)
    cells = {result.entry.step_id: _cell(result, version, wheel) for result in report.steps}
    _remember(entry, cells)
    return cells


def _walked_cells(
    project: Project, resolver: Resolver, lock: Lock, ids: list[str], plan: ReleasePlan, progress: Progress | None
) -> dict[str, dict[str, _Cell]]:
    """Every step of ``ids`` in every planned release, walked release by release (unreadable wheels: left out of the walk)."""
    from infralens.drift.history.walk import walk_releases

    trees: list[tuple[str, WheelTree]] = []
    cells: dict[str, dict[str, _Cell]] = {}
    for version, wheel in plan.wheels:
        try:
            trees.append((version, WheelTree(wheel)))
        except SourceNotFoundError as error:
            cell = _Cell(ReleaseState.UNREADABLE, "", unreadable_cached_wheel(wheel, wheel_problem(wheel) or str(error).removeprefix(f"{wheel}: ")))
            cells[version] = {step: cell for annotation in ids for step in lock.annotations[annotation].steps}
    if progress:
        progress(f"walking {plan.distribution} through {len(trees)} releases from {plan.baseline}")
    wheels = dict(plan.wheels)
    reports = walk_releases(project, resolver, lock, plan.distribution, ids, trees, plan.baseline)
    for version, report in reports.items():
        cells[version] = {result.entry.step_id: _cell(result, version, wheels[version]) for result in report.steps}
    return cells


def _cell(result: StepResult, version: str, wheel: Path) -> _Cell:
    """One step's state in one release (messages name the wheel, never where this machine caches it)."""
    entry = result.entry
    where = result.new.describe() if result.new is not None else ""
    if result.kind is StepKind.UNCHANGED:
        return _Cell(ReleaseState.UNCHANGED)
    diff: tuple[str, ...] = ()
    if result.kind is StepKind.CHANGED and result.new is not None:
        label = f"{entry.distribution} {version} {result.new.relpath}:{result.new.lines[0]}"
        diff = statement_diff(entry.texts, result.new.texts, f"reviewed ({entry.distribution} {entry.version})", label)
    return _Cell(ReleaseState(result.kind.value), where, result.message.replace(str(wheel), wheel.name), diff)


def _recall(entry: Path) -> dict[str, _Cell] | None:
    """The remembered row; None when it is missing, not a regular file (a FIFO is removed, never waited on) or damaged."""
    raw = read_cache_entry(entry)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        return {k: _Cell(ReleaseState(v[0]), str(v[1]), str(v[2]), tuple(str(line) for line in v[3])) for k, v in data.items()}
    except (ValueError, TypeError, IndexError, AttributeError, KeyError, RecursionError):
        return None


def _remember(entry: Path, cells: dict[str, _Cell]) -> None:
    data = {k: [c.state.value, c.where, c.message, list(c.diff)] for k, c in cells.items()}
    write_quietly(entry, json.dumps(data, separators=(",", ":")))


_LINE_NUMBER = re.compile(r":\d+\b")


def _same_difference(cell: _Cell) -> tuple[object, ...]:
    """What makes two releases' differences one: state, place and diff, but not line numbers or the diff's header."""
    return (cell.state, _LINE_NUMBER.sub("", cell.where), _LINE_NUMBER.sub("", cell.message), cell.diff[2:])


def _step_history(entry: StepLock, cells: list[_Cell], releases: tuple[str, ...]) -> StepHistory:
    """A step's row of states with *absent* before its first appearance, its span of holding, its differences."""
    if len(cells) != len(releases):  # the step was not checked (its annotation file changed since the lock)
        cells = [_Cell(ReleaseState.UNREADABLE, "", "not checked: the annotation changed since the lock")] * len(releases)
    cells = list(cells)
    for position, cell in enumerate(cells):
        if cell.state is not ReleaseState.DELETED:
            break
        cells[position] = _Cell(ReleaseState.ABSENT, "", "not yet present")
    states = tuple(c.state for c in cells)
    holds_from, holds_to, before = holding_span(states, releases, entry.version)
    grouped: dict[tuple[object, ...], tuple[_Cell, list[str]]] = {}
    for release, cell in zip(releases, cells, strict=True):
        if cell.state is not ReleaseState.UNCHANGED:
            grouped.setdefault(_same_difference(cell), (cell, []))[1].append(release)
    differences = tuple(Difference(tuple(r), c.state, c.where, c.message, c.diff) for c, r in grouped.values())
    return StepHistory(entry.step_id, entry.yaml_line, states, holds_from, holds_to, before, differences)
