"""Each exercise's right answer as its page writes it, and the tempting wrong answers it exists to catch.

``EXERCISES[lab][key]`` is an :class:`Exercise`: *written* is the answer exactly as the lab page's folded
``Answers`` block writes it (``"0.99915"``, ``"−332"``, ``"Yes"``, ``"49%"``), found in the item with the
exercise's number; *traps* are the values a learner holding the misconception the exercise tests would put in
``ANSWERS`` (written at the precision the question asks for). ``--check`` must accept the written answer and
reject every trap (``test_check_traps.py``). Keys whose name starts with ``cost_`` are not listed here: each
cost exercise carries its own traps (``infralens.cost.exercises``; ``test_cost_exercises.py`` holds them).

Trap values that are not plain misreadings were computed with the real code (diffusers 0.42.1, the tiny
models) when they were written down; the comment beside each says what it is.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Exercise(NamedTuple):
    written: str
    traps: tuple[Any, ...] = ()


E = Exercise
EXERCISES: dict[str, dict[str, Exercise]] = {
    "01-forward-noise": {
        "abar_500_sd": E("0.276", (0.278, 0.275, 0.078)),  # alpha-bar at t=499 / t=501 (off by one); DDPM's linear schedule
        "first_t_below_half_sd": E("354", (353, 500)),  # the last t above 0.5; "half way through the schedule"
        "first_t_below_half_linear": E("259", (354,)),  # SD's scaled_linear answer
        "snr_999_sd": E("0.0047", (0.0,)),  # "at t = 999 the sample is pure noise"
        "diffsynth_level_of_second_sample": E("10", (999,)),  # each sample at its own timestep, as in diffusers
        "flow_x0_coefficient_at_sigma_0.25": E("0.75", (0.25,)),  # sigma multiplies the noise, not x0
    },
    "02-denoising-step": {
        "last_prev_timestep_3_steps": E("−332", (0, -333)),  # clamped at 0; 0 - 333 (steps_offset forgotten)
        "final_alpha_cumprod_sd": E("0.99915", (1.0, 0.00466)),  # set_alpha_to_one=True; alphas_cumprod[-1] ("final" = last)
        "x0_error_true_eps_below_1e-4": E("Yes", (False,)),
        "x0_error_eps_config_fed_v_above_0.1": E("yes", (False,)),  # "a mismatched prediction_type fails loudly or not at all"
        "linspace_4_steps_first_step_lands_at": E("749", (666,)),  # the next grid point
        "diffsynth_weight_x_999_to_666": E("4.749", (0.211, 22.553)),  # sqrt(abar_999 / abar_666) inverted; the ratio without the root
        "flow_euler_true_velocity_error_below_1e-5": E("Yes", (False,)),
    },
    "03-scheduler-reading": {
        "ddim_linspace_4": E("[999, 666, 333, 0]", ([999, 749, 499, 249],)),  # the trailing grid
        "ddim_leading_offset1_4": E("[751, 501, 251, 1]", ([750, 500, 250, 0], [999, 666, 333, 0])),  # offset forgotten; "starts at 999"
        "ddim_trailing_4": E("[999, 749, 499, 249]", ([999, 666, 333, 0],)),  # linspace's grid
        "euler_init_noise_sigma_linspace": E("14.615", (1.0, 14.649)),  # "init_noise_sigma is always 1"; sqrt(sigma_max^2 + 1), leading's rule
        "euler_init_noise_sigma_leading": E("4.236", (14.615, 4.117, 1.0)),  # linspace's value; sigma_751 without the +1; "always 1"
        "euler_first_input_scale_linspace": E("0.0683", (0.0684, 1.0)),  # 1 / sigma_max (the +1 forgotten); no scaling
        "diffsynth_flux_sigmas_4": E("[1.0, 0.8577, 0.6022, 0.0089]", ([1.0, 0.667, 0.334, 0.001], [1.0, 0.8577, 0.6022, 0.0])),  # no shift; ends at 0
        "diffsynth_unknown_template_uses": E("set_timesteps_flux", ()),
        "diffsynth_ddim_4": E("[999, 666, 333, 0]", ([751, 501, 251, 1],)),  # diffusers' leading grid with steps_offset=1
        "euler_from_ddim_config_spacing": E("linspace", ("leading",)),  # "from_config keeps every setting"
        "euler_from_explicit_leading_config_spacing": E("leading", ("linspace",)),
    },
    "04-scheduler-loop": {
        "diffusers_unet_calls_3_steps": E("3", (6,)),  # two calls per step under CFG
        "diffusers_unet_batch_cfg": E("2", (1,)),
        "diffusers_timesteps_3_steps": E("[667, 334, 1]", ([999, 666, 333], [666, 333, 0])),  # "starts at 999"; steps_offset forgotten
        "diffusers_latents_shape_64px": E("[1, 4, 32, 32]", ([1, 4, 8, 8],)),  # SD's factor 8, not the tiny VAE's 2
        "euler_init_noise_sigma": E("14.615", (1.0, 3.096)),  # "always 1"; the DDIM config's leading spacing carried over
        "diffsynth_timesteps_3_steps": E("[999, 500, 0]", ([667, 334, 1],)),  # diffusers' grid
        "diffsynth_unet_calls_3_steps_cfg": E("6", (3,)),  # batched CFG, as in diffusers
        "diffsynth_unet_batch": E("1", (2,)),
        "diffsynth_latents_shape_64px": E("[1, 4, 8, 8]", ([1, 4, 32, 32],)),  # the VAE's real factor; height // 8 is hard-coded
    },
    "05-classifier-free-guidance": {
        "diffusers_calls_per_step_scale_6": E("1", (2,)),  # "CFG runs the model twice"
        "diffusers_unet_batch_scale_6": E("2", (1,)),
        "diffusers_text_batch_scale_6": E("2", (1,)),
        "diffusers_unet_batch_scale_1": E("1", (2,)),  # "guidance_scale = 1 still runs two predictions"
        "diffusers_unet_batch_scale_0.5": E("1", (2,)),  # DiffSynth's rule (only exactly 1.0 is off)
        "diffsynth_calls_per_step_cfg_7.5": E("2", (1,)),  # batched, as in diffusers
        "diffsynth_unet_batch_cfg_7.5": E("1", (2,)),
        "diffsynth_calls_per_step_cfg_1": E("1", (2,)),
        "diffsynth_calls_per_step_cfg_0.5": E("2", (1,)),  # diffusers' rule (off at any scale <= 1)
        "formula_reproduced": E("Yes", (False,)),
        "rescale_phi1_matches_cond_std": E("Yes", (False,)),
        "original_formulation_w_for_s_5": E("4.0", (5.0, 6.0)),  # the same number; s + 1
    },
    "06-vae-latent-space": {
        "latent_shape_64px": E("(1, 4, 32, 32)", ((1, 4, 8, 8),)),  # SD's factor 8
        "sd_factor": E("8", (16,)),  # 2 ** levels instead of 2 ** (levels - 1)
        "variance_ratio_sd_factor_on_sdxl": E("1.96", (1.4, 0.51, 1.0)),  # the ratio of the factors, not of variances; inverted; "the factor is universal"
        "tile_latent_min_size": E("16", (32,)),  # sample_size itself (pixels, not latents)
        "tile_stride_latent": E("12", (16, 4)),  # no overlap; the overlap itself
        "blend_extent_px": E("8", (4,)),  # the blend in latent units
        "tiles_for_64x64_latent": E("36", (16,)),  # 4 x 4 tiles without overlap
        "slicing_matches_to_1e-4": E("Yes", (False,)),  # "slicing changes the result"
        "img2img_first_timestep_strength_0.5": E("251", (501, 500)),  # strength 0.5 read as "start half way"
        "img2img_steps_run_strength_0.5": E("2", (4,)),  # all the steps asked for
    },
    "07-pipeline-components": {
        "registered_components": E("8", (5,)),  # only the non-null ones
        "null_entries_in_model_index": E("3", (0, 2)),  # "optional components are left out"; image_encoder forgotten
        "saved_subfolders": E("5", (8, 3)),  # one per registered component; only the ones with weights
        "unet_entry": E('["diffusers", "UNet2DConditionModel"]', ("UNet2DConditionModel",)),  # the class alone
        "vae_scale_factor": E("2", (8,)),  # SD's VAE, not the tiny one
        "round_trip_max_diff": E("0.0", (1e-06,)),  # "float noise after a save and reload"
        "swapped_pipeline_shares_unet": E("True", (False,)),  # "pipe.unet is a copy"
        "diffsynth_units": E("4", ()),
        "diffsynth_in_iteration_models": E('("unet",)', (("text_encoder", "unet", "vae"),)),  # every model stays loaded
    },
    "08-unet-dit-conditioning": {
        "first_channel_is_cos_t": E("Yes", (False,)),
        "unet_time_embed_dim": E("128", (32,)),  # block_out_channels[0], the width before the MLP
        "unet_attention_processors": E("12", (6,)),  # cross-attention only
        "unet_processor_type": E("AttnProcessor2_0", ("AttnProcessor",)),  # the classic processor
        "dit_tokens_8x8_p2": E("16", (64,)),  # one token per latent pixel
        "sd3_tokens_32x32_p2": E("256", (1024,)),
        "adaln_zero_vectors": E("6", (3, 2)),  # one shift/scale/gate set; shift and scale only
        "dit_out_channels": E("8", (4,)),  # the latent's channels
        "diffsynth_unet_matches_1e-4": E("Yes", (False,)),
    },
    "09-lora-injection": {
        "lora_tensors": E("96", (48,)),  # one tensor per wrapped layer
        "wrapped_layers": E("48", (96,)),  # one layer per tensor
        "rank": E("4", ()),
        "scaling_alpha_over_r": E("1.0", (4.0, 0.25)),  # alpha itself; 1 / r
        "delta_at_scale_0": E("0.0", (1e-06,)),  # float noise
        "layer_delta_ratio_scale_half": E("0.5", (0.25,)),  # the scale applied to both A and B
        "lora_params_one_64x64_layer": E("512", (4096, 256)),  # the full 64 x 64 matrix; one factor only
        "fused_matches_adapter_1e-4": E("Yes", (False,)),
        "unfuse_restores_base_1e-4": E("yes", (False,)),
        "diffsynth_fused_matches_1e-4": E("Yes", (False,)),
    },
    "10-controlnet-conditioning": {
        "down_residuals": E("6", (7,)),  # the mid block counted as a down residual
        "total_residual_tensors": E("7", (6,)),  # the mid block forgotten
        "fresh_residual_max": E("0.0", (1e-06,)),  # "a fresh ControlNet adds a little noise" (zero convolutions)
        "unet_change_with_fresh_controlnet": E("0.0", (1e-06,)),
        "residual_ratio_at_scale_half": E("0.5", (0.25,)),
        "controlnet_calls_per_step": E("1", (2,)),  # one call per CFG branch
        "controlnet_batch_under_cfg": E("2", (1,)),
        "ip_adapter_scale_0_change": E("0.0", (1e-06,)),
        "diffsynth_sd_unet_takes_residuals": E("No", (True,)),
    },
    "11-memory-optimization": {
        "score_tensor_full_kib": E("4096", (2048,)),  # CFG's batch 2 forgotten
        "score_tensor_sliced_kib": E("256", (2048,)),  # one sample with all its heads
        "attention_variants_agree_1e-4": E("Yes", (False,)),
        "offload_hooks": E("3", (4,)),  # the image encoder, which is None
        "fp8_weight_bytes_below_half": E("Yes", (False,)),
        "fp8_output_changed": E("yes", (False,)),  # "fp8 storage keeps the numbers"
        "diffsynth_wrapped_modules": E("170", ()),
        "diffsynth_state_after_offload": E("0", (1,)),
        "diffsynth_state_after_onload": E("1", (2,)),  # the state the first forward moves Linear layers to
    },
    "12-multistep-solvers": {
        "ddim_equals_euler_trailing": E("Yes", (False,)),  # "DDIM and Euler are different samplers"
        "dpm20_beats_ddim50": E("yes", (False,)),
        "dpm_last_timestep_20_steps": E("50", (0, 1)),  # "the grid ends near 0"
        "dpm3_orders_8_steps": E(
            "[1, 2, 3, 3, 3, 3, 2, 1]", ([3, 3, 3, 3, 3, 3, 3, 3], [1, 2, 3, 3, 3, 3, 3, 3])
        ),  # every step order 3; no lowering at the end
        "dpm3_last_orders_20_steps": E("[3, 1]", ([2, 1], [3, 3])),  # lowered as with fewer than 15 steps; not lowered
        "unipc3_orders_8_steps": E("[1, 2, 3, 3, 3, 3, 2, 1]", ([3, 3, 3, 3, 3, 3, 3, 3],)),
        "heun_model_calls_10_steps": E("19", (10, 20)),  # one call per step; two for every step
        "karras_first_sigmas_10_steps": E("[14.61, 9.1, 5.48]", ([14.61, 7.32, 3.67], [14.61, 8.3, 5.09])),  # exponential sigmas; the default grid
        "bh1_zero_final_is_nan": E("Yes", (False,)),
        "qwen_image_last_sigma": E("0.02", (0.0,)),  # "a flow grid ends at 0"
        "flux2_empirical_mu_4096_tokens_8_steps": E("2.27", (1.15,)),  # the 200-step line alone (also FLUX.1's max_shift)
    },
    "13-flux": {
        "packed_tokens": E("64", (256,)),  # one token per latent pixel (no 2x2 packing)
        "token_features": E("4", (1,)),  # the latent's channels (no 2x2 packing)
        "image_ids_of_token_9": E("[0, 1, 1]", ([0, 9, 0], [1, 1, 0])),  # the flat index; ids in the wrong slots
        "mu_for_64_tokens": E("0.4675", (0.5,)),  # "the shift only grows": clamped at base_shift
        "second_timestep_2_steps": E("614.8", (500.0, 622.5)),  # no shift; mu clamped at 0.5
        "guidance_seen_by_embedding": E("3500.0", (3.5,)),  # the scale as passed (the x1000 forgotten)
        "calls_per_step_plain": E("1", (2,)),  # "guidance_scale is CFG"
        "calls_per_step_true_cfg": E("2", (1,)),  # "true CFG doubles the batch"
        "text_ids_all_zero": E("True", (False,)),  # "text tokens have positions"
        "rope_channels_per_head": E("16", ()),
        "diffsynth_blocks_match_1e-5": E("True", (False,)),
        "diffsynth_single_fused_width": E("224", (96,)),  # q, k and v only, no MLP input
    },
    "14-sdxl": {
        "prompt_embeds_width": E("64", (32,)),  # one encoder's width
        "pooled_from": E("text_encoder_2", ("text_encoder",)),
        "negative_pooled_all_zero": E("True", (False,)),  # "the negative branch encodes the empty prompt"
        "time_ids": E("[24, 20, 2, 3, 16, 16]", ([24, 20, 16, 16, 2, 3], [16, 16, 2, 3, 24, 20])),  # crop and target swapped; target first
        "add_embedding_inputs": E("80", (48, 112)),  # the time ids alone; 6 x 8 + the prompt width 64 instead of the pooled 32
        "wrong_projection_error": E("ValueError", ("RuntimeError",)),  # the Linear's shape error
        "vae_dtype_after_call": E("float16", ("float32",)),  # left upcast after the decode
        "refiner_time_ids": E("[[24, 20, 0, 0, 2], [24, 20, 2, 3, 7]]", ([[24, 20, 2, 3, 2], [24, 20, 2, 3, 7]], [[24, 20, 0, 0, 7], [24, 20, 2, 3, 2]])),
        "diffsynth_unet_calls": E("4", (2,)),  # batched CFG, as in diffusers
        "diffsynth_clip_skip_index": E("-3", (-2,)),  # diffusers' default layer
        "diffsynth_pooled_ignores_prompt": E("True", (False,)),
        "diffsynth_guidance_rescale_error": E("KeyError", ()),
    },
    "15-attention-backends-compile": {
        "default_active_backend": E("native", ("flash",)),  # "the fastest kernel is picked"
        "explicit_flash_error": E("TypeError", ("RuntimeError",)),  # "the explicit path checks requirements too"
        "context_flash_error": E("RuntimeError", ("TypeError",)),
        "native_flash_float32_checked_error": E("ValueError", ("RuntimeError",)),
        "flux_processors_with_backend": E("4", ()),
        "active_after_reset": E("_native_math", ("native",)),  # "reset undoes set_attention_backend"
        "classic_processor_has_backend": E("No", (True,)),  # "set_attention_backend changes every model's attention"
        "graphs_for_two_blocks": E("1", (2,)),  # one graph per block
        "new_shape_recompiles": E("yes", (False,)),
        "diffsynth_implementation": E("torch", ()),
        "diffsynth_torch_support_gqa": E("no", (True,)),
    },
    "16-quantization": {
        "string_quant_type_error": E("TypeError", ()),
        "bnb_8bit_quantizer_class": E("BnB8BitDiffusersQuantizer", ()),
        "torchao_float_linears": E("3", (1,)),  # "skips one layer": a substring test keeps every proj_out
        "int8_weight_class": E("Int8Tensor", ()),
        "q8_0_block_bytes": E("34", (32, 36)),  # the scale forgotten; a float32 scale
        "q8_0_weight_bytes_shape": E("[32, 136]", ([32, 128],)),  # the Linear's logical shape
        "gguf_dequant_dtype": E("float16", ("bfloat16",)),  # the compute dtype
        "quanto_float_linears": E("3", (1,)),
        "layerwise_float32_linears": E("8", (1,)),  # the top-level proj_out alone
        "layerwise_repeat_exact": E("yes", (False,)),  # "layerwise casting drifts a little more with each step"
        "int8_error_below_fp8_storage": E("Yes", (False,)),
        "diffsynth_quantized_linears": E("42", (50, 8)),  # every Linear; the excluded ones
        "fp8_activation_scale_small_rows": E("1.0", (0.01,)),  # max |x| / 448 unclamped (0.0064 for the first row), to two decimals
    },
    "17-offload-caching": {
        "negate_bypassed": E("True", (False,)),  # "removing a hook restores the rest of the chain"
        "use_stream_cpu_error": E('"ValueError"', ()),
        "disk_files_block_level": E("5", (4,)),  # the root's group forgotten
        "fbc_default_threshold": E("0.05", (0.5,)),  # the threshold exercise 5 sets
        "fbc_blocks_second_call": E("1", (0, 4)),  # "a hit skips every block"; "a hit is not taken"
        "outside_context_error": E('"ValueError"', ()),
        "disable_cache_exact": E("True", (False,)),
        "diffsynth_default_preparing_dtype": E('"float32"', ("bfloat16",)),  # "AutoWrappedModule keeps the stored dtype"
    },
    "18-ip-adapter": {
        "sd_ip_processors": E("6", (12,)),  # every attention layer, self-attention included
        "first_up_key_id": E("5", (2, 7)),  # numbered per cross-attention; the mid block registered before the up blocks
        "mid_key_id": E("11", (5,)),  # numbered per cross-attention / registered before the up blocks
        "image_tokens_shape": E("[2, 1, 4, 32]", ([2, 4, 32], [1, 1, 4, 32])),  # no image axis; CFG's negative half forgotten
        "scale_zero_exact": E("Yes", (False,)),
        "style_scales": E("[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]", ([1.0, 1.0, 0.0, 1.0, 0.0, 1.0],)),  # "unnamed blocks keep their scale"
        "unload_exact": E("yes", (False,)),
        "flux_ip_processors": E("2", (4,)),  # every transformer block, single-stream included
        "flux_missing_negative_error": E("AttributeError", ("ValueError",)),  # the SD pipeline's chunk(2) error
        "diffsynth_kv_blocks": E("2", (1,)),  # double-stream blocks only, as in diffusers
        "diffsynth_ip_k_shape": E("[1, 2, 8, 32]", ([2, 2, 4, 32],)),  # two pictures as a batch of two
        "diffsynth_negative_scale": E("1.0", (0.6, 0.0)),  # the positive pass's scale; "the negative pass has no image"
    },
    "19-generation-loop": {
        "forwards_for_4_tokens": E("4", (5, 1)),  # a forward for the last token too; "one call does it all"
        "prefill_positions_in": E("5", (1,)),  # "the prompt is fed one token at a time"
        "prefill_logits_positions": E("1", (5,)),  # logits for every prompt position
        "decode_positions_in": E("1", (6,)),  # the whole sequence again at every step
        "all_ones_mask_reaches_model": E("False", (True,)),
        "first_processor": E('"RepetitionPenaltyLogitsProcessor"', ("TemperatureLogitsWarper",)),  # warpers first
        "top_k_then_top_p_kept": E("18", (20,)),  # top-p forgotten after top-k (computed with the tiny LLaMA)
        "penalised_negative_logit": E("-2.60", (-1.54,)),  # divided by the penalty whatever the sign
        "eos_row_next_token": E("0", (33,)),  # the eos id again (the starter's eos, computed with the tiny LLaMA)
        "greedy_matches_no_cache": E("True", (False,)),
    },
    "20-kv-cache": {
        "dynamic_positions_after": E("14", (15, 8)),  # the last new token fed back too; the traced call's 4 tokens
        "static_buffer_positions": E("14", (15, 16)),  # prompt + new tokens; the StaticCache exercise's 16
        "static_same_tensor": E("True", (False,)),
        "dynamic_same_tensor": E("False", (True,)),  # "the dynamic cache appends in place"
        "static_mask_key_length": E("16", (1,)),  # only the new position's key
        "sliding_dynamic_kept": E("3", (4, 9)),  # the window; every token seen
        "sliding_static_kept": E("4", (3,)),  # the dynamic layer's window - 1
        "tiny_kv_bytes_per_token": E("512", (1024, 256)),  # 4 query heads instead of 2 KV heads; keys only
        "llama8b_kv_bytes_per_token_bf16": E("131072", (524288, 65536)),  # 32 query heads; keys only
    },
    "21-decoder-attention": {
        "empty_rows_with_5_pads": E("5", (0,)),  # "every query sees at least itself"
        "last_query_keys_with_5_pads": E("2", (7, 5)),  # the whole row, pads included; the pads
        "decode_mask_shape": E("[2, 1, 1, 8]", ([2, 1, 8, 8], [2, 6, 1, 8], [2, 1, 1, 7])),  # a square again; one mask per head; the new key forgotten
        "unpadded_mask_is_none": E("True", (False,)),  # "a causal model always gets a mask tensor"
        "rope_frequencies": E("8", (16, 96)),  # one per dimension; one per hidden feature
        "rope_score_depends_on_offset_only": E("True", (False,)),
        "kv_head_of_query_head_4": E("1", (0, 2)),  # 4 % 2 (heads interleaved); 4 // 2
        "repeat_kv_shape": E("[1, 6, 5, 16]", ([1, 2, 15, 16], [3, 2, 5, 16])),  # repeated along positions; along the batch
        "eager_sdpa_agree_on_real_tokens": E("True", (False,)),
        "eager_sdpa_agree_on_pads": E("False", (True,)),  # "the same maths gives the same numbers everywhere"
        "sliding_keys_last_query": E("3", (2, 7)),  # the dynamic sliding cache's window - 1; every earlier key
        "llama8b_query_heads_per_kv_head": E("4", (8, 32)),  # the KV heads; the query heads
    },
    "22-continuous-batching": {
        "e_first_step": E("1", (0, 4)),  # "every request that arrived is in the batch"; "a new request waits for the batch to finish"
        "batch1_tokens": E("7", (3, 12)),  # "one token per request"; "every batch fills the budget"
        "c_tokens_prefilled": E("1", (9, 0)),  # no prefix caching; "the whole prompt can match"
        "c_blocks_shared_with_a": E("2", (0, 3)),  # "sharing copies the blocks"; c's whole table counted
        "d_first_chunk": E("8", (12, 14)),  # "prefill goes before decodes"; "a prompt is never split"
        "d_status_after_first_chunk": E('"PREFILLING"', ("DECODING", "PENDING")),  # "DECODING once scheduled"; "still waiting"
        "d_blocks_at_finish": E("5", (4, 17)),  # the prompt's blocks only; positions counted instead of blocks
        "blocks_to_pool_when_a_b_finish": E("2", (5, 1)),  # "a finished request frees all its blocks"; "a full block is always hashed"
        "tiny_sectors_for_64mib": E("7608", (32768, 32766)),  # the budget over 2048 bytes of KV per sector; less the two trash sectors
        "kv_share_of_budget": E("0.23", (1.0, 0.9)),  # "the whole budget becomes cache"; max_memory_percent
        "llama8b_block_bytes_bf16": E("33554432", (131072, 1048576)),  # one token's bytes; one layer's page (x32 layers)
    },
    "23-quantized-offloaded-cache": {
        "first_quantized_forward": E("0", (3,)),  # "quantization waits until residual_length tokens have passed"
        "residual_after_5_decodes": E("2", (5, 3)),  # never flushed; the residual's capacity
        "quantized_after_5_decodes": E("8", (5, 10)),  # only the prompt; every position seen
        "bf16_bytes_per_token_tiny": E("256", (512,)),  # float32's 4 bytes
        "int4_bytes_per_token_tiny": E("128", (64,)),  # the integers alone, no scale and shift per group
        "int2_bytes_per_token_tiny": E("96", (32,)),  # the integers alone
        "dequantized_at_forward_5": E("8", (1, 2)),  # only the new position; only the residual
        "int2_step_over_int4_step": E("5.0", (2.0, 4.0)),  # 4 bits / 2 bits; 16 levels / 4 levels
        "fp8_residual_positions": E("0", (3, 128)),  # the scenario's residual_length; quanto's default residual
        "prefetched_for_1": E("2", (1,)),  # the requested layer, though it is sliding and stays resident
        "prefetched_for_4": E("0", (4, 3)),  # past the last layer; the last layer again
        "llama8b_int4_bytes_per_token": E("36864", (32768, 131072)),  # scales and shifts forgotten; bf16
        "llama8b_offload_gib_per_step_32k": E("8", (4,)),  # one direction only
    },
    "24-assisted-decoding": {
        "target_forwards_with_draft": E("9", (12, 4)),  # one forward per token as in plain decoding; one per 3 tokens
        "tokens_per_target_forward": E("1.33", (1.0, 5.0)),  # "a draft cannot help"; every candidate accepted
        "first_round_cache_after_crop": E("6", (10, 7)),  # the rejected candidates left in; the target's token counted
        "draft_allowance_after_call": E("3", (4, 1)),  # "the allowance is reset per call"; the minimum it fell to
        "assisted_equals_greedy": E("True", (False,)),
        "self_draft_verifying_forwards": E("1", (12,)),  # one verifying forward per token
        "self_draft_total_forwards": E("12", (1, 2)),  # the draft's forwards forgotten
        "default_threshold_candidates": E("1", (20, 4)),  # the default num_assistant_tokens; the draft run's allowance
        "prompt_lookup_target_forwards": E("3", (12, 4)),  # a lookup that never hits; 3 tokens per round, not 4
        "acceptance_rate_p02_q05": E("0.4", (0.2, 0.6, 0.5)),  # p alone; 1 - p/q; q alone
        "share_of_token_1": E("0.5", (0.3, 0.6)),  # the draft's q; q plus every rejected round
        "verify_weight_reads_vs_decode": E("1", (5, 4)),  # one weight read per position; per candidate
        "verify_ms_bound_3350": E("4.79", (23.97, 2.40)),  # five positions' reads; one byte per parameter (fp8)
        "bound_tokens_per_s_3_per_forward": E("626", (209, 1043)),  # one token per forward; 5 tokens per forward
    },
}
