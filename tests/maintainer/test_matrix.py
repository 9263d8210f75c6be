"""``infralens matrix`` on the toy project (toylib 1.1.0 drifted, 1.2.0 as reviewed, both wheels in a private
InfraLens cache): releases as a list or a range, the exit policy, bad input (exit 2, the flag named, no traceback),
and the merge of cell reports (duplicates, another lock or InfraLens version, missing cells are refused), which a
local run and the shards of a CI run share."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from toy_wheels import toy_wheels, write_wheel

from infralens.cli import main
from infralens.matrix import Cell, MergeError, history_runs, make_cells, merge_cells, parse_releases, single, verdict
from infralens.reports import (
    MatrixCell,
    MatrixCheck,
    MatrixReport,
    MatrixVerify,
    RunCell,
    RunState,
    dumps_report,
    load_history_runs,
    load_matrix_report,
)

LOCK = "a" * 64


@pytest.fixture
def cache(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(folder))
    toy_wheels(folder)
    write_wheel(folder / "wheels", "1.0.0", "def double(x):\n    return x\n")
    write_wheel(folder / "wheels", "2.0.0rc1", "def double(x):\n    return x\n")
    return folder


def _cell(release: str, outcome: str, device: str = "cpu", steps: dict[str, RunCell] | None = None) -> MatrixCell:
    code = {"clean": 0, "findings": 1, "error": 2}[outcome]
    verify = MatrixVerify(code, "2026-01-01T00:00:00Z", steps=steps if steps is not None else {"toy-double/twice": RunCell(RunState.HELD)})
    return MatrixCell("toylib", release, device, outcome, verify, MatrixCheck(code, {"unchanged": 1}), 1.5)


def _report(*cells: MatrixCell, lock: str = LOCK, version: str = "0.1.0") -> MatrixReport:
    return MatrixReport("infralens matrix", version, lock, (), "newest", "clean", cells)


# --- releases, devices, policy -------------------------------------------------------------


def test_a_list_is_sorted_and_a_range_is_resolved_from_the_cached_releases(cache: Path) -> None:
    assert parse_releases("toylib==1.2.0,1.1.0,1.2.0") == ("toylib", ("1.1.0", "1.2.0"))
    # offline: the releases whose wheels are cached, final ones only (2.0.0rc1 is left out)
    assert parse_releases("toylib>=1.1,<3", offline=True) == ("toylib", ("1.1.0", "1.2.0"))
    assert parse_releases("toylib<1.2", offline=True) == ("toylib", ("1.0.0", "1.1.0"))
    cells = make_cells(["toylib>=1.1"], ["cpu,cuda"], offline=True)
    assert [(c.version, c.device) for c in cells] == [("1.1.0", "cpu"), ("1.1.0", "cuda"), ("1.2.0", "cpu"), ("1.2.0", "cuda")]


def test_the_policy_picks_the_cells_that_decide() -> None:
    old_findings, new_clean = _cell("1.1.0", "findings"), _cell("1.2.0", "clean")
    assert verdict([old_findings, new_clean], "newest") == "clean"
    assert verdict([old_findings, new_clean], "all") == "findings"
    assert verdict([old_findings, new_clean], "none") == "clean"
    # the newest release is compared as a version (1.10.0 is newer than 1.9.0), and every device of it decides
    newest_error = [_cell("1.9.0", "clean"), _cell("1.10.0", "clean"), _cell("1.10.0", "error", device="cuda")]
    assert verdict(newest_error, "newest") == "error"
    assert verdict([_cell("1.9.0", "error"), _cell("1.10.0", "findings")], "newest") == "findings"
    assert verdict([_cell("1.9.0", "error"), _cell("1.10.0", "findings")], "all") == "error"


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--releases", "toylib"], "--releases"),
        (["--releases", "toylib>=9", "--offline"], "--releases"),
        (["--releases", "toylib==1.2.0;rm -rf"], "--releases"),
        (["--releases", "toylib==1.2.0", "--devices", "tpu"], "--devices"),
        (["--releases", "toylib==1.2.0", "--releases", "toylib==1.1.0"], "--releases"),
        ([], "--releases"),
        (["--cell", "toylib==1.2.0"], "--cell"),
        (["--cell", "toylib==1.2.0,1.1.0,cpu"], "--cell"),
        (["--releases", "toylib==1.2.0", "--scenario", "nope"], "--scenario"),
        (["--emit", "github-actions", "--releases", "toylib==1.2.0", "--gpu-runner", "a${{x}}"], "--gpu-runner"),
    ],
)
def test_bad_input_names_the_flag_and_exits_2(toy: Path, cache: Path, capsys, args: list[str], flag: str) -> None:
    code = main(["--project", str(toy), "matrix", *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"infralens matrix: {flag}" in err and "Traceback" not in err, err


def test_a_report_that_is_not_a_matrix_is_refused(toy: Path, tmp_path: Path, capsys) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"matrix": 1, "cells": "no"}))
    assert main(["matrix", "--merge", str(other), str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert "other.json" in err and "not a valid release × device matrix" in err and "Traceback" not in err, err


# --- merge -------------------------------------------------------------------------------------


def test_merge_orders_the_cells_and_applies_the_policy() -> None:
    parts = [("b.json", _report(_cell("1.10.0", "clean"))), ("a.json", _report(_cell("1.9.0", "findings"), _cell("1.9.0", "clean", device="cuda")))]
    merged = merge_cells(parts, "all")
    assert [(c.release, c.device) for c in merged.cells] == [("1.9.0", "cpu"), ("1.9.0", "cuda"), ("1.10.0", "cpu")]
    assert merged.verdict == "findings" and merged.policy == "all"
    assert merge_cells(parts, "newest").verdict == "clean"
    # written and read back through the schema: the same record
    assert MatrixReport.from_json(json.loads(dumps_report(merged))) == merged


@pytest.mark.parametrize(
    ("second", "words"),
    [
        (_report(_cell("1.2.0", "clean")), "is in both a.json and b.json"),
        (_report(_cell("1.1.0", "clean"), lock="b" * 64), "another lock"),
        (_report(_cell("1.1.0", "clean"), version="9.9.9"), "another InfraLens version"),
        (replace(_report(_cell("1.1.0", "clean")), scenarios=("toy",)), "another scenario selection"),
    ],
)
def test_cells_that_do_not_belong_together_are_refused(second: MatrixReport, words: str) -> None:
    with pytest.raises(MergeError, match=words):
        merge_cells([("a.json", _report(_cell("1.2.0", "clean"))), ("b.json", second)], "newest")


def test_merge_wants_exactly_the_cells_asked_for() -> None:
    parts = [("a.json", _report(_cell("1.2.0", "clean")))]
    with pytest.raises(MergeError, match=r"no report for toylib==1\.1\.0 on cpu"):
        merge_cells(parts, "newest", [Cell("toylib", "1.1.0", "cpu"), Cell("toylib", "1.2.0", "cpu")])
    extra = [*parts, ("b.json", _report(_cell("1.1.0", "clean")))]
    with pytest.raises(MergeError, match=r"not named by --releases/--devices: toylib==1\.1\.0 on cpu \(b\.json\)"):
        merge_cells(extra, "newest", [Cell("toylib", "1.2.0", "cpu")])


def test_merge_on_the_command_line_exits_by_the_policy(tmp_path: Path, capsys) -> None:
    files = []
    for release, outcome in (("1.1.0", "findings"), ("1.2.0", "clean")):
        path = tmp_path / f"cell-{release}.json"
        path.write_text(dumps_report(single(_cell(release, outcome), "0.1.0", LOCK, (), "none")))
        files.append(str(path))
    out = tmp_path / "combined.json"
    assert main(["matrix", "--merge", *files, "--releases", "toylib==1.1.0,1.2.0", "--out", str(out)]) == 0
    assert main(["matrix", "--merge", *files, "--fail-on", "all", "--out", str(out)]) == 1
    assert load_matrix_report(out).verdict == "findings"
    assert main(["matrix", "--merge", *files, files[0]]) == 2
    assert "is in both" in capsys.readouterr().err


def test_the_matrix_feeds_the_sites_summary_of_runs(tmp_path: Path) -> None:
    cells = (
        _cell("1.1.0", "findings", steps={"toy-double/twice": RunCell(RunState.ABSENT, "did not resolve")}),
        _cell("1.2.0", "clean"),
        _cell("1.2.0", "clean", device="cuda", steps={}),
    )
    runs = history_runs(merge_cells([("m.json", _report(*cells))], "newest"), "cpu", "matrix.json")
    path = tmp_path / "history-runs.json"
    path.write_text(dumps_report(runs))
    loaded = load_history_runs(path)  # validated against the schema the site reads it with
    (series,) = loaded.series
    assert series.releases == ("1.1.0", "1.2.0") and {run.device for run in series.runs} == {"cpu"}
    (step,) = series.steps
    assert [cell.state for cell in step.runs] == [RunState.ABSENT, RunState.HELD]
    with pytest.raises(MergeError, match="no cell ran on cuda"):
        history_runs(merge_cells([("m.json", _report(cells[0]))], "newest"), "cuda", "matrix.json")


# --- real cells on the toy project ---------------------------------------------------------------


def _comparable(report: MatrixReport) -> MatrixReport:
    """The report without what differs between two runs of the same cells (wall time, when a report was written)."""
    return replace(report, cells=tuple(replace(c, seconds=0.0, verify=replace(c.verify, created="")) for c in report.cells))


@pytest.mark.slow
def test_a_local_run_and_its_shards_merged_give_the_same_report(toy: Path, cache: Path, tmp_path: Path, capsys) -> None:
    toy_args = ["--project", str(toy), "--source", f"toylib={toy / 'site'}"]
    assert main([*toy_args, "lock"]) == 0
    local = tmp_path / "local.json"
    code = main([*toy_args, "matrix", "--releases", "toylib==1.1.0,1.2.0", "--jobs", "2", "--out", str(local)])
    err = capsys.readouterr().err
    assert code == 0, err  # the newest release (1.2.0) is clean; 1.1.0's drift is reported, not failed
    report = load_matrix_report(local)
    old, new = report.cells
    assert (old.outcome, new.outcome) == ("findings", "clean"), err
    assert old.check.drifted == {"toy-double/twice": "changed"} and old.verify.steps["toy-double/twice"].state is RunState.ABSENT
    assert new.verify.steps["toy-double/twice"].state is RunState.HELD and new.verify.scenarios == {"toy": "passed"}

    shards = []
    for release in ("1.2.0", "1.1.0"):  # in another order, one process each, as the workflow's jobs run them
        shard = tmp_path / f"cell-{release}.json"
        assert main([*toy_args, "matrix", "--cell", f"toylib=={release},cpu", "--out", str(shard)]) in (0, 1)
        shards.append(str(shard))
    merged = tmp_path / "merged.json"
    assert main([*toy_args, "matrix", "--merge", *shards, "--releases", "toylib==1.1.0,1.2.0", "--out", str(merged)]) == 0
    assert _comparable(load_matrix_report(merged)) == _comparable(report)
    assert main([*toy_args, "matrix", "--merge", *shards, "--fail-on", "all", "--out", str(merged)]) == 1
