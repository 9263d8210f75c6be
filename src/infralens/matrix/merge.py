"""Merge cell reports into one matrix, and turn a matrix into the site's summary of runs.

The one merge: a local run merges the cells it ran in memory, ``--merge`` the files of cells run elsewhere
(one CI job per cell), so both give the same report. Cells are merged only when they agree on the project
(the lock's hash, the InfraLens version, the scenarios selected); a cell given twice, a cell that was not
asked for, or one that is missing is an error naming the files. The result is ordered by distribution,
release (oldest first) and device, and carries the policy's verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from infralens import __version__
from infralens.errors import InfralensError
from infralens.matrix.cells import Cell, verdict
from infralens.reports import HistoryRuns, MatrixCell, MatrixReport, ReleaseRun, RunCell, RunSeries, RunState, StepRuns

GENERATED_BY = f"infralens {__version__} matrix"
NOT_IN_CELL = "not run in this cell"


class MergeError(InfralensError):
    """Cell reports that cannot be merged into one matrix."""


def _order(cell: MatrixCell) -> tuple[str, object, int]:
    from packaging.version import Version

    return (cell.distribution.lower(), Version(cell.release), ("cpu", "cuda").index(cell.device))


def merge_cells(parts: Sequence[tuple[str, MatrixReport]], policy: str, expected: Sequence[Cell] | None = None) -> MatrixReport:
    """One matrix from the reports ``(name, report)``; ``expected``: the cells it must hold, exactly."""
    if not parts:
        raise MergeError("--merge: no cell reports given")
    first_name, first = parts[0]
    owner: dict[tuple[str, str, str], str] = {}
    cells: list[MatrixCell] = []
    for name, report in parts:
        for field, label in (("lock_sha256", "lock"), ("infralens", "InfraLens version"), ("scenarios", "scenario selection")):
            if getattr(report, field) != getattr(first, field):
                mine, theirs = getattr(report, field), getattr(first, field)
                raise MergeError(
                    f"--merge: {name} was run with another {label} ({_short(mine)}) than {first_name} ({_short(theirs)}); "
                    "run every cell from the same commit and InfraLens"
                )
        for cell in report.cells:
            key = (cell.distribution.lower(), cell.release, cell.device)
            if key in owner:
                raise MergeError(f"--merge: the cell {cell.label} is in both {owner[key]} and {name}; give each cell once")
            owner[key] = name
            cells.append(cell)
    if expected is not None:
        _compare(owner, expected)
    cells.sort(key=_order)
    return MatrixReport(GENERATED_BY, first.infralens, first.lock_sha256, first.scenarios, policy, verdict(cells, policy), tuple(cells))


def _short(value: object) -> str:
    text = ",".join(value) if isinstance(value, tuple) else str(value)
    return (text[:16] + "…" if len(text) > 20 else text) or "all"


def _compare(owner: dict[tuple[str, str, str], str], expected: Sequence[Cell]) -> None:
    wanted = {(cell.distribution.lower(), cell.version, cell.device): cell for cell in expected}
    missing = [wanted[key].label for key in wanted if key not in owner]
    extra = [f"{d}=={v} on {dev} ({owner[(d, v, dev)]})" for d, v, dev in owner if (d, v, dev) not in wanted]
    if missing:
        raise MergeError(f"--merge: no report for {', '.join(missing)} (a cell job failed before uploading its report?)")
    if extra:
        raise MergeError(f"--merge: cells not named by --releases/--devices: {', '.join(extra)}")


def single(cell: MatrixCell, infralens: str, lock: str, scenarios: tuple[str, ...], policy: str) -> MatrixReport:
    """The report of one cell (what ``--cell`` writes, and what a local run merges)."""
    return MatrixReport(GENERATED_BY, infralens, lock, scenarios, policy, verdict([cell], policy), (cell,))


def history_runs(report: MatrixReport, device: str, name: str) -> HistoryRuns:
    """The cells run on ``device`` as the site's summary of runs (``reports/history-runs.json``; ``name``: the matrix file).

    Cells that could not run are left out (they have no run to show)."""
    series = []
    for distribution in dict.fromkeys(cell.distribution for cell in report.cells):
        cells = [c for c in report.cells if c.distribution == distribution and c.device == device and c.verify.created]
        if not cells:
            continue
        runs = tuple(
            ReleaseRun(c.release, c.verify.created, device, f"{name}#{c.distribution}-{c.release}-{device}", c.verify.scenarios, c.verify.scenario_errors)
            for c in cells
        )
        ids = sorted({step_id for c in cells for step_id in c.verify.steps})
        missing = RunCell(RunState.NOT_RUN, NOT_IN_CELL)
        steps = tuple(StepRuns(step_id, tuple(c.verify.steps.get(step_id, missing) for c in cells)) for step_id in ids)
        series.append(RunSeries(distribution, runs, steps))
    if not series:
        raise MergeError(f"--history-runs: no cell ran on {device}; nothing to summarize")
    return HistoryRuns(f"{GENERATED_BY} --history-runs", tuple(series))
