"""The correct exercise answers, one dict per lab (the starters ship with every answer ``None``).

The lab pages show the same answers folded; the tests substitute these into a copy of a starter
to check that ``--check`` passes on a solved one."""

from __future__ import annotations

SOLUTIONS: dict[str, dict] = {
    "01-forward-noise": {
        "abar_500_sd": 0.276,
        "first_t_below_half_sd": 354,
        "first_t_below_half_linear": 259,
        "snr_999_sd": 0.0047,
        "diffsynth_level_of_second_sample": 10,
        "flow_x0_coefficient_at_sigma_0.25": 0.75,
    },
    "02-denoising-step": {
        "last_prev_timestep_3_steps": -332,
        "final_alpha_cumprod_sd": 0.99915,
        "x0_error_true_eps_below_1e-4": True,
        "x0_error_eps_config_fed_v_above_0.1": True,
        "linspace_4_steps_first_step_lands_at": 749,
        "diffsynth_weight_x_999_to_666": 4.749,
        "flow_euler_true_velocity_error_below_1e-5": True,
    },
    "03-scheduler-reading": {
        "ddim_linspace_4": [999, 666, 333, 0],
        "ddim_leading_offset1_4": [751, 501, 251, 1],
        "ddim_trailing_4": [999, 749, 499, 249],
        "euler_init_noise_sigma_linspace": 14.615,
        "euler_init_noise_sigma_leading": 4.236,
        "euler_first_input_scale_linspace": 0.0683,
        "diffsynth_flux_sigmas_4": [1.0, 0.8577, 0.6022, 0.0089],
        "diffsynth_unknown_template_uses": "set_timesteps_flux",
        "diffsynth_ddim_4": [999, 666, 333, 0],
        "euler_from_ddim_config_spacing": "linspace",
        "euler_from_explicit_leading_config_spacing": "leading",
    },
    "04-scheduler-loop": {
        "diffusers_unet_calls_3_steps": 3,
        "diffusers_unet_batch_cfg": 2,
        "diffusers_timesteps_3_steps": [667, 334, 1],
        "diffusers_latents_shape_64px": [1, 4, 32, 32],
        "euler_init_noise_sigma": 14.615,
        "diffsynth_timesteps_3_steps": [999, 500, 0],
        "diffsynth_unet_calls_3_steps_cfg": 6,
        "diffsynth_unet_batch": 1,
        "diffsynth_latents_shape_64px": [1, 4, 8, 8],
    },
    "05-classifier-free-guidance": {
        "diffusers_calls_per_step_scale_6": 1,
        "diffusers_unet_batch_scale_6": 2,
        "diffusers_text_batch_scale_6": 2,
        "diffusers_unet_batch_scale_1": 1,
        "diffusers_unet_batch_scale_0.5": 1,
        "diffsynth_calls_per_step_cfg_7.5": 2,
        "diffsynth_unet_batch_cfg_7.5": 1,
        "diffsynth_calls_per_step_cfg_1": 1,
        "diffsynth_calls_per_step_cfg_0.5": 2,
        "formula_reproduced": True,
        "rescale_phi1_matches_cond_std": True,
        "original_formulation_w_for_s_5": 4.0,
    },
    "06-vae-latent-space": {
        "latent_shape_64px": (1, 4, 32, 32),
        "sd_factor": 8,
        "variance_ratio_sd_factor_on_sdxl": 1.9557,
        "tile_latent_min_size": 16,
        "tile_stride_latent": 12,
        "blend_extent_px": 8,
        "tiles_for_64x64_latent": 36,
        "slicing_matches_to_1e-4": True,
        "img2img_first_timestep_strength_0.5": 251,
        "img2img_steps_run_strength_0.5": 2,
    },
    "07-pipeline-components": {
        "registered_components": 8,
        "null_entries_in_model_index": 3,
        "saved_subfolders": 5,
        "unet_entry": ["diffusers", "UNet2DConditionModel"],
        "vae_scale_factor": 2,
        "round_trip_max_diff": 0.0,
        "swapped_pipeline_shares_unet": True,
        "diffsynth_units": 4,
        "diffsynth_in_iteration_models": ("unet",),
        "cost_flux_model_offload_peak_gib": 22.63,
        "cost_sd15_unet_fp8_rest_bf16_gib": 1.186,
    },
    "08-unet-dit-conditioning": {
        "first_channel_is_cos_t": True,
        "unet_time_embed_dim": 128,
        "unet_attention_processors": 12,
        "unet_processor_type": "AttnProcessor2_0",
        "dit_tokens_8x8_p2": 16,
        "sd3_tokens_32x32_p2": 256,
        "adaln_zero_vectors": 6,
        "dit_out_channels": 8,
        "diffsynth_unet_matches_1e-4": True,
    },
    "09-lora-injection": {
        "lora_tensors": 96,
        "wrapped_layers": 48,
        "rank": 4,
        "scaling_alpha_over_r": 1.0,
        "delta_at_scale_0": 0.0,
        "layer_delta_ratio_scale_half": 0.5,
        "lora_params_one_64x64_layer": 512,
        "fused_matches_adapter_1e-4": True,
        "unfuse_restores_base_1e-4": True,
        "diffsynth_fused_matches_1e-4": True,
    },
    "10-controlnet-conditioning": {
        "down_residuals": 6,
        "total_residual_tensors": 7,
        "fresh_residual_max": 0.0,
        "unet_change_with_fresh_controlnet": 0.0,
        "residual_ratio_at_scale_half": 0.5,
        "controlnet_calls_per_step": 1,
        "controlnet_batch_under_cfg": 2,
        "ip_adapter_scale_0_change": 0.0,
        "diffsynth_sd_unet_takes_residuals": False,
    },
    "11-memory-optimization": {
        "score_tensor_full_kib": 4096,
        "score_tensor_sliced_kib": 256,
        "attention_variants_agree_1e-4": True,
        "offload_hooks": 3,
        "fp8_weight_bytes_below_half": True,
        "fp8_output_changed": True,
        "diffsynth_wrapped_modules": 170,
        "diffsynth_state_after_offload": 0,
        "diffsynth_state_after_onload": 1,
        "cost_sd15_batch5_decode_peak_gib": 3.861,
        "cost_sd15_sequential_offload_s_20_steps": 1.375,
    },
}


def _add_lab_files() -> None:
    """Labs 12 on keep their answers in ``solutions_lab_NN.py`` beside this file (``SOLUTION = {...}``, ``LAB = "NN-name"``)."""
    import importlib
    from pathlib import Path

    for path in sorted(Path(__file__).parent.glob("solutions_lab_*.py")):
        module = importlib.import_module(path.stem)
        SOLUTIONS[module.LAB] = module.SOLUTION


_add_lab_files()
