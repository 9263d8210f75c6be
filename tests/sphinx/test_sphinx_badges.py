"""Badges from the two reports, read through infralens.reports (the drift check's JSON and the verifier's)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from infralens.reports import (
    DriftKind,
    ExpectRecord,
    LockFindingKind,
    MutantRecord,
    MutantsRecord,
    MutantVerdict,
    ScenarioStatus,
    StepRecord,
    StepStatus,
    VerifyReport,
    load_drift_report,
)
from infralens.sphinx.badges import BadgeState, Reports, drift_statuses, load_reports

ROOT = Path(__file__).resolve().parents[2]


def _verify(steps: dict[str, StepStatus | str], device: str = "cpu") -> VerifyReport:
    """A mutation-tested report; a step given as ``"checked"`` passed with one expect that rejected an operator mutant,
    ``"ran"`` passed with none."""
    records = {}
    for step_id, status in steps.items():
        expects = (ExpectRecord("x > 0", True, "x=1", 3, 1),) if status == "checked" else ()
        real = StepStatus.PASSED if status in ("checked", "ran") else StepStatus(status)
        caught = MutantsRecord(1, 1, {"expect": 1}, (MutantRecord("operator", MutantVerdict.CAUGHT, "x = a - b", step_id),))
        records[step_id] = StepRecord(
            real,
            0 if real is StepStatus.STATIC else 1,
            None,
            "a.yaml",
            1,
            None,
            expects,
            "read by hand" if real is StepStatus.STATIC else None,
            mutants=caught if real is StepStatus.PASSED else None,
        )
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
        verify=(_verify({"a/1": "checked", "a/2": StepStatus.STATIC}),),
    )
    drift, cpu = reports.function_badges(["a/1", "a/2", "a/3"], ["a"])
    assert (drift.state, drift.label) == (BadgeState.WARN, "drift: 1 moved")
    assert drift.title == "from reports/check.json: 1 moved, 1 unchanged"
    assert (cpu.state, cpu.label) == (BadgeState.WARN, "cpu: 1/2 checked (+1 read)")  # a/3 never ran: not green
    assert cpu.title.startswith("1 checked, 1 read, 1 unverified (cpu; ")
    all_checked = Reports(verify=(_verify({"a/1": "checked", "a/2": StepStatus.STATIC}),)).function_badges(["a/1", "a/2"], ["a"])[1]
    assert (all_checked.state, all_checked.label) == (BadgeState.OK, "cpu: 1/1 checked (+1 read)")
    clean = Reports(drift={"a/1": DriftKind.UNCHANGED}).function_badges(["a/1"], ["a"])[0]
    assert (clean.state, clean.label) == (BadgeState.OK, "drift: unchanged")
    unlocked = Reports(drift={"b": LockFindingKind.UNLOCKED}).function_badges(["b/1"], ["b"])[0]
    assert (unlocked.state, unlocked.label) == (BadgeState.WARN, "drift: 1 unlocked")
    missing = Reports().function_badges(["a/1"], ["a"])
    assert [b.label for b in missing] == ["drift: not checked", "verification: not checked"]


def test_a_step_that_only_ran_is_never_green_and_never_a_warning() -> None:
    """*ran* is neutral: nothing is wrong, nothing was shown either; it neither greens nor ambers a function."""
    reports = Reports(verify=(_verify({"a/1": "ran", "a/2": "ran"}),))
    [cpu] = reports.function_badges(["a/1", "a/2"], ["a"])[1:]
    assert (cpu.state, cpu.label) == (BadgeState.NEUTRAL, "cpu: 0 checked")
    [chip] = reports.step_status("a/1")
    assert (chip.state, chip.label) == (BadgeState.NEUTRAL, "cpu: ran")
    assert chip.title.startswith("ran: no expect")
    one_ran = Reports(verify=(_verify({"a/1": "checked", "a/2": "ran"}),)).function_badges(["a/1", "a/2"], ["a"])[1]
    assert (one_ran.state, one_ran.label) == (BadgeState.OK, "cpu: 1/2 checked")  # one "ran" no longer turns it amber


def test_step_chips_use_the_tier_words() -> None:
    reports = Reports(verify=(_verify({"a/1": StepStatus.FAILED, "a/2": "checked", "a/3": StepStatus.STATIC}),))
    [chip] = reports.step_status("a/1")
    assert (chip.state, chip.label) == (BadgeState.BAD, "cpu: failed")
    [checked] = reports.step_status("a/2")
    assert (checked.state, checked.label) == (BadgeState.OK, "cpu: checked")
    [read] = reports.step_status("a/3")
    assert (read.state, read.label) == (BadgeState.INFO, "cpu: read") and "read by hand" in read.title
    [unknown] = reports.step_status("a/9")
    assert (unknown.state, unknown.label) == (BadgeState.UNKNOWN, "cpu: unverified")


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
