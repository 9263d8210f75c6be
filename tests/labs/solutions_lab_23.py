"""Correct answers for lab 23 (merged into ``solutions.SOLUTIONS``)."""

LAB = "23-quantized-offloaded-cache"
SOLUTION = {
    "first_quantized_forward": 0,
    "residual_after_5_decodes": 2,
    "quantized_after_5_decodes": 8,
    "bf16_bytes_per_token_tiny": 256,
    "int4_bytes_per_token_tiny": 128,
    "int2_bytes_per_token_tiny": 96,
    "dequantized_at_forward_5": 8,
    "int2_step_over_int4_step": 5.0,
    "fp8_residual_positions": 0,
    "prefetched_for_1": 2,
    "prefetched_for_4": 0,
    "llama8b_int4_bytes_per_token": 36864,
    "llama8b_offload_gib_per_step_32k": 8,
}
