"""The name test of rule ``renamed-keeping-words``: which renames keep a name's words."""

from __future__ import annotations

import pytest

from infralens.drift.match.renamed_words import name_words, words_kept


def test_name_words_split_underscores_and_digits():
    assert name_words("_wrapped_flash_attn_3_original") == {"wrapped", "flash", "attn", "3", "original"}
    assert name_words("stage2_denoise") == {"stage", "2", "denoise"}
    assert name_words("__init__") == {"init"}
    assert name_words("OPTSdpaAttention") == {"opt", "sdpa", "attention"}
    assert name_words("MistralFlashAttention2") == {"mistral", "flash", "attention", "2"}


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        ("_validate_yarn_parameters", "_validate_yarn_rope_parameters", 3),  # words added
        ("_wrapped_flash_attn_3_original", "_wrapped_flash_attn_3", 4),  # a word dropped
        ("stage2_denoise", "denoise_stage", 2),  # reordered, the digit apart
        ("prefetch_layer", "prefetch", 1),
        ("_process_lora", "_process_custom_diffusion", 0),  # neither holds all of the other's words
        ("evict_previous_layer", "offload", 0),
        ("update", "update", 0),  # the same name is no rename
    ],
)
def test_words_kept(old, new, kept):
    assert words_kept(old, new) == kept


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        ("_move_missing_keys_from_meta_to_cpu", "_move_missing_keys_from_meta_to_device", 6),  # one word replaced
        ("_move_missing_to_cpu", "_move_absent_to_device", 0),  # two words replaced
        ("prepare_latents_image", "prepare_latents_video", 0),  # one replaced, but only two words shared
        ("get_input_embeddings", "get_input_embeddings", 0),
    ],
)
def test_words_kept_with_one_word_replaced(old, new, kept):
    assert words_kept(old, new, swapped_at_least=3) == kept
    assert words_kept(old, new) == 0  # without the allowance, a replaced word keeps nothing
