"""Correct answers for lab 14 (merged into ``solutions.SOLUTIONS``)."""

LAB = "14-sdxl"
SOLUTION = {
    "prompt_embeds_width": 64,
    "pooled_from": "text_encoder_2",
    "negative_pooled_all_zero": True,
    "time_ids": [24, 20, 2, 3, 16, 16],
    "add_embedding_inputs": 80,
    "wrong_projection_error": "ValueError",
    "vae_dtype_after_call": "float16",
    "refiner_time_ids": [[24, 20, 0, 0, 2], [24, 20, 2, 3, 7]],
    "diffsynth_unet_calls": 4,
    "diffsynth_clip_skip_index": -3,
    "diffsynth_pooled_ignores_prompt": True,
    "diffsynth_guidance_rescale_error": "KeyError",
    "cost_sdxl_upcast_vae_peak_gib": 9.617,
    "cost_sdxl_largest_batch_16gib": 6,
}
