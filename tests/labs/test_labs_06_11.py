"""Labs 06-11: every starter runs on CPU with ``--steps 2 --check`` and prints the facts a learner
should see; every lab page embeds only annotated targets and asks every exercise the starter checks."""

from __future__ import annotations

import pytest
from _starters import annotated_targets, annotation_files, assert_ran_and_printed, embedded_targets, load_starter, page_text, starter_answers
from solutions import SOLUTIONS

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


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_starter_runs_and_checks(starter_runs, lab):
    result = starter_runs[lab]
    assert_ran_and_printed(result, lab, FACTS[lab])
    assert "all answers correct" in result.stdout
    assert result.stdout.count("[ok]") == len(starter_answers(lab))


@pytest.mark.parametrize("lab", LABS)
def test_check_counts_a_wrong_answer(lab, capsys):
    """--check is a real check: the comparison the starter exits with flags a wrong value by name."""
    module = load_starter(lab)
    module.ANSWERS = dict(SOLUTIONS[lab])  # check() compares with the module's ANSWERS
    computed = dict(SOLUTIONS[lab])
    assert module.check(computed) == 0
    key = next(iter(computed))
    computed[key] = "something else"
    assert module.check(computed) == 1
    assert f"[WRONG] {key}:" in capsys.readouterr().out


@pytest.mark.parametrize("lab", LABS)
def test_page_embeds_only_annotated_targets(lab):
    page = page_text(lab)
    assert page.startswith(f"# Lab {lab[:2]}:"), "the first heading is the lab title"
    embedded = embedded_targets(page)
    assert embedded, f"{lab}: the page embeds no annotated function"
    missing = embedded - annotated_targets()
    assert not missing, f"{lab}: directives name targets no annotation covers: {sorted(missing)}"


@pytest.mark.parametrize("lab", LABS)
def test_page_asks_every_checked_exercise(lab):
    page = page_text(lab)
    for key in starter_answers(lab):
        assert f"`{key}`" in page, f"{lab}: exercise answer {key!r} is checked by the starter but not asked on the page"
    for heading in (
        "## Goal",
        "## Mental model",
        "## Reading checkpoints",
        "## Common misunderstandings",
        "## Say it in an interview",
        "## Exercises",
        "## Further reading",
    ):
        assert heading in page, f"{lab}: missing section {heading!r}"


@pytest.mark.parametrize("lab", LABS)
def test_annotations_point_at_existing_labs(lab):
    """Every annotation of this lab names it by its folder slug (so the site can link both ways)."""
    for path, annotation in annotation_files(f"{lab[:2]}-*.yaml"):
        assert annotation["lab"] == lab, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
