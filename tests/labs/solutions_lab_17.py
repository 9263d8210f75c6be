"""Correct answers for lab 17 (merged into ``solutions.SOLUTIONS``)."""

LAB = "17-offload-caching"
SOLUTION = {
    "negate_bypassed": True,
    "use_stream_cpu_error": "ValueError",
    "disk_files_block_level": 5,
    "fbc_default_threshold": 0.05,
    "fbc_blocks_second_call": 1,
    "outside_context_error": "ValueError",
    "disable_cache_exact": True,
    "diffsynth_default_preparing_dtype": "float32",
    "cost_flux_model_offload_s_per_image_batch4": 0.675,
    "cost_flux_fbc_speedup_60pct": 2.435,
}
