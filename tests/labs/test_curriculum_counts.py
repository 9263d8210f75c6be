"""scripts/curriculum_counts.py: counts read from annotations/ and labs/, exit code by target."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "curriculum_counts.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], check=False, capture_output=True, text=True, timeout=120)


def _expected_from_files(root: Path) -> tuple[int, int]:
    targets, notes = set(), 0
    for path in (root / "annotations").rglob("*.yaml"):
        data = yaml.safe_load(path.read_text("utf-8"))
        for annotation in data if isinstance(data, list) else [data]:
            targets.add((annotation["source"], annotation["target"]))
            notes += len(annotation["steps"])
    return len(targets), notes


def test_real_curriculum_meets_the_targets():
    result = _run("--json")
    counts = json.loads(result.stdout)
    functions, notes = _expected_from_files(ROOT)
    assert counts["functions"] == functions and counts["notes"] == notes
    assert counts["labs"] == len([p for p in (ROOT / "labs").glob("lab-*") if p.is_dir()])
    assert set(counts["frameworks"]) >= {"diffusers", "diffsynth"}
    assert sum(fw["notes"] for fw in counts["frameworks"].values()) == notes
    diffsynth = counts["frameworks"]["diffsynth"]["functions"]
    assert result.returncode == (0 if functions >= 160 and notes >= 800 and diffsynth >= 55 and counts["labs_complete"] >= 17 else 1)
    assert counts["meets_targets"] is (result.returncode == 0)


def _write_project(root: Path, steps: int) -> None:
    (root / "annotations" / "diffusers").mkdir(parents=True)
    (root / "labs" / "lab-01-forward-noise").mkdir(parents=True)
    (root / "labs" / "lab-01-forward-noise" / "index.md").write_text("# Lab 01\n", "utf-8")
    (root / "labs" / "lab-01-forward-noise" / "starter.py").write_text("", "utf-8")
    (root / "labs" / "lab-02-denoising-step").mkdir()
    annotation = {
        "id": "tiny",
        "lab": "01-forward-noise",
        "source": "diffusers",
        "target": "diffusers.schedulers.scheduling_ddpm.DDPMScheduler.add_noise",
        "summary": "s",
        "steps": [{"at": f"x{i} = {i}", "note": "n"} for i in range(steps)],
    }
    (root / "annotations" / "diffusers" / "tiny.yaml").write_text(yaml.safe_dump(annotation), "utf-8")


def test_small_project_is_counted_and_below_target(tmp_path):
    _write_project(tmp_path, steps=3)
    result = _run("--project", str(tmp_path))
    assert result.returncode == 1
    assert "labs:                 2 (1 with index.md and starter.py; target >= 17: NO)" in result.stdout
    assert "annotated functions:  1  (target >= 160: NO)" in result.stdout
    assert "notes:                3  (target >= 800: NO)" in result.stdout
    assert "diffusers    functions   1   notes    3" in result.stdout


def test_broken_annotation_exits_2_with_its_location(tmp_path):
    _write_project(tmp_path, steps=1)
    (tmp_path / "annotations" / "diffusers" / "broken.yaml").write_text("id: [unclosed\n", "utf-8")
    result = _run("--project", str(tmp_path))
    assert result.returncode == 2
    assert "broken.yaml" in result.stderr and "Traceback" not in result.stderr
