"""``verify --annotation ID --report PATH`` (and ``--scenario``) refresh part of a report: only those steps change."""

from __future__ import annotations

import json

import pytest
from _device import DEVICE, requires_test_device, requires_torch

from infralens.cli import main
from infralens.reports import ScenarioRecord, ScenarioStatus, StepRecord, StepStatus, VerifyReport
from infralens.verify.report import merge_records


def _report(created: str, steps: dict[str, StepRecord], versions: dict[str, str] | None = None) -> VerifyReport:
    scenarios = {step.scenario: ScenarioRecord(ScenarioStatus.PASSED, 1.0) for step in steps.values() if step.scenario}
    return VerifyReport(created, "cpu", None, versions or {"diffusers": "1"}, (), scenarios, steps)


def _step(scenario: str, status: StepStatus = StepStatus.PASSED, ran: int = 1) -> StepRecord:
    return StepRecord(status, ran, scenario, "a.yaml", 1, None)


def test_only_the_refreshed_annotation_is_replaced_and_the_rest_keeps_its_record_and_date():
    old = _report("2026-01-01T00:00:00Z", {"a/1": _step("s"), "a/gone": _step("s"), "b/1": _step("s", ran=7), "c/1": _step("t")})
    new = _report("2026-02-02T00:00:00Z", {"a/1": _step("s", StepStatus.FAILED, 2), "a/2": _step("s")})
    merged = merge_records(old, new, annotations=("a",))
    assert list(merged.steps) == ["a/1", "b/1", "c/1", "a/2"]  # a/gone left the annotation: dropped
    assert merged.steps["a/1"].status is StepStatus.FAILED and merged.steps["b/1"] == old.steps["b/1"]
    assert merged.created == old.created


def test_a_scenario_refresh_replaces_that_scenarios_steps_only():
    old = _report("x", {"a/1": _step("s"), "a/old": _step("s"), "b/1": _step("t")})
    new = _report("y", {"a/1": _step("s", ran=3)})
    merged = merge_records(old, new, scenarios=("s",))
    assert set(merged.steps) == {"a/1", "b/1"} and merged.steps["a/1"].times_ran == 3


def test_a_report_from_other_versions_is_not_merged():
    with pytest.raises(ValueError, match="diffusers 1 → 2"):
        merge_records(_report("x", {}), _report("y", {}, {"diffusers": "2"}), annotations=("a",))


ONE = """
id: merge-one
lab: 01-forward-noise
source: diffusers
target: diffusers.schedulers.scheduling_ddpm.DDPMScheduler.add_noise
summary: The forward equation.
scenario: forward-noise
steps:
  - key: forward
    at: "noisy_samples = sqrt_alpha_prod * original_samples + sqrt_one_minus_alpha_prod * noise"
    note: The closed-form forward process.
    expect:
      - "EXPECT"
"""


@pytest.mark.slow
@requires_torch
@requires_test_device
def test_refreshing_one_annotation_merges_into_the_report(write_project, tmp_path, capsys):
    strong = "torch.allclose(noisy_samples, sqrt_alpha_prod * original_samples + sqrt_one_minus_alpha_prod * noise)"
    files = {
        "annotations/diffusers/one.yaml": ONE.replace("EXPECT", strong),
        "annotations/diffusers/two.yaml": ONE.replace("merge-one", "merge-two").replace("EXPECT", strong),
    }
    root = write_project(files, labs=("01-forward-noise",))
    report = tmp_path / "verify.json"
    base = ["--project", str(root), "verify", "--device", DEVICE, "--report", str(report)]
    assert main(base) == 0
    before = json.loads(report.read_text())
    (root / "annotations/diffusers/one.yaml").write_text(ONE.replace("EXPECT", "noisy_samples.sum() == 12345"), encoding="utf-8")
    assert main([*base, "--annotation", "merge-one"]) == 1  # the changed expect now fails
    after = json.loads(report.read_text())
    assert after["steps"]["merge-one/forward"]["status"] == "failed"
    assert after["steps"]["merge-two/forward"] == before["steps"]["merge-two/forward"] and after["created"] == before["created"]
    assert "merged into" in capsys.readouterr().out
    assert main([*base, "--annotation", "no-such-id"]) == 2
