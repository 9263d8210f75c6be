"""Correct answers for lab 15 (merged into ``solutions.SOLUTIONS``)."""

LAB = "15-attention-backends-compile"
SOLUTION = {
    "default_active_backend": "native",
    "explicit_flash_error": "TypeError",
    "context_flash_error": "RuntimeError",
    "native_flash_float32_checked_error": "ValueError",
    "flux_processors_with_backend": 4,
    "active_after_reset": "_native_math",
    "classic_processor_has_backend": False,
    "graphs_for_two_blocks": 1,
    "new_shape_recompiles": True,
    "diffsynth_implementation": "torch",
    "diffsynth_torch_support_gqa": False,
    "cost_flux_attention_tflop_2048": 199.95,
    "cost_flux_attention_share_2048": 0.4782,
}
