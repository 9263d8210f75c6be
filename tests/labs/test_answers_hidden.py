"""Answers stay hidden until asked: pages and default starter output state no exercise answer,
reading checkpoints fold their answers, stderr carries no library noise, and ``--check`` accepts every
answer pasted literally from the ``--reveal`` list."""

from __future__ import annotations

import re

import pytest
from _answers import leaked, outside_dropdowns, revealed_answers
from _starter_sessions import StarterRun, variant_runs
from _starters import page_text
from solutions import SOLUTIONS

from infralens.tiny.labkit import answer_matches
from infralens.tiny.labquiet import KERNEL_NOTE

LABS = tuple(SOLUTIONS)
# Answers whose value also appears in the default output as an *input* or a label, not as the answer.
INPUTS_NOT_ANSWERS = {
    "01-forward-noise": {"diffsynth_level_of_second_sample"},  # 10 is one of the timesteps passed in
    "03-scheduler-reading": {"euler_from_ddim_config_spacing", "euler_from_explicit_leading_config_spacing"},  # spacing names label the rows
    "12-multistep-solvers": {"dpm_last_timestep_20_steps"},  # 50 is a step count of the error table
    "13-flux": {"packed_tokens", "rope_channels_per_head"},  # "64 tokens" is the input of mu; 16 the latent size
    "15-attention-backends-compile": {"default_active_backend", "active_after_reset"},  # backend names passed in
    "20-kv-cache": {"static_mask_key_length"},  # 16 is the max_cache_len passed in and the head dim of every shape
    "24-assisted-decoding": {"self_draft_total_forwards"},  # 12 is the number of new tokens asked for
}
# Words a page must use to teach the lab (spacing names, dtype and backend names, exception classes in the code).
PAGE_VOCABULARY = {
    "01-forward-noise": {"diffsynth_level_of_second_sample"},  # the question passes timesteps [10, 999]
    "06-vae-latent-space": {"tile_latent_min_size"},  # "16-channel", "16 384 numbers"
    "08-unet-dit-conditioning": {"unet_processor_type"},  # a class the page reads
    "11-memory-optimization": {"score_tensor_sliced_kib"},  # 16×16 = 256 tokens, the exercise's input
    "14-sdxl": {"pooled_from", "vae_dtype_after_call"},  # an encoder and a dtype the page must name
    "16-quantization": {"gguf_dequant_dtype"},  # float16 / bfloat16 storage is the lab's subject
    "17-offload-caching": {"diffsynth_default_preparing_dtype"},  # the exercise's float32 computation dtype
    "03-scheduler-reading": {"euler_from_ddim_config_spacing", "euler_from_explicit_leading_config_spacing"},
    "12-multistep-solvers": {"dpm_last_timestep_20_steps"},
    "13-flux": {"packed_tokens", "rope_channels_per_head"},
    "15-attention-backends-compile": {"default_active_backend", "active_after_reset", "diffsynth_implementation"},
    "19-generation-loop": {"first_processor"},  # a class the page reads
    "20-kv-cache": {"static_mask_key_length"},  # 16 is the tiny models' head dim all over the page
    "22-continuous-batching": {"d_status_after_first_chunk"},  # a request status the page teaches
    "24-assisted-decoding": {"self_draft_total_forwards"},  # 12 new tokens is every exercise's input
    "23-quantized-offloaded-cache": {"int4_bytes_per_token_tiny"},  # 128: Llama-3.1-8B's head dim, quanto's default residual
}


@pytest.fixture(scope="module")
def default_runs(starter_sessions, selected_labs) -> dict[str, StarterRun]:
    """Each starter as a learner first runs it: no flags at all."""
    return variant_runs(starter_sessions, selected_labs, "default")


@pytest.fixture(scope="module")
def reveal_runs(starter_sessions, selected_labs) -> dict[str, StarterRun]:
    return variant_runs(starter_sessions, selected_labs, "reveal")


@pytest.fixture(scope="module")
def pasted_runs(starter_sessions, selected_labs) -> dict[str, StarterRun]:
    """Each starter with ANSWERS pasted literally from its --reveal list, run with --steps 2 --check."""
    return variant_runs(starter_sessions, selected_labs, "pasted")


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_default_output_states_no_answer(default_runs, reveal_runs, lab):
    assert default_runs[lab].returncode == 0, default_runs[lab].stderr[-2000:]
    printed = revealed_answers(reveal_runs[lab].stdout)
    found = leaked(default_runs[lab].stdout, printed, frozenset(INPUTS_NOT_ANSWERS.get(lab, ())))
    assert not found, f"{lab}: the default output states answers {found}"
    assert "[--reveal]" in default_runs[lab].stdout


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_starters_print_no_warnings(default_runs, lab):
    lines = [line for line in default_runs[lab].stderr.splitlines() if line.strip()]
    assert lines in ([], [KERNEL_NOTE]), f"{lab} wrote to stderr:\n" + "\n".join(lines[:20])


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_check_accepts_answers_pasted_from_reveal(reveal_runs, pasted_runs, lab):
    printed = revealed_answers(reveal_runs[lab].stdout)
    assert list(printed) == list(SOLUTIONS[lab]), f"{lab}: --reveal lists {list(printed)}"
    for key, text in printed.items():  # the revealed answers are the ones the tests hold
        assert answer_matches(eval(text), SOLUTIONS[lab][key]), f"{lab}: {key} = {text}, solutions say {SOLUTIONS[lab][key]!r}"
    result = pasted_runs[lab]
    total = len(SOLUTIONS[lab])
    assert result.returncode == 0, f"{lab}:\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}"
    assert f"check: {total}/{total} answers correct" in result.stdout


@pytest.mark.parametrize("lab", LABS)
def test_page_states_no_answer_outside_its_dropdowns(lab):
    printed = {key: repr(value) for key, value in SOLUTIONS[lab].items()}
    found = leaked(outside_dropdowns(page_text(lab)), printed, frozenset(PAGE_VOCABULARY.get(lab, ())))
    assert not found, f"{lab}: the page states answers outside its folded dropdowns: {found}"


@pytest.mark.parametrize("lab", LABS)
def test_reading_checkpoints_have_folded_answers(lab):
    section = page_text(lab).split("## Reading checkpoints", 1)[1].split("\n## ", 1)[0]
    questions, _, folded = section.partition(":::{dropdown} Answers\n")
    assert folded, f"{lab}: the reading checkpoints have no ':::{{dropdown}} Answers' block"
    asked = [int(n) for n in re.findall(r"^(\d+)\. ", questions, re.M)]
    answered = [int(n) for n in re.findall(r"^(\d+)\. ", folded.split("\n:::", 1)[0], re.M)]
    assert asked and asked == list(range(1, len(asked) + 1)), f"{lab}: checkpoints numbered {asked}"
    assert answered == asked, f"{lab}: answers numbered {answered} for checkpoints {asked}"
