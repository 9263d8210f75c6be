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
