"""Correct answers for lab 24 (merged into ``solutions.SOLUTIONS``)."""

LAB = "24-assisted-decoding"
SOLUTION = {
    "target_forwards_with_draft": 9,
    "tokens_per_target_forward": 1.3333333333333333,  # 12 tokens over 9 forwards; the page writes 1.33
    "first_round_cache_after_crop": 6,
    "draft_allowance_after_call": 3,
    "assisted_equals_greedy": True,
    "self_draft_verifying_forwards": 1,
    "self_draft_total_forwards": 12,
    "default_threshold_candidates": 1,
    "prompt_lookup_target_forwards": 3,
    "acceptance_rate_p02_q05": 0.3975720789074355,  # sampled; min(1, p/q) = 0.4, the page writes 0.4
    "share_of_token_1": 0.49799999594688416,  # sampled; the page writes 0.5
    "verify_weight_reads_vs_decode": 1,
    "verify_ms_bound_3350": 4.794185819701493,  # the page writes 4.79
    "bound_tokens_per_s_3_per_forward": 625.7579728494532,  # the page writes 626
}
