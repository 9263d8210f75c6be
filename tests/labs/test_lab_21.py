"""Lab 21 (attention in a decoder): the starter runs on CPU with ``--steps 2 --check`` and prints the facts a
learner should see; the page embeds only annotated targets, each function once, asks every exercise the starter
checks and carries the words a learner searches for."""

from __future__ import annotations

import pytest
from _starters import annotated_targets, annotation_files, assert_ran_and_printed, embedded_targets, load_starter, page_text, starter_answers
from solutions import SOLUTIONS

from infralens.tiny.labkit import report_answers

LAB = "21-decoder-attention"
LABS = (LAB,)
# Facts the starter must print, computed by transformers' real mask, RoPE, repeat_kv and attention code on tiny
# random models, so a change in their behaviour (or a broken starter) shows up here.
FACTS = [
    "prefill mask (sdpa): (2, 1, 7, 7), torch.bool; row 1 has 3 pads (1 = may attend):",
    "  row 1, query 0: 0 0 0 0 0 0 0",
    "  row 1, query 4: 0 0 0 1 1 0 0",
    "first decode step: the mask is [2, 1, 1, 8], row 1 = [0, 0, 0, 1, 1, 1, 1, 1]",
    "unpadded prompts under sdpa: create_causal_mask returns None",
    "  position 0: cos[0] +1.0000, sin[0] +0.0000, cos[7] +1.0000",
    "  position 1: cos[0] +0.5403, sin[0] +0.8415, cos[7] +1.0000",
    "repeat_kv with n_rep = 3: keys (1, 2, 5, 16) -> (1, 6, 5, 16)",
    "query head j reads KV head: 0->0 1->0 2->0 3->1 4->1 5->1",
    "agree within 1e-05: real tokens True, pads False",
    "sliding window 3, last prompt query: 0 0 0 0 1 1 1 (3 keys)",
]
SEARCH_WORDS = ("rope", "rotary", "gqa", "grouped-query attention", "causal mask", "padding mask", "sdpa", "attention implementation")


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
    computed["kv_head_of_query_head_4"] = 0
    assert report_answers(answers, computed) == 1
    assert "[WRONG] kv_head_of_query_head_4: your answer" in capsys.readouterr().out


def test_page_embeds_only_annotated_targets_each_once():
    page = page_text(LAB)
    assert page.startswith("# Lab 21:"), "the first heading is the lab title"
    embedded = embedded_targets(page)
    assert len(embedded) >= 6, f"the page embeds {len(embedded)} functions"
    missing = embedded - annotated_targets()
    assert not missing, f"directives name targets no annotation covers: {sorted(missing)}"
    named = [line.split("}", 1)[1].strip() for line in page.splitlines() if line.startswith("```{infralens-function}")]
    assert len(named) == len(set(named)), "a function is embedded twice"


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


def test_page_carries_the_search_words():
    page = page_text(LAB).lower()
    missing = [word for word in SEARCH_WORDS if word not in page]
    assert not missing, f"the page never says {missing}"


def test_annotations_name_this_lab_and_embed_on_its_page():
    found = list(annotation_files("21-*.yaml"))
    assert found, "no annotation file for lab 21"
    targets = set()
    for path, annotation in found:
        assert annotation["lab"] == LAB, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
        assert annotation["source"] == "transformers"
        targets.add(annotation["target"])
    assert targets == embedded_targets(page_text(LAB)), "every annotated function of the lab is embedded on its page, and only those"
