"""Badges from the reports' shapes: the drift check's JSON and the verifier's."""

from __future__ import annotations

from infralens.sphinx.badges import BadgeState, Reports, VerifyReport, _drift_statuses


def test_drift_statuses_from_the_check_report_shape() -> None:
    report = {
        "format": 1,
        "steps": {"ddim-step/a1": {"kind": "unchanged"}, "ddim-step/b2": {"kind": "changed", "new": {"line": 3}}},
        "targets": {"ddim-step": {"id": "ddim-step", "kind": "unchanged"}},
    }
    statuses = _drift_statuses(report)
    assert statuses["ddim-step/a1"] == "unchanged" and statuses["ddim-step/b2"] == "changed"


def test_function_badges_summarise_steps() -> None:
    reports = Reports(drift={"a/1": "unchanged", "a/2": "moved"}, verify=(VerifyReport("cpu", "2026-11-21", {}, {"a/1": "passed", "a/2": "static"}),))
    drift, cpu = reports.function_badges(["a/1", "a/2", "a/3"], ["a"])
    assert (drift.state, drift.label) == (BadgeState.WARN, "drift: 1 moved")
    assert (cpu.state, cpu.label) == (BadgeState.WARN, "cpu: 1/2 verified (+1 read only)")  # a/3 never ran
    clean = Reports(drift={"a/1": "unchanged"}).function_badges(["a/1"], ["a"])[0]
    assert (clean.state, clean.label) == (BadgeState.OK, "drift: unchanged")
    missing = Reports().function_badges(["a/1"], ["a"])
    assert [b.label for b in missing] == ["drift: not checked", "verification: not checked"]
