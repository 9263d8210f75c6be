"""Correct answers for lab 21 (merged into ``solutions.SOLUTIONS``)."""

LAB = "21-decoder-attention"
SOLUTION = {
    "empty_rows_with_5_pads": 5,
    "last_query_keys_with_5_pads": 2,
    "decode_mask_shape": [2, 1, 1, 8],
    "unpadded_mask_is_none": True,
    "rope_frequencies": 8,
    "rope_score_depends_on_offset_only": True,
    "kv_head_of_query_head_4": 1,
    "repeat_kv_shape": [1, 6, 5, 16],
    "eager_sdpa_agree_on_real_tokens": True,
    "eager_sdpa_agree_on_pads": False,
    "sliding_keys_last_query": 3,
    "llama8b_query_heads_per_kv_head": 4,
}
