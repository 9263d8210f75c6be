"""Correct answers for lab 20 (merged into ``solutions.SOLUTIONS``)."""

LAB = "20-kv-cache"
SOLUTION = {
    "dynamic_positions_after": 14,
    "static_buffer_positions": 14,
    "static_same_tensor": True,
    "dynamic_same_tensor": False,
    "static_mask_key_length": 16,
    "sliding_dynamic_kept": 3,
    "sliding_static_kept": 4,
    "tiny_kv_bytes_per_token": 512,
    "llama8b_kv_bytes_per_token_bf16": 131072,
    "cost_llama8b_requests_8k_80gib": 65,
    "cost_llama70b_requests_4k_two_80gib": 22,
}
