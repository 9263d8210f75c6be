"""Correct answers for lab 13 (merged into ``solutions.SOLUTIONS``)."""

LAB = "13-flux"
SOLUTION = {
    "packed_tokens": 64,
    "token_features": 4,
    "image_ids_of_token_9": [0, 1, 1],
    "mu_for_64_tokens": 0.4675,
    "second_timestep_2_steps": 614.8,
    "guidance_seen_by_embedding": 3500.0,
    "calls_per_step_plain": 1,
    "calls_per_step_true_cfg": 2,
    "text_ids_all_zero": True,
    "rope_channels_per_head": 16,
    "diffsynth_blocks_match_1e-5": True,
    "diffsynth_single_fused_width": 224,
    "cost_flux_pipeline_peak_512_gib": 31.799,
    "cost_flux_true_cfg_image_tflop": 4185.73,
}
