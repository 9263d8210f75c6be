"""Lab 07 starter: a pipeline is a set of components plus a manifest (model_index.json).

Run:  .venv/bin/python labs/lab-07-pipeline-components/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds the tiny Stable Diffusion pipeline from ``infralens.tiny``, lists its components as
``register_modules`` recorded them, saves it and prints model_index.json and the folder layout,
loads it back offline and compares outputs, swaps the scheduler while sharing every other
component, then shows DiffSynth's StableDiffusionPipeline (whole package, with stub modules for
its training-only imports): attributes, units and a model_fn instead of a manifest.
``--check`` recomputes the answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "registered_components": None,  # vae, text_encoder, tokenizer, unet, scheduler, safety_checker, feature_extractor, image_encoder
    "null_entries_in_model_index": None,  # safety_checker, feature_extractor, image_encoder
    "saved_subfolders": None,
    "unet_entry": None,
    "vae_scale_factor": None,
    "round_trip_max_diff": None,
    "swapped_pipeline_shares_unet": None,
    "diffsynth_units": None,
    "diffsynth_in_iteration_models": None,
    "cost_flux_model_offload_peak_gib": None,
    "cost_sd15_unet_fp8_rest_bf16_gib": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"round_trip_max_diff": Decimals(6)}


def run(pipe, steps: int, device: str):
    import torch

    embeds = torch.randn(1, 77, 32, generator=torch.Generator().manual_seed(0)).to(device)
    return pipe(
        prompt_embeds=embeds,
        negative_prompt_embeds=torch.zeros_like(embeds),
        num_inference_steps=steps,
        output_type="np",
        generator=torch.Generator(device).manual_seed(0),
    ).images


def show_components(pipe) -> dict:
    print("== 1. Components, as register_modules recorded them")
    for name, value in pipe.components.items():
        entry = pipe.config[name]
        print(
            f"  {name:<18} {type(value).__name__ if value is not None else 'None':<22} config entry {reveal(tuple(entry)) if name == 'unet' else tuple(entry)}"
        )
    print(f"  model_cpu_offload_seq = {pipe.model_cpu_offload_seq!r}")
    print(f"  vae_scale_factor = 2 ** (len(vae.config.block_out_channels) - 1) = {reveal(pipe.vae_scale_factor)}")
    return {"registered_components": len(pipe.components), "vae_scale_factor": pipe.vae_scale_factor}


def show_save_load(pipe, steps: int, device: str) -> dict:
    from diffusers import StableDiffusionPipeline

    print("== 2. save_pretrained -> model_index.json + one folder per component")
    with tempfile.TemporaryDirectory() as folder:
        pipe.save_pretrained(folder)
        with open(os.path.join(folder, "model_index.json")) as handle:
            index = json.load(handle)
        print("  model_index.json:")
        for key, value in index.items():
            print(f"    {key}: {reveal(value) if key == 'unet' else value}")
        subfolders = sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)))
        for sub in subfolders:
            print(f"  {sub}/: {', '.join(sorted(os.listdir(os.path.join(folder, sub))))}")
        loaded = StableDiffusionPipeline.from_pretrained(folder, local_files_only=True).to(device)
        loaded.set_progress_bar_config(disable=True)
        diff = float(abs(run(pipe, steps, device) - run(loaded, steps, device)).max())
    print(f"  from_pretrained(folder, local_files_only=True): {steps}-step output max |diff| = {reveal(diff)}")
    nulls = sum(1 for value in index.values() if isinstance(value, list) and value[0] is None)
    return {"null_entries_in_model_index": nulls, "saved_subfolders": len(subfolders), "unet_entry": index["unet"], "round_trip_max_diff": diff}


def show_swap(pipe) -> dict:
    from diffusers import EulerDiscreteScheduler, StableDiffusionPipeline

    print("== 3. Swapping a component: a new pipeline over the same objects")
    euler = EulerDiscreteScheduler.from_config(pipe.scheduler.config)
    swapped = StableDiffusionPipeline(**{**pipe.components, "scheduler": euler}, requires_safety_checker=False)
    shares = swapped.unet is pipe.unet and swapped.vae is pipe.vae
    print(f"  scheduler {type(pipe.scheduler).__name__} -> {type(swapped.scheduler).__name__}; unet and vae shared: {reveal(shares)}")
    print(f"  scheduler config carried over: beta_schedule={euler.config.beta_schedule}, steps_offset={euler.config.steps_offset}")
    print(f"  not carried (DDIM's value was a default): timestep_spacing={euler.config.timestep_spacing}")
    return {"swapped_pipeline_shares_unet": shares}


def show_diffsynth() -> dict:
    import torch

    from infralens.tiny import import_full_diffsynth

    print("== 4. DiffSynth: attributes, units and a model_fn (package imported with stub modules)")
    import_full_diffsynth()
    from diffsynth.pipelines.stable_diffusion import StableDiffusionPipeline as DSPipeline

    pipe = DSPipeline(device="cpu", torch_dtype=torch.float32)
    print(f"  scheduler {type(pipe.scheduler).__name__} built in __init__; unet={pipe.unet}, vae={pipe.vae} until assigned")
    print(f"  units: {reveal([type(unit).__name__ for unit in pipe.units])}")
    print(f"  in_iteration_models={reveal(pipe.in_iteration_models)}; model_fn={pipe.model_fn.__name__}")
    print(f"  has save_pretrained: {hasattr(pipe, 'save_pretrained')}; has a config manifest: {hasattr(pipe, 'config')}")
    return {"diffsynth_units": len(pipe.units), "diffsynth_in_iteration_models": pipe.in_iteration_models}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="denoising steps for the round-trip comparison").parse_args(argv)
    from infralens.tiny import tiny_sd_components

    device = setup_torch(args.device)
    import diffusers
    import transformers
    from diffusers import StableDiffusionPipeline

    diffusers.utils.logging.disable_progress_bar()
    transformers.utils.logging.disable_progress_bar()

    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False).to(device)
    pipe.set_progress_bar_config(disable=True)
    answers = show_components(pipe)
    answers.update(show_save_load(pipe, args.steps, device))
    answers.update(show_swap(pipe))
    answers.update(show_diffsynth())
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("07", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("07")})


if __name__ == "__main__":
    sys.exit(main())
