"""Run cells: ``verify --against`` and ``check --against`` for one release on one device; many at once, a process each.

A cell runs in a process of its own: a local run starts ``infralens matrix --cell`` once per cell, ``--jobs`` at a
time, exactly as each job of the emitted workflow does, and merges the reports they write (:mod:`.merge`). A cell runs
through the same public functions the ``verify`` and ``check`` commands call
(:func:`infralens.verify.run_verify`, :func:`infralens.drift.run_check`). What the two commands print is
captured at the file-descriptor level (their worker processes write there too) and printed whole once the
cell is done, so the output of cells running side by side never interleaves. A cell that cannot run (a
release pip cannot install, a device that is not there) is a cell with outcome ``error`` and the command's
last line as its reason; the other cells go on.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from infralens.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from infralens.errors import InfralensError
from infralens.matrix.cells import Cell
from infralens.reports import MatrixCell, MatrixCheck, MatrixReport, MatrixVerify

OUTPUT_TAIL_CHARS = 4000
"""At most this much of a cell's captured output is printed after it (the end, where errors are)."""


@dataclass(frozen=True)
class CellSettings:
    """What every cell of one matrix shares (picklable: it travels to the pool's processes)."""

    project: str | None = None
    """``--project`` as given (None: found upwards from the current directory)."""
    sources: tuple[str, ...] = ()
    """The global ``--source DIST=PATH`` options (the installed trees the lock was reviewed against)."""
    no_cache: bool = False
    scenarios: tuple[str, ...] = ()
    timeout: float = 900.0
    """Seconds a verify worker may take."""


def default_jobs(cells: int) -> int:
    """Cells at once: one per two cores the process may use (each cell's verify runs a worker of its own), at least one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cells, cores // 2))


def _namespace(settings: CellSettings, sources: Sequence[str] = ()) -> argparse.Namespace:
    return argparse.Namespace(project=settings.project, source=[*settings.sources, *sources], no_cache=settings.no_cache)


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


@contextlib.contextmanager
def captured(path: Path) -> Iterator[None]:
    """Standard output and error (file descriptors 1 and 2, so child processes too) go to ``path`` while inside."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = (os.dup(1), os.dup(2))
    with open(path, "wb") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "the command exited with status 2 and said nothing"


def run_cell(cell: Cell, settings: CellSettings) -> tuple[MatrixCell, str]:
    """Run one cell; the cell's record and what its commands printed."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="infralens-matrix-") as folder:
        scratch = Path(folder)
        with captured(scratch / "verify.log"):
            verify = _verify(cell, settings, scratch / "verify.json")
        with captured(scratch / "check.log"):
            check = _check(cell, settings)
        logs = [(scratch / f"{name}.log").read_text("utf-8", errors="replace") for name in ("verify", "check")]
    if verify.exit_code == EXIT_USAGE and not verify.error:
        verify = _with_error(verify, _last_line(logs[0]))
    codes = {verify.exit_code, check.exit_code}
    outcome = "error" if EXIT_USAGE in codes else "findings" if EXIT_FINDINGS in codes else "clean"
    seconds = round(time.monotonic() - started, 1)
    record = MatrixCell(cell.distribution, cell.version, cell.device, outcome, verify, check, seconds)
    return record, "".join(logs)


def _with_error(verify: MatrixVerify, error: str) -> MatrixVerify:
    from dataclasses import replace

    return replace(verify, error=error)


def _annotation_ids(settings: CellSettings, distribution: str) -> tuple[str, ...]:
    from infralens.commands import open_context
    from infralens.project import load_annotations

    project, _ = open_context(_namespace(settings))
    loaded = load_annotations(project)
    return tuple(a.id for a in loaded.annotations if _canonical(a.source) == _canonical(distribution))


def _verify(cell: Cell, settings: CellSettings, report: Path) -> MatrixVerify:
    """``verify --against PIN --device D`` on the annotations of the cell's distribution, summarized like ``history --runs``."""
    from infralens.commands import open_context
    from infralens.verify import VerifyOptions, run_verify

    try:
        ids = _annotation_ids(settings, cell.distribution)
        if not ids:
            return MatrixVerify(EXIT_USAGE, error=f"no annotation of this project is on {cell.distribution}")
        options = VerifyOptions(device=cell.device, scenarios=settings.scenarios, report=report, against=(cell.pin,), annotations=ids, timeout=settings.timeout)
        code = run_verify(options, lambda sources: open_context(_namespace(settings, sources)))
    except InfralensError as error:
        return MatrixVerify(EXIT_USAGE, error=str(error)[:300])
    if not report.is_file():
        return MatrixVerify(EXIT_USAGE if code == EXIT_OK else code)
    return _summarized(cell, code, report)


def _summarized(cell: Cell, code: int, report: Path) -> MatrixVerify:
    from infralens.reports import load_verify_report, summarize_runs

    summary = summarize_runs([(f"{cell.distribution}-{cell.version}.json", load_verify_report(report))], "infralens matrix")
    series = summary.series[0]
    run = series.runs[0]
    steps = {step.id: step.runs[0] for step in series.steps}
    return MatrixVerify(code, run.created, dict(run.scenarios), dict(run.scenario_errors), steps)


def _check(cell: Cell, settings: CellSettings) -> MatrixCheck:
    """``check --against PIN`` on the locked steps of the cell's distribution."""
    from infralens.commands import open_context
    from infralens.drift import against_trees, read_lock, report_json, run_check
    from infralens.reports import DriftKind, DriftReport

    try:
        project, resolver = open_context(_namespace(settings))
        lock = read_lock(project.lock_path, project.relative(project.lock_path))
        ids = [key for key, entry in lock.annotations.items() if _canonical(entry.distribution) == _canonical(cell.distribution)]
        if not ids:
            return MatrixCheck(EXIT_USAGE, error=f"the lock has no annotation on {cell.distribution}")
        against = against_trees((cell.pin,), {entry.distribution for entry in lock.annotations.values()})
        report = run_check(project, resolver, lock, against=against, ids=ids)
    except InfralensError as error:
        return MatrixCheck(EXIT_USAGE, error=str(error)[:300])
    code = EXIT_OK if report.clean else EXIT_FINDINGS
    drift = DriftReport.from_json(report_json(report, code))
    counts = {kind.value: count for kind, count in drift.step_counts.items()}
    drifted = {step_id: step.kind for step_id, step in sorted(drift.steps.items()) if step.kind is not DriftKind.UNCHANGED}
    return MatrixCheck(code, counts, drifted)


def lock_sha256(settings: CellSettings) -> str:
    """The hash of the project's lock: cells are merged only with cells of the same lock."""
    from infralens.commands import open_context
    from infralens.hashing import sha256_file

    project, _ = open_context(_namespace(settings))
    if not project.lock_path.is_file():
        raise InfralensError(f"{project.relative(project.lock_path)}: no lock; run 'infralens lock' first (the matrix checks the locked steps)")
    return sha256_file(project.lock_path)


CELL_COMMAND: tuple[str, ...] = (sys.executable, "-c", "import sys; from infralens.cli import main; sys.exit(main(sys.argv[1:]))")
"""How a local run starts each cell: ``infralens`` in a fresh interpreter, as a CI job would."""

Done = Callable[[MatrixCell, str], None]
Wrap = Callable[[MatrixCell], MatrixReport]


def cell_arguments(cell: Cell, settings: CellSettings, out: Path) -> list[str]:
    """The ``infralens ... matrix --cell`` arguments that run ``cell`` into ``out`` (what each job of the emitted workflow runs)."""
    found = ["--project", settings.project] if settings.project else []
    found += [arg for source in settings.sources for arg in ("--source", source)] + (["--no-cache"] if settings.no_cache else [])
    found += ["matrix", "--cell", f"{cell.pin},{cell.device}", "--fail-on", "none", "--timeout", repr(settings.timeout), "--out", str(out)]
    return found + [arg for scenario in settings.scenarios for arg in ("--scenario", scenario)]


def run_cells(cells: Sequence[Cell], settings: CellSettings, jobs: int, folder: Path, done: Done, wrap: Wrap) -> list[tuple[str, MatrixReport]]:
    """Every cell, ``jobs`` at once, each ``infralens matrix --cell`` in a process of its own writing ``folder/cell-SLUG.json``.

    ``done`` is told of each cell as it ends, with what its process printed; a process that ended without its
    report gives a cell with outcome ``error`` (made a report by ``wrap``). ``(name, report)`` in the order of ``cells``."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    running: list[subprocess.Popen[str]] = []

    def one(cell: Cell) -> tuple[str, MatrixReport]:
        out = folder / f"cell-{cell.slug}.json"
        child = subprocess.Popen(
            [*CELL_COMMAND, *cell_arguments(cell, settings, out)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        running.append(child)
        output, _ = child.communicate()
        report = _written(out)
        record = report.cells[0] if report else _failed(cell, child.returncode, output)
        done(record, output)
        return (out.name, report or wrap(record))

    try:
        with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(cells)))) as pool:
            return list(pool.map(one, cells))
    finally:
        from infralens.stops import end_processes

        end_processes([child for child in running if child.poll() is None], grace=5.0)


def _written(out: Path) -> MatrixReport | None:
    from infralens.reports import ReportError, load_matrix_report

    try:
        report = load_matrix_report(out) if out.is_file() else None
    except ReportError:
        return None
    return report if report is not None and len(report.cells) == 1 else None


def _failed(cell: Cell, code: int, output: str) -> MatrixCell:
    """The cell of a process that wrote no report: an error with its last line."""
    reason = f"infralens matrix --cell exited with status {code} without a report: {_last_line(output)}"
    return MatrixCell(cell.distribution, cell.version, cell.device, "error", MatrixVerify(EXIT_USAGE, error=reason[:300]), MatrixCheck(EXIT_USAGE))
