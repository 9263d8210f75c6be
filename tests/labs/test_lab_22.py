"""Lab 22 (continuous batching and the paged KV cache): the starter runs on CPU with ``--steps 2 --check`` and prints
the facts a learner should see; the page embeds only annotated targets, each function once, and asks every exercise
the starter checks."""

from __future__ import annotations

import pytest
from _starters import annotated_targets, annotation_files, assert_ran_and_printed, embedded_targets, load_starter, page_text, starter_answers
from solutions import SOLUTIONS

from infralens.tiny.labkit import report_answers

LAB = "22-continuous-batching"
LABS = (LAB,)
# Facts the starter must print, computed by transformers' real scheduler, paged cache and memory handler on a tiny
# random LLaMA, so a change in their behaviour (or a broken starter) shows up here.
FACTS = [
    "paged cache: 16 blocks of 4 tokens, attention paged|eager, batch budget 12 tokens",
    "step 0: [a prefill 9, b prefill 3] = 12 tokens; waiting ['e']",
    "step 1: [a decode 1, b decode 1, e prefill 5] = 7 tokens; waiting []",
    "step 3: a and b finished; blocks to the free pool 2, kept cached for reuse [14], still used by others [17, 16]",
    "c's block table [17, 16, 10] begins with a's [17, 16]: 2 blocks shared; c prefilled 1 token(s)",
    "d's prompt went through in chunks of 8 then 6; status after the first chunk PREFILLING",
    "d held 5 blocks in its last step; every table freed at the end: True",
    "64 MiB budget, tiny model, float32: a sector is 2048 bytes of KV; 7608 sectors with a 256-token batch",
    "Llama-3.1-8B, bf16, 256-token pages: one block (every layer's keys and values) is 33554432 bytes",
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
    computed["d_first_chunk"] = 14
    assert report_answers(answers, computed) == 1
    assert "[WRONG] d_first_chunk: your answer" in capsys.readouterr().out


def test_page_embeds_only_annotated_targets():
    page = page_text(LAB)
    assert page.startswith("# Lab 22:"), "the first heading is the lab title"
    embedded = embedded_targets(page)
    assert len(embedded) >= 6, f"the page embeds {len(embedded)} annotated functions"
    missing = embedded - annotated_targets()
    assert not missing, f"directives name targets no annotation covers: {sorted(missing)}"


def test_page_asks_every_checked_exercise_and_has_every_section():
    page = page_text(LAB)
    for key in starter_answers(LAB):
        assert f"`{key}`" in page, f"exercise answer {key!r} is checked by the starter but not asked on the page"
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
        assert heading in page, f"missing section {heading!r}"


def test_page_has_the_search_words():
    """A learner searching the site for the topic finds this page (issue 44, item 5)."""
    text = page_text(LAB).lower()
    for words in ("continuous batching", "paged attention", "paged kv cache", "block table", "prefix caching", "scheduler", "kv cache", "chunked prefill"):
        assert words in text, f"the page never says {words!r}"


def test_page_embeds_each_function_once():
    lines = [line.strip() for line in page_text(LAB).splitlines()]
    named = [line.split("}", 1)[1].strip() for line in lines if line.startswith("```{infralens-function}")]
    assert len(named) == len(set(named)), "a function is embedded twice"


def test_annotations_point_at_the_lab():
    """Every annotation of this lab names it by its folder slug, and each step has a note."""
    found = list(annotation_files("22-*.yaml"))
    assert found, f"no annotation file for lab {LAB}"
    notes = 0
    for path, annotation in found:
        assert annotation["lab"] == LAB, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
        assert all(step.get("note") for step in annotation["steps"]), f"{annotation['id']}: a step without a note"
        notes += len(annotation["steps"])
    assert len(found) >= 6 and notes >= 45, f"{len(found)} functions, {notes} notes"
