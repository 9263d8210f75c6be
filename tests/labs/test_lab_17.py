"""Lab 17 (offload and caching hooks): the starter runs on CPU with ``--steps 2 --check`` and prints the facts a learner
should see; the page embeds only annotated targets and asks every exercise the starter checks."""

from __future__ import annotations

import pytest
from _starters import annotated_targets, annotation_files, assert_ran_and_printed, embedded_targets, load_starter, page_text, starter_answers
from solutions import SOLUTIONS

LABS = ("17-offload-caching",)
# Facts the starter must print. They are computed by the real upstream code, so a change in
# diffusers/DiffSynth behaviour (or a broken starter) shows up here.
FACTS = {
    "17-offload-caching": [
        "after removing 'double' the output is layer(x) + 1, negate bypassed: True",
        "block level on disk: 5 safetensors files",
        "use_stream=True with a CPU onload device -> ValueError",
        "cached model called outside cache_context -> ValueError",
        "t=0.90: 4 block bodies ran, max difference from the uncached call 0",
        "t=0.85: 1 block bodies ran",
        "after disable_cache the output equals the uncached run exactly: True",
        "AutoWrappedModule: offloaded as torch.bfloat16, state 2 after one call, stored dtype now float32",
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
    module.ANSWERS = dict(SOLUTIONS[lab])
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
        "## Run it",
        "## Reading checkpoints",
        "## The code, annotated",
        "## Common misunderstandings",
        "## Say it in an interview",
        "## Exercises",
        "## Further reading",
    ):
        assert heading in page, f"{lab}: missing section {heading!r}"


@pytest.mark.parametrize("lab", LABS)
def test_page_embeds_each_function_once(lab):
    page = page_text(lab)
    lines = [line.strip() for line in page.splitlines()]
    named = [line.split("}", 1)[1].strip() for line in lines if line.startswith("```{infralens-function}")]
    named += [line.split(":", 2)[2].strip() for line in lines if line.startswith((":diffusers:", ":diffsynth:"))]
    assert len(named) == len(set(named)), f"{lab}: a function is embedded twice"


@pytest.mark.parametrize("lab", LABS)
def test_annotations_point_at_existing_labs(lab):
    """Every annotation of this lab names it by its folder slug (so the site can link both ways)."""
    for path, annotation in annotation_files(f"{lab[:2]}-*.yaml"):
        assert annotation["lab"] == lab, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
