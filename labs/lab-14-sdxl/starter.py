"""Lab 14 starter: SDXL — two text encoders, pooled embeddings, micro-conditioning time ids, the fp16 VAE upcast, the refiner.

Run:  .venv/bin/python labs/lab-14-sdxl/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds a tiny StableDiffusionXLPipeline from configs (two 32-wide CLIP encoders, a text_time UNet, 16x16 images),
encodes a prompt, computes the time ids, runs the pipeline with a float16 VAE, then the refiner
(StableDiffusionXLImg2ImgPipeline with requires_aesthetics_score=True), and DiffSynth's own SDXL pipeline on
the same UNet weights. ``--check`` recomputes the answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from infralens.tiny.labkit import finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "prompt_embeds_width": None,
    "pooled_from": None,
    "negative_pooled_all_zero": None,
    "time_ids": None,
    "add_embedding_inputs": None,
    "wrong_projection_error": None,
    "vae_dtype_after_call": None,
    "refiner_time_ids": None,
    "diffsynth_unet_calls": None,
    "diffsynth_clip_skip_index": None,
    "diffsynth_pooled_ignores_prompt": None,
    "diffsynth_guidance_rescale_error": None,
    "cost_sdxl_upcast_vae_peak_gib": None,
    "cost_sdxl_largest_batch_16gib": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION: dict = {}

SIZES = dict(original_size=(24, 20), crops_coords_top_left=(2, 3), target_size=(16, 16))


def show_encode(pipe, device: str) -> dict:
    import torch

    print("== 1. encode_prompt: two encoders, one pooled vector")
    embeds, negative, pooled, negative_pooled = pipe.encode_prompt("a cat", device=torch.device(device), do_classifier_free_guidance=True)
    from_second = torch.allclose(
        pooled, pipe.text_encoder_2(pipe.tokenizer_2("a cat", padding="max_length", return_tensors="pt").input_ids.to(device)).text_embeds
    )
    zero = not negative_pooled.any() and not negative.any()
    print(
        f"  prompt_embeds {reveal(tuple(embeds.shape))} = encoder 1 width {pipe.text_encoder.config.hidden_size} "
        f"+ encoder 2 width {pipe.text_encoder_2.config.hidden_size}"
    )
    print(f"  pooled {tuple(pooled.shape)} is the text_embeds of: {reveal('text_encoder_2' if from_second else 'text_encoder')}")
    print(f"  no negative prompt -> negative embeddings all zero: {reveal(zero)}")
    return {"prompt_embeds_width": embeds.shape[-1], "pooled_from": "text_encoder_2" if from_second else "text_encoder", "negative_pooled_all_zero": zero}


def show_time_ids(pipe) -> dict:
    import torch

    print("== 2. _get_add_time_ids: six numbers, and the width check")
    ids = pipe._get_add_time_ids(*SIZES.values(), dtype=torch.float32, text_encoder_projection_dim=pipe.text_encoder_2.config.projection_dim)
    inputs = pipe.unet.add_embedding.linear_1.in_features
    print(f"  time ids {reveal(ids.tolist()[0])}; add_embedding takes {reveal(inputs)} = 6 x {pipe.unet.config.addition_time_embed_dim} + 32")
    try:
        pipe._get_add_time_ids(*SIZES.values(), dtype=torch.float32, text_encoder_projection_dim=16)
        error = "none"
    except ValueError as caught:
        error = type(caught).__name__
        print(f"  projection dim 16 -> {reveal(f'{error}: {str(caught)[:72]}...')}")
    return {"time_ids": [int(v) for v in ids[0].tolist()], "add_embedding_inputs": inputs, "wrong_projection_error": error}


def show_call(pipe, device: str, steps: int) -> dict:
    import torch

    print("== 3. __call__ with the VAE cast to half precision (force_upcast)")
    generator = torch.Generator().manual_seed(0)
    full = pipe("a cat", height=16, width=16, num_inference_steps=steps, guidance_scale=5.0, output_type="np", generator=generator, **SIZES).images
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.vae.to(torch.float16)
        generator = torch.Generator().manual_seed(0)
        half = pipe("a cat", height=16, width=16, num_inference_steps=steps, guidance_scale=5.0, output_type="np", generator=generator, **SIZES).images
    dtype = str(pipe.vae.dtype).removeprefix("torch.")
    print(
        f"  force_upcast={pipe.vae.config.force_upcast}; VAE dtype after the call: {reveal(dtype)}; "
        f"image max |diff| vs float32 VAE = {abs(half - full).max():.1e}"
    )
    return {"vae_dtype_after_call": dtype}


def show_refiner(device: str, steps: int) -> dict:
    import torch
    from diffusers import StableDiffusionXLImg2ImgPipeline

    from infralens.tiny.sdxl import tiny_sdxl_components

    print("== 4. The refiner: aesthetic score instead of target size")
    pipe: Any = StableDiffusionXLImg2ImgPipeline(**tiny_sdxl_components(seed=0, refiner=True), requires_aesthetics_score=True)
    pipe.to(device)
    pipe.set_progress_bar_config(disable=True)
    seen = []
    handle = pipe.unet.register_forward_pre_hook(lambda m, a, k: seen.append(k["added_cond_kwargs"]["time_ids"].tolist()), with_kwargs=True)
    image = torch.rand(1, 3, 16, 16, generator=torch.Generator().manual_seed(1)).to(device)
    pipe("a cat", image=image, strength=0.5, num_inference_steps=2 * steps, aesthetic_score=7.0, negative_aesthetic_score=2.0, output_type="np", **SIZES)
    handle.remove()
    rows = [[int(v) for v in row] for row in seen[0]]
    print(f"  time ids (negative, positive): {reveal(rows)}")
    return {"refiner_time_ids": rows}


def show_diffsynth(device: str, steps: int) -> dict:
    import torch

    from infralens.tiny import ds_tiny_sdxl_pipeline

    print("== 5. DiffSynth's StableDiffusionXLPipeline on the same UNet weights")
    pipe = ds_tiny_sdxl_pipeline(device)
    quiet = dict(height=64, width=64, seed=0, progress_bar_cmd=lambda steps: steps)
    calls = []
    handle = pipe.unet.register_forward_pre_hook(lambda m, a: calls.append(a[0].shape[0]))
    pipe("a cat", cfg_scale=5.0, num_inference_steps=steps, **quiet)
    handle.remove()
    print(f"  {reveal(len(calls))} UNet calls for {steps} steps with CFG, batch sizes {reveal(calls)}")

    embedder = pipe.units[1]
    layers = len(pipe.text_encoder.model.text_model.encoder.layers)
    hidden = pipe.text_encoder(pipe.tokenizer("a cat", padding="max_length", return_tensors="pt").input_ids.to(device))[1]
    ids = pipe.tokenizer("a cat", padding="max_length", return_tensors="pt").input_ids.to(device)
    chosen = embedder.encode_prompt(pipe, "a cat", device, clip_skip=2)[0][..., :32]
    index = next(i - len(hidden) for i in range(len(hidden)) if torch.equal(hidden[i], chosen))
    print(f"  clip_skip=2 picks hidden_states[{reveal(index)}] of encoder 1 ({layers} layers; diffusers' default is -2)")
    cat = embedder.encode_prompt(pipe, "a cat", device)[1]
    other = embedder.encode_prompt(pipe, "a red house", device)[1]
    same = torch.allclose(cat, other)
    print(f"  pooled vector for 'a cat' == for 'a red house': {reveal(same)} (token-0 pooling, ids {ids[0, :3].tolist()}...)")
    try:
        pipe("a cat", cfg_scale=5.0, num_inference_steps=1, guidance_rescale=0.5, **quiet)
        error = "none"
    except KeyError as caught:
        error = type(caught).__name__
        print(f"  guidance_rescale=0.5 -> {reveal(f'{error} {caught}')}")
    return {
        "diffsynth_unet_calls": len(calls),
        "diffsynth_clip_skip_index": index,
        "diffsynth_pooled_ignores_prompt": same,
        "diffsynth_guidance_rescale_error": error,
    }


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="denoising steps (the refiner runs 2x steps at strength 0.5)").parse_args(argv)
    device = setup_torch(args.device)
    from diffusers import StableDiffusionXLPipeline

    from infralens.tiny.sdxl import tiny_sdxl_components

    pipe: Any = StableDiffusionXLPipeline(**tiny_sdxl_components(seed=0))
    pipe.to(device)
    pipe.set_progress_bar_config(disable=True)
    answers = show_encode(pipe, device)
    answers.update(show_time_ids(pipe))
    answers.update(show_call(pipe, device, args.steps))
    answers.update(show_refiner(device, args.steps))
    answers.update(show_diffsynth(device, args.steps))
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("14", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("14")})


if __name__ == "__main__":
    sys.exit(main())
