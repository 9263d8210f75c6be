"""Labs 06-11: every starter runs on CPU with ``--steps 2 --check`` and prints the facts a learner
should see; every lab page embeds only annotated targets and asks every exercise the starter checks."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
LABS = (
    "06-vae-latent-space",
    "07-pipeline-components",
    "08-unet-dit-conditioning",
    "09-lora-injection",
    "10-controlnet-conditioning",
    "11-memory-optimization",
)
# Facts each starter must print. They are computed by the real upstream code, so a change in
# diffusers/DiffSynth behaviour (or a broken starter) shows up here.
FACTS = {
    "06-vae-latent-space": [
        "latent (1, 4, 32, 32): spatial factor 2**(levels-1) = 2",
        "tiles decoded: 36 of shape (1, 4, 16, 16)",
        "strength 0.5: UNet timesteps [251, 1]",
        "0 missing, 0 unexpected keys",
    ],
    "07-pipeline-components": [
        "unet: ['diffusers', 'UNet2DConditionModel']",
        "safety_checker: [None, None]",
        "output max |diff| = 0.0",
        "in_iteration_models=('unet',)",
    ],
    "08-unet-dit-conditioning": [
        "time embedding after the MLP: (2, 128)",
        "12 attention processors, types ['AttnProcessor2_0']",
        "patch 2 -> tokens (2, 16, 16)",
        "adaLN-Zero linear output (2, 96) = 6 x inner_dim",
    ],
    "09-lora-injection": [
        "96 tensors in the file -> 48 wrapped layers",
        "A (4, 64), B (64, 4), scaling = lora_alpha / r = 1.0",
        "scale 0.00: max |output - base| = 0.0000",
        "layers still wrapped after unload: 0",
    ],
    "10-controlnet-conditioning": [
        "max |residual| = 0.0; UNet output change when they are added = 0.0",
        "ControlNet calls 2 (batch [2, 2]), UNet calls 2 (batch [2, 2])",
        "scale 0.0: 0.0000",
    ],
    "11-memory-optimization": [
        "largest score tensor: classic 4096 KiB, sliced(1) 256 KiB",
        "3 hooks ['CLIPTextModel', 'UNet2DConditionModel', 'AutoencoderKL']",
        "170 wrapped modules",
    ],
}
DIRECTIVE = re.compile(r"^```\{infralens-function\}\s+(\S+)|^:(?:diffusers|diffsynth):\s+(\S+)", re.M)


def _run_starter(lab: str, script: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    script = script or ROOT / "labs" / f"lab-{lab}" / "starter.py"
    return subprocess.run([sys.executable, str(script), "--steps", "2", "--check"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def starter_runs() -> dict[str, subprocess.CompletedProcess]:
    # Two at a time: CI has two cores and every starter runs torch with one thread.
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(LABS, pool.map(_run_starter, LABS)))


def _answers(lab: str) -> dict:
    path = ROOT / "labs" / f"lab-{lab}" / "starter.py"
    spec = importlib.util.spec_from_file_location(f"starter_{lab.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the top level imports only argparse, sys, json, os, copy, inspect
    return module.ANSWERS


def _annotated_targets() -> set[str]:
    targets = set()
    for path in (ROOT / "annotations").rglob("*.yaml"):
        data = yaml.safe_load(path.read_text("utf-8"))
        for annotation in data if isinstance(data, list) else [data]:
            targets.add(annotation["target"])
    return targets


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_starter_runs_and_checks(starter_runs, lab):
    result = starter_runs[lab]
    assert result.returncode == 0, f"{lab} starter failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert "all answers correct" in result.stdout
    assert result.stdout.count("[ok]") == len(_answers(lab))
    for fact in FACTS[lab]:
        assert fact in result.stdout, f"{lab}: expected {fact!r} in the output:\n{result.stdout}"


@pytest.mark.parametrize("lab", LABS)
def test_check_counts_a_wrong_answer(lab, capsys):
    """--check is a real check: the comparison the starter exits with flags a wrong value by name."""
    path = ROOT / "labs" / f"lab-{lab}" / "starter.py"
    spec = importlib.util.spec_from_file_location(f"starter_check_{lab.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    computed = dict(module.ANSWERS)
    assert module.check(computed) == 0
    key = next(iter(computed))
    computed[key] = "something else"
    assert module.check(computed) == 1
    assert f"[WRONG] {key}:" in capsys.readouterr().out


@pytest.mark.parametrize("lab", LABS)
def test_page_embeds_only_annotated_targets(lab):
    page = (ROOT / "labs" / f"lab-{lab}" / "index.md").read_text("utf-8")
    assert page.startswith(f"# Lab {lab[:2]}:"), "the first heading is the lab title"
    embedded = {a or b for a, b in DIRECTIVE.findall(page)}
    assert embedded, f"{lab}: the page embeds no annotated function"
    missing = embedded - _annotated_targets()
    assert not missing, f"{lab}: directives name targets no annotation covers: {sorted(missing)}"


@pytest.mark.parametrize("lab", LABS)
def test_page_asks_every_checked_exercise(lab):
    page = (ROOT / "labs" / f"lab-{lab}" / "index.md").read_text("utf-8")
    for key in _answers(lab):
        assert f"`{key}`" in page, f"{lab}: exercise answer {key!r} is checked by the starter but not asked on the page"
    for heading in ("## Goal", "## Mental model", "## Reading checkpoints", "## Common misunderstandings",
                    "## Say it in an interview", "## Exercises", "## Further reading"):
        assert heading in page, f"{lab}: missing section {heading!r}"


@pytest.mark.parametrize("lab", LABS)
def test_annotations_point_at_existing_labs(lab):
    """Every annotation of this lab names it by its folder slug (so the site can link both ways)."""
    for source in ("diffusers", "diffsynth"):
        for path in (ROOT / "annotations" / source).glob(f"{lab[:2]}-*.yaml"):
            data = yaml.safe_load(path.read_text("utf-8"))
            for annotation in data if isinstance(data, list) else [data]:
                assert annotation["lab"] == lab, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
