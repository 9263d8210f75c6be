"""Correct answers for lab 19 (merged into ``solutions.SOLUTIONS``)."""

LAB = "19-generation-loop"
SOLUTION = {
    "forwards_for_4_tokens": 4,
    "prefill_positions_in": 5,
    "prefill_logits_positions": 1,
    "decode_positions_in": 1,
    "all_ones_mask_reaches_model": False,
    "first_processor": "RepetitionPenaltyLogitsProcessor",
    "top_k_then_top_p_kept": 18,
    "penalised_negative_logit": -2.6,
    "eos_row_next_token": 0,
    "greedy_matches_no_cache": True,
    "cost_llama8b_bound_tokens_s_batch8_8k": 1135.6,
    "cost_llama8b_flops_per_byte_large_batch_4k": 31.957,
}
