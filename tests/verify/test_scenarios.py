"""Integration: the scenarios on the real pinned diffusers/DiffSynth, traced against the real annotations.

``INFRALENS_TEST_DEVICE`` picks the device of the main test (cpu by default); the ``gpu`` test runs
the same on CUDA and is skipped without it.
"""

from __future__ import annotations

import argparse
import json

import pytest
from _device import DEVICE, requires_gpu, requires_test_device, requires_torch
from verify_helpers import line_of

from infralens.cli import main, open_context
from infralens.project import find_project, load_annotations
from infralens.tiny.diffsynth_loader import STUBBED_MODULES
from infralens.verify.report import findings
from infralens.verify.run.plan import build_plan
from infralens.verify.run.runner import run_plan

pytestmark = [requires_torch]


def _real_plan():
    args = argparse.Namespace(project=None, source=[], no_cache=False, command="verify")
    project, resolver = open_context(args)
    loaded = load_annotations(project)
    return build_plan(project, resolver, loaded.annotations, loaded.diagnostics)


def _run_everything(device: str):
    plan = _real_plan()
    result = run_plan(plan, device, jobs=2, scenarios=plan.catalog.names())
    broken = [f"{s.scenario}: {s.status}: {s.error}" for s in result.scenarios if s.status != "passed"]
    assert not broken, "\n".join(broken)
    problems = findings(result) + [str(d) for d in plan.diagnostics]
    assert not problems, "\n".join(problems)
    traced = [s for s in result.steps if s.status != "static"]
    assert traced and all(s.times_ran > 0 for s in traced)
    # The full-package DiffSynth worker stubbed only the documented modules, modelscope among them.
    assert "modelscope" in result.stubbed and set(result.stubbed) <= set(STUBBED_MODULES)
    return result


@pytest.mark.slow
@requires_test_device
def test_every_scenario_runs_and_every_annotated_step_holds():
    _run_everything(DEVICE)


@pytest.mark.gpu
@requires_gpu
def test_every_scenario_runs_and_every_annotated_step_holds_on_cuda():
    result = _run_everything("cuda")
    assert result.device == "cuda" and result.device_name


FALSE_EXPECT = """
id: test-add-noise
lab: 01-forward-noise
source: diffusers
target: diffusers.schedulers.scheduling_ddpm.DDPMScheduler.add_noise
summary: A synthetic annotation on the real diffusers with one true and one false claim.
scenario: forward-noise
steps:
  - at: "noisy_samples = sqrt_alpha_prod * original_samples + sqrt_one_minus_alpha_prod * noise"
    note: The closed-form forward process.
    expect:
      - "noisy_samples.shape == original_samples.shape"
      - "noisy_samples.shape[0] == 99"
"""


@requires_test_device
def test_a_false_expect_fails_with_its_file_line_and_observed_value(write_project, capsys, tmp_path):
    root = write_project({"annotations/diffusers/test-add-noise.yaml": FALSE_EXPECT}, labs=("01-forward-noise",))
    yaml_path = root / "annotations/diffusers/test-add-noise.yaml"
    report = tmp_path / "verify.json"
    code = main(["--project", str(root), "verify", "--device", DEVICE, "--scenario", "forward-noise", "--report", str(report)])
    _out, err = capsys.readouterr()
    false_line = line_of(yaml_path, "noisy_samples.shape[0] == 99")
    assert code == 1
    assert f"annotations/diffusers/test-add-noise.yaml:{false_line}: error: expect failed" in err
    assert "noisy_samples.shape=(3, 4, 6, 10)" in err
    step = next(iter(json.loads(report.read_text())["steps"].values()))
    assert step["status"] == "failed" and step["times_ran"] == 1 and step["scenario"] == "forward-noise"
    true_expect, false_expect = step["expects"]
    assert true_expect["passed"] is True
    assert false_expect == {
        "expr": "noisy_samples.shape[0] == 99",
        "passed": False,
        "observed": "noisy_samples.shape=(3, 4, 6, 10)",
        "line": false_line,
        "evaluations": 1,
    }


@requires_test_device
def test_a_true_expect_passes(write_project, capsys):
    text = FALSE_EXPECT.replace('      - "noisy_samples.shape[0] == 99"\n', "")
    root = write_project({"annotations/diffusers/test-add-noise.yaml": text}, labs=("01-forward-noise",))
    assert main(["--project", str(root), "verify", "--device", DEVICE, "--scenario", "forward-noise"]) == 0
    assert "1 steps: 0 checked, 1 held, 0 ran, 0 read, 0 unverified (0 failed)" in capsys.readouterr().out


def test_the_real_project_has_no_step_without_scenario_or_static_reason():
    plan = _real_plan()
    assert find_project().annotations_dir.is_dir()
    unassigned = [f"{s.where}: {s.problem}" for s in plan.steps if not s.static and s.problem]
    assert not unassigned, "\n".join(unassigned)
