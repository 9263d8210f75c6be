"""Badges from the two reports, read through infralens.reports (the drift check's JSON and the verifier's)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from infralens.reports import DriftKind, LockFindingKind, ScenarioStatus, StepRecord, StepStatus, VerifyReport, load_drift_report
from infralens.sphinx.badges import BadgeState, Reports, drift_statuses, load_reports

ROOT = Path(__file__).resolve().parents[2]


def _verify(steps: dict[str, StepStatus], device: str = "cpu") -> VerifyReport:
    records = {step_id: StepRecord(status, 0, None, "a.yaml", 1, None) for step_id, status in steps.items()}
    return VerifyReport("2026-11-21T00:00:00Z", device, None, {}, (), {}, records)


def test_drift_statuses_from_the_committed_check_report() -> None:
    report = load_drift_report(ROOT / "reports" / "check.json")
    statuses = drift_statuses(report)
    step_id, step = next(iter(report.steps.items()))
    assert statuses[step_id] is step.kind and statuses[step.annotation] is step.kind
    assert set(statuses) >= set(report.steps)


def test_function_badges_summarise_steps() -> None:
    reports = Reports(
        drift={"a/1": DriftKind.UNCHANGED, "a/2": DriftKind.MOVED},
        verify=(_verify({"a/1": StepStatus.PASSED, "a/2": StepStatus.STATIC}),),
    )
    drift, cpu = reports.function_badges(["a/1", "a/2", "a/3"], ["a"])
    assert (drift.state, drift.label) == (BadgeState.WARN, "drift: 1 moved")
    assert drift.title == "from reports/check.json: 1 moved, 1 unchanged"
    assert (cpu.state, cpu.label) == (BadgeState.WARN, "cpu: 1/2 verified (+1 read only)")  # a/3 never ran
    assert cpu.title.startswith("1 not-run, 1 passed, 1 static (cpu; ")
    clean = Reports(drift={"a/1": DriftKind.UNCHANGED}).function_badges(["a/1"], ["a"])[0]
    assert (clean.state, clean.label) == (BadgeState.OK, "drift: unchanged")
    unlocked = Reports(drift={"b": LockFindingKind.UNLOCKED}).function_badges(["b/1"], ["b"])[0]
    assert (unlocked.state, unlocked.label) == (BadgeState.WARN, "drift: 1 unlocked")
    missing = Reports().function_badges(["a/1"], ["a"])
    assert [b.label for b in missing] == ["drift: not checked", "verification: not checked"]


def test_step_chips_use_the_status_words() -> None:
    reports = Reports(verify=(_verify({"a/1": StepStatus.FAILED}),))
    [chip] = reports.step_status("a/1")
    assert (chip.state, chip.label) == (BadgeState.BAD, "cpu: failed")
    [unknown] = reports.step_status("a/9")
    assert (unknown.state, unknown.label) == (BadgeState.WARN, "cpu: not-run")


def test_load_reports_reads_both_committed_reports(tmp_path: Path) -> None:
    for name in ("check.json", "verify-cpu.json"):
        shutil.copy(ROOT / "reports" / name, tmp_path / name)
    reports = load_reports(tmp_path)
    assert reports.drift is not None and reports.drift
    [cpu] = reports.verify
    assert cpu.device == "cpu" and all(record.status in (StepStatus.PASSED, StepStatus.STATIC) for record in cpu.steps.values())
    assert all(s.status is ScenarioStatus.PASSED for s in cpu.scenarios.values())


@pytest.mark.parametrize("text", ['{"device": "cpu", "steps": {}}', "{", '{"neither": 1}'])
def test_a_broken_report_is_a_warning_and_shows_not_checked(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "verify-cpu.json").write_text(text)
    warned: list[tuple[str, object]] = []
    monkeypatch.setattr("infralens.sphinx.badges.warn", lambda message, subtype, location=None: warned.append((message, location)))
    reports = load_reports(tmp_path)
    assert reports.verify == () and len(warned) == 1
    message, location = warned[0]
    assert message.startswith("cannot read report: ") and "verify-cpu.json" in str(location)
    json.dumps(message)  # plain text
