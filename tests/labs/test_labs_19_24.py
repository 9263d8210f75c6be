"""The LLM-inference track (labs 19-24): every starter runs on CPU with ``--steps 2 --check`` and prints the facts a
learner should see; every page has every section, embeds its own lab's annotated targets (each function once, and
every one the lab annotates), asks every exercise the starter checks and carries the words a learner searches for
its topic with; every annotation of a lab names it, reads transformers and has a note on every step."""

from __future__ import annotations

import pytest
from _starters import (
    SECTIONS,
    annotation_files,
    assert_solved_run_checks_every_answer,
    embedded_targets,
    page_embedding_only_annotated_targets,
    page_text,
    starter_answers,
    wrong_answer_report,
)

# Facts each starter must print, computed by transformers' real generate, cache, mask, RoPE, attention, scheduler,
# paged cache, quantized and offloaded cache and assisted-generation code on tiny random models, so a change in their
# behaviour (or a broken starter) shows up here.
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
    "21-decoder-attention": [
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
    ],
    "22-continuous-batching": [
        "paged cache: 16 blocks of 4 tokens, attention paged|eager, batch budget 12 tokens",
        "step 0: [a prefill 9, b prefill 3] = 12 tokens; waiting ['e']",
        "step 1: [a decode 1, b decode 1, e prefill 5] = 7 tokens; waiting []",
        "step 3: a and b finished; blocks to the free pool 2, kept cached for reuse [14], still used by others [17, 16]",
        "c's block table [17, 16, 10] begins with a's [17, 16]: 2 blocks shared; c prefilled 1 token(s)",
        "d's prompt went through in chunks of 8 then 6; status after the first chunk PREFILLING",
        "d held 5 blocks in its last step; every table freed at the end: True",
        "64 MiB budget, tiny model, float32: a sector is 2048 bytes of KV; 7608 sectors with a 256-token batch",
        "Llama-3.1-8B, bf16, 256-token pages: one block (every layer's keys and values) is 33554432 bytes",
    ],
    "23-quantized-offloaded-cache": [
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
    ],
    "24-assisted-decoding": [
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
    ],
}
LABS = tuple(FACTS)
WITH_COSTS = ("19-generation-loop", "20-kv-cache", "23-quantized-offloaded-cache", "24-assisted-decoding")
"""Labs with a "What it costs" section."""
SEARCH_WORDS = {
    "21-decoder-attention": ("rope", "rotary", "gqa", "grouped-query attention", "causal mask", "padding mask", "sdpa", "attention implementation"),
    "22-continuous-batching": (
        "continuous batching",
        "paged attention",
        "paged kv cache",
        "block table",
        "prefix caching",
        "scheduler",
        "kv cache",
        "chunked prefill",
    ),
    "23-quantized-offloaded-cache": ("kv cache", "quantized cache", "quanto", "int4", "offloaded cache", "offloading", "dequantize"),
    "24-assisted-decoding": ("speculative decoding", "assisted decoding", "draft model", "prompt lookup", "acceptance", "candidate generator"),
}
"""Words a learner searching the site for the lab's topic types (issue 44, item 5)."""
AT_LEAST = {"21-decoder-attention": (6, 45), "22-continuous-batching": (6, 45), "23-quantized-offloaded-cache": (5, 42), "24-assisted-decoding": (5, 42)}
"""(annotated functions, notes) each lab written for issue 44 holds at least."""
WRONG = {"21-decoder-attention": ("kv_head_of_query_head_4", 0), "22-continuous-batching": ("d_first_chunk", 14)}
"""A tempting wrong answer --check must flag; the other labs get "something else" for their first answer."""


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_starter_runs_and_checks(starter_runs, lab):
    assert_solved_run_checks_every_answer(starter_runs[lab], lab, FACTS[lab])


@pytest.mark.parametrize("lab", LABS)
def test_check_counts_a_wrong_answer(lab, capsys):
    """--check is a real check: the report the starter exits with flags a wrong value by name."""
    right, wrong, key = wrong_answer_report(lab, *WRONG.get(lab, ()))
    assert right == 0
    assert wrong == 1
    assert f"[WRONG] {key}: your answer" in capsys.readouterr().out


@pytest.mark.parametrize("lab", LABS)
def test_page_embeds_only_annotated_targets_each_once(lab):
    page = page_embedding_only_annotated_targets(lab)
    lines = [line.strip() for line in page.splitlines()]
    named = [line.split("}", 1)[1].strip() for line in lines if line.startswith("```{infralens-function}")]
    assert len(named) == len(set(named)), f"{lab}: a function is embedded twice"


@pytest.mark.parametrize("lab", LABS)
def test_page_asks_every_checked_exercise_and_has_every_section(lab):
    page = page_text(lab)
    answers = starter_answers(lab)
    assert answers, f"{lab}: the starter asks no exercise"
    for key in answers:
        assert f"`{key}`" in page, f"{lab}: exercise answer {key!r} is checked by the starter but not asked on the page"
    for heading in SECTIONS + (("## What it costs",) if lab in WITH_COSTS else ()):
        assert heading in page, f"{lab}: missing section {heading!r}"


@pytest.mark.parametrize("lab", tuple(SEARCH_WORDS))
def test_page_carries_the_search_words(lab):
    page = page_text(lab).lower()
    missing = [word for word in SEARCH_WORDS[lab] if word not in page]
    assert not missing, f"{lab}: the page never says {missing}, which a learner searching for the topic types"


@pytest.mark.parametrize("lab", LABS)
def test_annotations_name_the_lab_and_embed_on_its_page(lab):
    """Every annotation of this lab names it by its folder slug, reads transformers, has a note on every step and a
    target no other lab annotates; the page embeds exactly the functions the lab annotates."""
    found = list(annotation_files(f"{lab[:2]}-*.yaml"))
    assert found, f"no annotation file for lab {lab}"
    for path, annotation in found:
        assert annotation["lab"] == lab, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
        assert annotation["source"] == "transformers", annotation["id"]
        assert all(step.get("note") for step in annotation["steps"]), f"{annotation['id']}: a step without a note"
    targets = {annotation["target"] for _, annotation in found}
    others = {annotation.get("target") for _, annotation in annotation_files("*.yaml") if annotation.get("lab") != lab}
    assert not targets & others, f"{lab}: annotated by another lab too: {sorted(targets & others)}"
    assert targets == embedded_targets(page_text(lab)), f"{lab}: every annotated function is embedded on its page, and only those"
    if lab in AT_LEAST:
        notes = sum(len(annotation["steps"]) for _, annotation in found)
        functions, least = AT_LEAST[lab]
        assert len(targets) >= functions and notes >= least, f"{lab}: {len(targets)} functions, {notes} notes"
