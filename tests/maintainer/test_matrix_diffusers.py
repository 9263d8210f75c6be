"""Issue 42's "done when": ``infralens matrix --releases diffusers==0.40.0,0.41.0 --devices cpu --scenario tiny-sd-ddim``
writes one combined report, and a cell run as its own process (the emitted workflow's job) merged with the other
cell's report gives the same report. Runs this repository's own annotations on two real diffusers releases (their wheels fetched into
the InfraLens cache once; skipped when neither the cache nor a package index has them)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from _device import requires_torch

from infralens.cli import main
from infralens.errors import InfralensError
from infralens.matrix.cells import verdict
from infralens.reports import MatrixReport, RunState, dumps_report, load_history_runs, load_matrix_report

REPO = Path(__file__).resolve().parents[2]
RELEASES = ("0.40.0", "0.41.0")
COMMAND = ["matrix", "--releases", "diffusers==0.40.0,0.41.0", "--devices", "cpu", "--scenario", "tiny-sd-ddim"]
CELL = [sys.executable, "-c", "import sys; from infralens.cli import main; sys.exit(main(sys.argv[1:]))"]


def _wheels() -> None:
    from infralens.source import fetch_wheel

    try:
        for version in RELEASES:
            fetch_wheel("diffusers", version)
    except InfralensError as error:
        pytest.skip(f"diffusers {', '.join(RELEASES)} not in the wheel cache and no package index reachable: {error}")


def _comparable(report: MatrixReport) -> MatrixReport:
    return replace(report, cells=tuple(replace(c, seconds=0.0, verify=replace(c.verify, created="")) for c in report.cells))


@pytest.mark.slow
@pytest.mark.network
@requires_torch
def test_the_done_when_command_and_its_shards_give_one_report(tmp_path: Path, capsys) -> None:
    _wheels()
    combined, runs = tmp_path / "combined.json", tmp_path / "history-runs.json"
    code = main(["--project", str(REPO), *COMMAND, "--out", str(combined), "--history-runs", str(runs)])
    err = capsys.readouterr().err
    assert code in (0, 1) and "Traceback" not in err, err
    report = load_matrix_report(combined)
    assert [(c.release, c.device) for c in report.cells] == [(v, "cpu") for v in RELEASES]
    assert report.scenarios == ("tiny-sd-ddim",) and report.policy == "newest"
    for cell in report.cells:
        assert cell.verify.scenarios == {"tiny-sd-ddim": "passed"}, cell.verify
        assert cell.verify.steps and all(run.state is not RunState.FAILED for run in cell.verify.steps.values())
        assert cell.check.exit_code in (0, 1) and sum(cell.check.counts.values()) > 0
    newest = report.cells[-1]
    assert code == {"clean": 0, "findings": 1}[newest.outcome]  # --fail-on newest: only 0.41.0 decides
    summary = load_history_runs(runs)  # the site's release matrix reads this file
    assert summary.series[0].releases == RELEASES

    # the workflow's way: one process per cell, then --merge. The newest cell (the one that decides) runs as its own
    # process here; the other job's file is the same cell of the run above, written as a one-cell report (running it
    # again would only repeat that cell: the comparison below still needs the process's cell to equal the local one).
    newest_out = tmp_path / f"cell-{RELEASES[-1]}.json"
    args = ["--project", str(REPO), "matrix", "--cell", f"diffusers=={RELEASES[-1]},cpu", "--scenario", "tiny-sd-ddim", "--out", str(newest_out)]
    child = subprocess.run([*CELL, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800, check=False)
    assert newest_out.is_file(), child.stdout
    older_out = tmp_path / f"cell-{RELEASES[0]}.json"
    older_out.write_text(dumps_report(replace(report, cells=report.cells[:1], verdict=verdict(report.cells[:1], report.policy))), "utf-8")
    merged = tmp_path / "merged.json"
    cells = [str(newest_out), str(older_out)]
    assert main(["--project", str(REPO), "matrix", "--merge", *cells, *COMMAND[1:], "--out", str(merged)]) == code
    assert _comparable(load_matrix_report(merged)) == _comparable(report)
