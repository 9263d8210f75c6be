"""Lab 24 (the LLM-inference track, speculative decoding): the starter runs on CPU with ``--steps 2 --check`` and
prints the facts a learner should see; the page embeds only annotated targets, each function once, and asks every
exercise the starter checks."""

from __future__ import annotations

import pytest
from _starters import annotated_targets, annotation_files, assert_ran_and_printed, embedded_targets, load_starter, page_text, starter_answers
from solutions import SOLUTIONS

from infralens.tiny.labkit import report_answers

LAB = "24-assisted-decoding"
LABS = (LAB,)
# Facts the starter must print, computed by transformers' real assisted-generation code on tiny random LLaMAs, so a
# change in its behaviour (or a broken starter) shows up here.
FACTS = [
    "plain greedy: 12 target forwards for 12 tokens",
    "round 0: target fed 10 positions on a cache of 0; 4 candidates, 0 accepted; cache after crop 6",
    "round 1: target fed 4 positions on a cache of 6; 3 candidates, 0 accepted; cache after crop 7",
    "with the draft: 9 target forwards for 12 tokens, 1.33 tokens per target forward",
    "assisted output equals plain greedy: True",
    "draft allowance: 4 at the start, 3 written back after the call",
    "target drafting for itself: 1 verifying forward(s) [(17, 0)], 12 forwards of the model in all",
    "an unrelated random draft at the default threshold 0.4: at most 1 candidate(s) per round, 12 target forwards",
    "prompt lookup: candidates per round [3, 3, 3], accepted [3, 3, 3]; equals plain greedy: True",
    "prompt lookup: 3 target forwards for 12 tokens",
    "tiny target: a 1-token decode forward runs 15 weight matrices, a 5-token verifying forward 15: 1x the weight reads",
    "Llama-3.1-8B: 8,030,261,248 parameters = 16.06 GB of bf16 weights",
    "a forward of 1 or of 5 tokens takes at least 4.79 ms",
]


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


def test_page_embeds_only_annotated_targets():
    page = page_text(LAB)
    assert page.startswith("# Lab 24:"), "the first heading is the lab title"
    embedded = embedded_targets(page)
    assert len(embedded) >= 5, f"{LAB}: the page embeds {len(embedded)} annotated functions"
    missing = embedded - annotated_targets()
    assert not missing, f"{LAB}: directives name targets no annotation covers: {sorted(missing)}"


def test_page_asks_every_checked_exercise_and_has_every_section():
    page = page_text(LAB)
    for key in starter_answers(LAB):
        assert f"`{key}`" in page, f"{LAB}: exercise answer {key!r} is checked by the starter but not asked on the page"
    for heading in (
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
    ):
        assert heading in page, f"{LAB}: missing section {heading!r}"


def test_page_has_the_search_words():
    """A learner searching the site for the topic finds this page."""
    text = page_text(LAB).lower()
    for words in ("speculative decoding", "assisted decoding", "draft model", "prompt lookup", "acceptance", "candidate generator"):
        assert words in text, f"{LAB}: the page never says {words!r}"


def test_page_embeds_each_function_once():
    lines = [line.strip() for line in page_text(LAB).splitlines()]
    named = [line.split("}", 1)[1].strip() for line in lines if line.startswith("```{infralens-function}")]
    assert len(named) == len(set(named)), f"{LAB}: a function is embedded twice"


def test_every_embedded_function_is_annotated_by_this_lab():
    found = list(annotation_files("24-*.yaml"))
    assert found, f"no annotation file for lab {LAB}"
    for path, annotation in found:
        assert annotation["lab"] == LAB, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
    assert {annotation["target"] for _, annotation in found} == embedded_targets(page_text(LAB))
