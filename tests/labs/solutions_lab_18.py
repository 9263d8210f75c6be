"""Correct answers for lab 18 (merged into ``solutions.SOLUTIONS``)."""

LAB = "18-ip-adapter"
SOLUTION = {
    "sd_ip_processors": 6,
    "first_up_key_id": 5,
    "mid_key_id": 11,
    "image_tokens_shape": [2, 1, 4, 32],
    "scale_zero_exact": True,
    "style_scales": [0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
    "unload_exact": True,
    "flux_ip_processors": 2,
    "flux_missing_negative_error": "AttributeError",
    "diffsynth_kv_blocks": 2,
    "diffsynth_ip_k_shape": [1, 2, 8, 32],
    "diffsynth_negative_scale": 1.0,
}
