"""The three-stage matcher on real diffusers: an edited copy of the installed release, locked fresh, then checked.

The copy of ``scheduling_ddim.py`` gets four kinds of upstream edit: redundant parentheses around the
right-hand side of ``prev_timestep = …`` (same tree: *unchanged*), ``@torch.no_grad()`` added to
``DDIMScheduler.step`` (a target finding, failing only ``--strict``), ``self.num_inference_steps = …``
written as a setter call in ``set_timesteps`` (same action: *changed*), and the two ``step_ratio``
statements of ``set_timesteps`` made identical (each step keeps its own: one *unchanged*, the other *changed*).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from infralens.cli import main
from infralens.source import InstalledTree

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

ANNOTATIONS = ("02-ddim-step.yaml", "03-ddim-set-timesteps.yaml")


def _edited_diffusers(into: Path) -> Path:
    installed = InstalledTree("diffusers").root / "diffusers"
    copy = into / "site" / "diffusers"
    shutil.copytree(installed, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    path = copy / "schedulers" / "scheduling_ddim.py"
    text = path.read_text("utf-8")
    edits = [
        (
            "prev_timestep = timestep - self.config.num_train_timesteps // self.num_inference_steps",
            "prev_timestep = (timestep - self.config.num_train_timesteps // self.num_inference_steps)",
        ),
        ("    def step(\n", "    @torch.no_grad()\n    def step(\n"),
        ("        self.num_inference_steps = num_inference_steps\n", "        self.set_num_inference_steps(num_inference_steps)\n"),
        ("step_ratio = self.config.num_train_timesteps / self.num_inference_steps", "step_ratio = self.config.num_train_timesteps // self.num_inference_steps"),
    ]
    for old, new in edits:
        assert text.count(old) >= 1, old
        text = text.replace(old, new, 1)
    path.write_text(text, "utf-8")
    return into / "site"


def _project(into: Path) -> Path:
    project = into / "project"
    (project / "annotations" / "diffusers").mkdir(parents=True)
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    shutil.copytree(ROOT / "labs", project / "labs")
    for name in ANNOTATIONS:
        shutil.copy(ROOT / "annotations" / "diffusers" / name, project / "annotations" / "diffusers" / name)
    return project


def test_parentheses_setter_one_to_one_and_decorator_on_real_diffusers(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    site = _edited_diffusers(tmp_path)
    project = _project(tmp_path)
    assert main(["--project", str(project), "lock"]) == 0
    capsys.readouterr()

    assert main(["--project", str(project), "check", "--against", str(site), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    steps = report["steps"]
    assert (steps["ddim-step/prev-timestep"]["kind"], steps["ddim-step/prev-timestep"]["rule"]) == ("unchanged", "same-tree")
    setter = steps["ddim-set-timesteps/store-n"]
    assert (setter["kind"], setter["rule"]) == ("changed", "same-action")
    assert "setter call and attribute assignment" in setter["message"]
    ratios = [steps["ddim-set-timesteps/leading-ratio"], steps["ddim-set-timesteps/trailing-ratio"]]
    assert sorted(s["kind"] for s in ratios) == ["changed", "unchanged"]
    placed = [(s["new"]["source"], tuple(s["new"]["lines"])) for s in steps.values() if s["new"] is not None]
    assert len(placed) == len(set(placed)), "two steps were placed on one statement"
    target = report["targets"]["ddim-step"]
    assert (target["kind"], target["rule"]) == ("decorators-changed", "decorators-changed")
    assert "decorator added: @torch.no_grad" in target["message"]
    assert report["targets"]["ddim-set-timesteps"]["kind"] == "body-changed"  # its decorators read alike from both indexes

    # The decorator alone fails only --strict, and the text report names it.
    assert main(["--project", str(project), "check", "--against", str(site), "--strict", "ddim-step/alpha-t"]) == 1
    out = capsys.readouterr().out
    assert "target decorators-changed" in out and "@torch.no_grad" in out
    assert main(["--project", str(project), "check", "--against", str(site), "ddim-step/alpha-t", "--explain", "ddim-step/alpha-t"]) == 0
    out = capsys.readouterr().out
    assert "explain ddim-step/alpha-t: unchanged by rule 'same-text'" in out and "evidence: origin target" in out
    chain = out[out.index("rules, in order:") :].splitlines()[1:]
    assert chain[0].strip().startswith("1. body-changed fired") and chain[-1].strip().endswith("same-text fired: unchanged"), chain
    assert any("decorators-changed fired: decorator added: @torch.no_grad" in line for line in chain), chain
