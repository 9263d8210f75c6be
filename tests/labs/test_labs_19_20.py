"""Labs 19-20 (the LLM-inference track): every starter runs on CPU with ``--steps 2 --check`` and prints the facts
a learner should see; every page embeds only annotated targets, each function once, and asks every exercise the
starter checks."""

from __future__ import annotations

import pytest
from _starters import annotated_targets, annotation_files, assert_ran_and_printed, embedded_targets, load_starter, page_text, starter_answers
from solutions import SOLUTIONS

from infralens.tiny.labkit import report_answers

# Facts each starter must print, computed by transformers' real generate and cache code on tiny random models, so
# a change in their behaviour (or a broken starter) shows up here.
FACTS = {
    "19-generation-loop": [
        "forward 0 (prefill): input_ids (1, 5), cache held 0 positions, mask None",
        "forward 1 (decode ): input_ids (1, 1), cache held 5 positions, mask None",
        "4 new tokens: 4 forwards; prefill feeds 5 positions, a decode step 1",
        "prefill logits with logits_to_keep=1: 1 position(s) of 128 scores",
        "processors, in the order they run: RepetitionPenaltyLogitsProcessor, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper",
        "after processor 3 (TopKLogitsWarper): finite scores 20",
        "repetition penalty 1.3 on a seen token with logit -2.0 -> -2.60",
        "greedy generate equals the cache-free recomputation: True",
    ],
    "20-kv-cache": [
        "dynamic forward 1: 6 positions stored, layer 0 keys (1, 2, 6, 16), same tensor as before: False",
        "static  forward 1: 6 positions stored, layer 0 keys (1, 2, 8, 16), same tensor as before: True",
        "after 10 new tokens: dynamic keys hold 14 positions; static buffer 14",
        "sliding window 4, dynamic: DynamicSlidingWindowLayer, 3 positions kept of 9 seen",
        "sliding window 4, static: StaticSlidingWindowLayer, 4 positions kept of 9 seen",
        "tiny cache: 2560 bytes for 5 positions = 512 bytes per token (float32)",
        "Llama-3.1-8B, bf16: 131072 bytes per token",
    ],
}
LABS = tuple(FACTS)
DRAWN_ONCE = LABS


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_starter_runs_and_checks(starter_runs, lab):
    result = starter_runs[lab]
    assert_ran_and_printed(result, lab, FACTS[lab])
    total = len(starter_answers(lab))
    assert f"check: {total}/{total} answers correct" in result.stdout
    assert result.stdout.count("[ok]") == total


@pytest.mark.parametrize("lab", LABS)
def test_check_counts_a_wrong_answer(lab, capsys):
    """--check is a real check: the report the starter exits with flags a wrong value by name."""
    answers = dict(load_starter(lab).ANSWERS, **SOLUTIONS[lab])
    computed = dict(SOLUTIONS[lab])
    assert report_answers(answers, computed) == 0
    key = next(iter(computed))
    computed[key] = "something else"
    assert report_answers(answers, computed) == 1
    assert f"[WRONG] {key}: your answer" in capsys.readouterr().out


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


@pytest.mark.parametrize("lab", DRAWN_ONCE)
def test_page_embeds_each_function_once(lab):
    page = page_text(lab)
    lines = [line.strip() for line in page.splitlines()]
    named = [line.split("}", 1)[1].strip() for line in lines if line.startswith("```{infralens-function}")]
    named += [line.split(":", 2)[2].strip() for line in lines if line.startswith((":diffusers:", ":diffsynth:"))]
    assert len(named) == len(set(named)), f"{lab}: a function is embedded twice"


@pytest.mark.parametrize("lab", LABS)
def test_annotations_point_at_existing_labs(lab):
    """Every annotation of this lab names it by its folder slug (so the site can link both ways)."""
    found = list(annotation_files(f"{lab[:2]}-*.yaml"))
    assert found, f"no annotation file for lab {lab}"
    for path, annotation in found:
        assert annotation["lab"] == lab, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
