"""The summary of runs on other releases (``infralens history --runs``), built from small verification reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infralens.cli import main
from infralens.drift.runs_summary import write_runs_summary
from infralens.reports import (
    ExpectRecord,
    ReportError,
    RunsInputError,
    RunState,
    ScenarioRecord,
    ScenarioStatus,
    StepRecord,
    StepStatus,
    VerifyReport,
    dumps_report,
    load_history_runs,
    load_report,
    summarize_runs,
)

HELD = ExpectRecord("x > 0", True, "x=1", 3, 1)
WRONG = ExpectRecord("x < 0", False, "x=1", 4, 1, "ValueError: boom\n  more")


def _step(status: StepStatus, expects: tuple[ExpectRecord, ...] = (), reason: str | None = None) -> StepRecord:
    return StepRecord(status, 1 if status is not StepStatus.NOT_RUN else 0, "toy", "annotations/a.yaml", 2, None, expects, reason)


def _report(version: str, steps: dict[str, StepRecord], error: str | None = None) -> VerifyReport:
    scenarios = {"toy": ScenarioRecord(ScenarioStatus.ERROR if error else ScenarioStatus.PASSED, 1.0, error=error)}
    return VerifyReport("2026-11-25T20:00:00Z", "cpu", None, {"python": "3.11", "demo": version}, (), scenarios, steps)


def _reports() -> list[tuple[str, VerifyReport]]:
    old = _report(
        "0.9.0",
        {
            "a/held": _step(StepStatus.PASSED, (HELD,)),
            "a/ran": _step(StepStatus.PASSED),
            "a/wrong": _step(StepStatus.FAILED, (HELD, WRONG)),
            "a/gone": _step(StepStatus.NOT_RUN, reason="the step did not resolve (see the diagnostics above)"),
            "a/static": _step(StepStatus.STATIC, reason="read by hand"),
            "a/stopped": _step(StepStatus.NOT_RUN, reason="never ran during scenario 'toy'\n(the scenario stopped: " + "x" * 400 + ")"),
        },
        error="AttributeError: no 'type'",
    )
    new = _report(
        "0.10.0",
        {
            "a/held": _step(StepStatus.PASSED, (HELD,)),
            "a/wrong": _step(StepStatus.PASSED, (HELD,)),
            "a/gone": _step(StepStatus.PASSED, (HELD,)),
            "a/static": _step(StepStatus.STATIC, reason="read by hand"),
            "a/stopped": _step(StepStatus.PASSED, (HELD,)),
            "b/new": _step(StepStatus.PASSED, (HELD,)),
        },
    )
    return [("out/demo-0.10.0.json", new), ("out/demo-0.9.0.json", old)]


def test_each_step_gets_one_state_per_release_oldest_first() -> None:
    summary = summarize_runs(_reports(), "test")
    [series] = summary.series
    assert series.distribution == "demo" and series.releases == ("0.9.0", "0.10.0")  # 0.9 before 0.10: numbers, not text
    assert [run.report for run in series.runs] == ["out/demo-0.9.0.json", "out/demo-0.10.0.json"]
    assert series.runs[0].scenarios == {"toy": ScenarioStatus.ERROR} and series.runs[0].scenario_errors == {"toy": "AttributeError: no 'type'"}
    assert series.runs[1].scenario_errors == {}
    cells = {step.id: step.runs for step in series.steps}
    assert "a/static" not in cells  # never run: left out
    assert [c.state for c in cells["a/held"]] == [RunState.HELD, RunState.HELD] and cells["a/held"][0].reason == ""
    assert [c.state for c in cells["a/wrong"]] == [RunState.FAILED, RunState.HELD]
    assert cells["a/wrong"][0].reason == "x < 0 — ValueError: boom more"  # the failing expect, on one line
    assert cells["a/gone"][0].state is RunState.ABSENT and "not in this release" in cells["a/gone"][0].reason
    assert cells["a/ran"][0].state is RunState.RAN and cells["a/ran"][0].reason == "no expect"
    assert cells["a/ran"][1].state is RunState.NOT_RUN and cells["a/ran"][1].reason == "not in this run's report"
    assert cells["b/new"][0].state is RunState.NOT_RUN
    stopped = cells["a/stopped"][0]
    assert stopped.state is RunState.NOT_RUN and "\n" not in stopped.reason and len(stopped.reason) == 200 and stopped.reason.endswith("…")


def test_the_summary_round_trips_through_the_bounded_loader(tmp_path: Path) -> None:
    summary = summarize_runs(_reports(), "test")
    path = tmp_path / "history-runs.json"
    path.write_text(dumps_report(summary), "utf-8")
    assert load_report(path) == summary == load_history_runs(path)
    assert '    {"id":"a/held","runs":[{"state":"held"},{"state":"held"}]},' in path.read_text("utf-8")  # a step per line


def test_a_tampered_summary_is_a_report_error(tmp_path: Path) -> None:
    data = summarize_runs(_reports(), "test").to_json()
    path = tmp_path / "history-runs.json"
    data["distributions"][0]["steps"][0]["runs"].pop()  # type: ignore[index]
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(ReportError, match="run states for 2 runs"):
        load_history_runs(path)
    data["distributions"][0]["steps"][0]["runs"] = [{"state": "maybe"}] * 2  # type: ignore[index]
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(ReportError, match="'maybe' is not one of"):
        load_history_runs(path)


def test_which_release_ran_must_be_clear_and_given_once() -> None:
    new = _reports()[0][1]
    with pytest.raises(RunsInputError, match=r"its name says demo 0\.11\.0, but the report ran demo 0\.10\.0"):
        summarize_runs([("demo-0.11.0.json", new)], "test")
    with pytest.raises(RunsInputError, match="cannot tell which release ran"):
        summarize_runs([("verify.json", new)], "test")
    with pytest.raises(RunsInputError, match="given twice"):
        summarize_runs([("a/demo-0.10.0.json", new), ("b/demo-0.10.0.json", new)], "test")


def test_the_command_writes_the_summary_or_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = []
    for name, report in _reports():
        path = tmp_path / Path(name).name
        path.write_text(dumps_report(report), "utf-8")
        paths.append(str(path))
    output = tmp_path / "history-runs.json"
    assert main(["history", "--runs", *paths, "--output", str(output)]) == 0  # what `make history-verify` ends with
    assert load_history_runs(output).series[0].releases == ("0.9.0", "0.10.0")
    assert "2 runs, 6 steps" in capsys.readouterr().err
    (tmp_path / "demo-0.9.0.json").write_text("{", "utf-8")
    assert write_runs_summary(paths, str(output)) == 2
    assert "demo-0.9.0.json:1: not valid JSON" in capsys.readouterr().err and load_history_runs(output).series  # the old summary stays
