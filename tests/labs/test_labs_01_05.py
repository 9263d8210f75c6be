"""Labs 01-05: every starter runs on CPU with a small step count and its exercise answers check out;
every lab page embeds only annotated targets and lists every exercise the starter checks."""

from __future__ import annotations

import pytest
from _starters import annotated_targets, annotation_files, assert_ran_and_printed, embedded_targets, page_text, run_starter, starter_answers, write_starter
from solutions import SOLUTIONS

LABS = (
    "01-forward-noise",
    "02-denoising-step",
    "03-scheduler-reading",
    "04-scheduler-loop",
    "05-classifier-free-guidance",
)
# A few facts each starter must print (computed by the real code, so a regression shows here).
FACTS = {
    "01-forward-noise": ["max |add_noise - closed form| = 0.00e+00", "DiffSynth noises sample 2 at t=10"],
    "02-denoising-step": ["final_alpha_cumprod = 0.99915", "lands on level 749 (grid says 666)"],
    "03-scheduler-reading": ["trailing  [999, 499]", "FlowMatchScheduler('flux'  ) -> set_timesteps_flux"],
    "04-scheduler-loop": ["unet(batch=2, t=501.0)", "latents after each step: [(1, 4, 8, 8), (1, 4, 8, 8)]"],
    "05-classifier-free-guidance": [
        "diffusers scale 6.0 : 1 call(s)/step, (latent, text) batches [(2, 2)]",
        "diffsynth scale 7.5 : 2 call(s)/step, (latent, text) batches [(1, 1)]",
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_starter_runs_and_checks(starter_runs, lab):
    result = starter_runs[lab]
    assert_ran_and_printed(result, lab, FACTS[lab])
    total = len(starter_answers(lab))
    assert f"check: {total}/{total} answers correct" in result.stdout


def test_check_fails_on_a_wrong_answer(tmp_path):
    """--check is a real check: a starter with one wrong answer exits 1 and names it."""
    answers = dict(SOLUTIONS["03-scheduler-reading"], diffsynth_ddim_4=[999, 750, 500, 250])
    script = write_starter("03-scheduler-reading", answers, tmp_path / "starter.py")
    result = run_starter("03-scheduler-reading", script)
    assert result.returncode == 1
    assert "[WRONG] diffsynth_ddim_4" in result.stdout


@pytest.mark.parametrize("lab", LABS)
def test_page_embeds_its_annotations(lab):
    page = page_text(lab)
    assert page.startswith("# Lab "), "the first line of a lab page is its title"
    embedded = embedded_targets(page)
    unknown = embedded - annotated_targets()
    assert not unknown, f"lab {lab} embeds targets nobody annotates: {sorted(unknown)}"
    # The curriculum's own files for this lab (NN-<name>.yaml); maintainers may add more elsewhere.
    own = {a["target"] for _, a in annotation_files(f"{lab[:2]}-*.yaml") if a["lab"] == lab}
    assert own, f"no annotation belongs to lab {lab}"
    missing = own - embedded
    assert not missing, f"lab {lab} does not show its own annotations: {sorted(missing)}"


@pytest.mark.parametrize("lab", LABS)
def test_page_lists_every_checked_exercise(lab):
    page = page_text(lab)
    for section in (
        "## Goal",
        "## Mental model",
        "## The code, annotated",
        "## Reading checkpoints",
        "## Common misunderstandings",
        "## Say it in an interview",
        "## Exercises",
        "## Further reading",
    ):
        assert section in page, f"lab {lab} has no {section!r} section"
    for key in starter_answers(lab):
        assert f"`{key}`" in page, f"lab {lab}: exercise key {key!r} is checked by the starter but not asked in the page"
