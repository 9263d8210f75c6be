"""Correct answers for lab 24 (merged into ``solutions.SOLUTIONS``)."""

LAB = "24-assisted-decoding"
SOLUTION = {
    "target_forwards_with_draft": 9,
    "tokens_per_target_forward": 1.33,
    "first_round_cache_after_crop": 6,
    "draft_allowance_after_call": 3,
    "assisted_equals_greedy": True,
    "self_draft_verifying_forwards": 1,
    "self_draft_total_forwards": 12,
    "default_threshold_candidates": 1,
    "prompt_lookup_target_forwards": 3,
    "acceptance_rate_p02_q05": 0.4,
    "share_of_token_1": 0.5,
    "verify_weight_reads_vs_decode": 1,
    "verify_ms_bound_3350": 4.79,
    "bound_tokens_per_s_3_per_forward": 626,
}
