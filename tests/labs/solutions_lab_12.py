"""Correct answers for lab 12 (merged into ``solutions.SOLUTIONS``)."""

LAB = "12-multistep-solvers"
SOLUTION = {
    "ddim_equals_euler_trailing": True,
    "dpm20_beats_ddim50": True,
    "dpm_last_timestep_20_steps": 50,
    "dpm3_orders_8_steps": [1, 2, 3, 3, 3, 3, 2, 1],
    "dpm3_last_orders_20_steps": [3, 1],
    "unipc3_orders_8_steps": [1, 2, 3, 3, 3, 3, 2, 1],
    "heun_model_calls_10_steps": 19,
    "karras_first_sigmas_10_steps": [14.61, 9.1, 5.48],
    "bh1_zero_final_is_nan": True,
    "qwen_image_last_sigma": 0.02,
    "flux2_empirical_mu_4096_tokens_8_steps": 2.27,
    "cost_sd15_image_tflop_20_steps": 34.67,
    "cost_sd15_decode_share_20_steps": 0.0725,
}
