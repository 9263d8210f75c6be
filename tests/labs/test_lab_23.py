"""Lab 23 (quantized and offloaded KV caches): the starter runs on CPU with ``--steps 2 --check`` and prints the facts
a learner should see; the page embeds only annotated targets, each function once, and asks every exercise the
starter checks."""

from __future__ import annotations

import pytest
from _starters import annotated_targets, annotation_files, assert_ran_and_printed, embedded_targets, load_starter, page_text, starter_answers
from solutions import SOLUTIONS

from infralens.tiny.labkit import report_answers

LAB = "23-quantized-offloaded-cache"
LABS = (LAB,)
# Facts the starter must print, computed by transformers' real quantized and offloaded cache code on a tiny random
# LLaMA, so a change in their behaviour (or a broken starter) shows up here.
FACTS = [
    "forward 0 (prefill): layer 0 holds 5 quantized positions and 0 in the residual",
    "forward 2 (decode ): layer 0 holds 5 quantized positions and 2 in the residual",
    "forward 5 dequantizes 8 positions of layer 0 (the whole quantized store)",
    "bytes per token: bf16 256, int4 128, int2 96, fp8 128",
    "fp8 keeps 0 positions at full precision",
    "int2 step / int4 step = 5.00",
    "decode, layer 0: prefetch asked for 1 copies back layer 2; offload sends the whole layer, 1536 bytes (on this CPU a copy was made: False)",
    "decode, layer 3: prefetch asked for 4 copies back layer 0",
    "Llama-3.1-8B bytes per token: bf16 131072, int4 with groups of 64 36864, int2 20480",
    "copies 8 GiB across the host link per decode step",
]
SECTIONS = (
    "## Goal",
    "## Mental model",
    "## Run it",
    "## Reading checkpoints",
    "## The code, annotated",
    "## What it costs",
    "## Common misunderstandings",
    "## Say it in an interview",
    "## Exercises",
    "## Further reading",
)
SEARCH_WORDS = ("kv cache", "quantized cache", "quanto", "int4", "offloaded cache", "offloading", "dequantize")


@pytest.mark.slow
def test_starter_runs_and_checks(starter_runs):
    result = starter_runs[LAB]
    assert_ran_and_printed(result, LAB, FACTS)
    total = len(starter_answers(LAB))
    assert f"check: {total}/{total} answers correct" in result.stdout
    assert result.stdout.count("[ok]") == total


def test_check_counts_a_wrong_answer(capsys):
    """--check is a real check: the report the starter exits with flags a wrong value by name."""
    answers = dict(load_starter(LAB).ANSWERS, **SOLUTIONS[LAB])
    computed = dict(SOLUTIONS[LAB])
    assert report_answers(answers, computed) == 0
    key = next(iter(computed))
    computed[key] = "something else"
    assert report_answers(answers, computed) == 1
    assert f"[WRONG] {key}: your answer" in capsys.readouterr().out


def test_page_embeds_annotated_targets_once():
    page = page_text(LAB)
    assert page.startswith("# Lab 23:"), "the first heading is the lab title"
    embedded = embedded_targets(page)
    assert len(embedded) >= 5, f"the page embeds {len(embedded)} functions"
    missing = embedded - annotated_targets()
    assert not missing, f"directives name targets no annotation covers: {sorted(missing)}"
    named = [line.split("}", 1)[1].strip() for line in page.splitlines() if line.strip().startswith("```{infralens-function}")]
    assert len(named) == len(set(named)), "a function is embedded twice"


def test_page_sections_exercises_and_search_words():
    page = page_text(LAB)
    for key in starter_answers(LAB):
        assert f"`{key}`" in page, f"exercise answer {key!r} is checked by the starter but not asked on the page"
    for heading in SECTIONS:
        assert heading in page, f"missing section {heading!r}"
    lowered = page.lower()
    for word in SEARCH_WORDS:
        assert word in lowered, f"the page never says {word!r}, which a learner searching for the topic types"


def test_annotations_cover_the_lab():
    """Every annotation of this lab names it by its folder slug, targets a function no other lab annotates, and has
    enough notes."""
    found = list(annotation_files("23-*.yaml"))
    assert found, "no annotation file for lab 23"
    targets = [annotation["target"] for _, annotation in found]
    others = {annotation.get("target") for _, annotation in annotation_files("*.yaml") if annotation.get("lab") != LAB}
    assert not set(targets) & others, f"annotated by another lab too: {sorted(set(targets) & others)}"
    assert len(set(targets)) >= 5
    notes = sum(1 for _, annotation in found for step in annotation["steps"] if step.get("note"))
    assert notes >= 42, f"{notes} notes"
    for path, annotation in found:
        assert annotation["lab"] == LAB, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
