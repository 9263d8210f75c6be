"""The maintainer's loop on real diffusers: an edited copy of DDIMScheduler.step, ``check --against``, then ``fix``.

The copy of the installed diffusers loses ``pred_epsilon = model_output``, has ``std_dev_t`` renamed to
``sigma_t`` and ten lines inserted at the top of ``step``. ``check`` must call the lost step *deleted* and
the renamed ones *changed* with nothing *moved* (the "# Copied from" clone in DDIMParallelScheduler still
holds the lost line); ``fix`` must then leave one ``validate`` error: the deleted step.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from infralens.cli import main
from infralens.source import InstalledTree

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _edited_diffusers(into: Path) -> Path:
    installed = InstalledTree("diffusers").root / "diffusers"
    copy = into / "site" / "diffusers"
    shutil.copytree(installed, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    path = copy / "schedulers" / "scheduling_ddim.py"
    text = path.read_text("utf-8")
    start = text.index("    def step(")
    end = text.index("\n    def ", start + 1)
    body = text[start:end].replace("            pred_epsilon = model_output\n", "", 1)
    body = re.sub(r"\bstd_dev_t\b", "sigma_t", body)
    anchor = body.index("        if self.num_inference_steps is None:")
    body = body[:anchor] + "".join(f"        _inserted_{n} = {n}\n" for n in range(10)) + body[anchor:]
    path.write_text(text[:start] + body + text[end:], "utf-8")
    return into / "site"


def _project(into: Path) -> Path:
    project = into / "project"
    project.mkdir()
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    shutil.copytree(ROOT / "annotations", project / "annotations")
    shutil.copytree(ROOT / "labs", project / "labs")
    return project


def test_ddim_step_edits_are_classified_then_repaired(tmp_path, capsys):
    # the shared index cache: entries are keyed by file content, so the edited copy gets its own
    site = _edited_diffusers(tmp_path)
    project = _project(tmp_path)

    assert main(["--project", str(project), "check", "--against", str(site), "--format", "json", "ddim-step"]) == 1
    report = json.loads(capsys.readouterr().out)
    kinds = {step_id: step["kind"] for step_id, step in report["steps"].items()}
    assert kinds["ddim-step/eps-is-output"] == "deleted"
    assert kinds["ddim-step/std-dev"] == kinds["ddim-step/direction"] == "changed"
    assert "moved" not in kinds.values()
    assert sum(1 for kind in kinds.values() if kind != "unchanged") == 3

    assert main(["--project", str(project), "--source", f"diffusers={site}", "fix", "ddim-step"]) in (0, 1)
    capsys.readouterr()
    assert main(["--project", str(project), "--source", f"diffusers={site}", "validate"]) == 1
    out = capsys.readouterr()
    errors = [line for line in (out.out + out.err).splitlines() if ": error: " in line]
    assert len(errors) == 1 and "'pred_epsilon = model_output' matches no statement" in errors[0], errors
