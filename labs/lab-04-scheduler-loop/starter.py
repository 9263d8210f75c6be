"""Lab 04 starter: the denoising loop as the spine of inference, traced on tiny pipelines.

Run:  .venv/bin/python labs/lab-04-scheduler-loop/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Runs the real diffusers StableDiffusionPipeline (tiny random weights, DDIM, CFG 6.0) for N steps
(default 3) and records, with a forward hook on the UNet and a step-end callback, every UNet call
(batch, timestep) and the latents after every scheduler step. Then swaps in Euler via
``from_config`` (no CFG) to show ``init_noise_sigma``, and runs DiffSynth's own SD pipeline (the
real package, imported with stub modules for torchvision & co.) to compare its loop.
``--check`` recomputes the answers to the exercises in index.md (always 3 steps); exit 1 if wrong.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from infralens.tiny.labkit import Decimals, diffsynth_sd_pipeline, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "diffusers_unet_calls_3_steps": None,
    "diffusers_unet_batch_cfg": None,
    "diffusers_timesteps_3_steps": None,
    "diffusers_latents_shape_64px": None,
    "euler_init_noise_sigma": None,  # from_config -> linspace spacing, sigma at t=999, 3 decimals
    "diffsynth_timesteps_3_steps": None,
    "diffsynth_unet_calls_3_steps_cfg": None,
    "diffsynth_unet_batch": None,
    "diffsynth_latents_shape_64px": None,  # height // 8 is hard-coded in SDUnit_NoiseInitializer
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"euler_init_noise_sigma": Decimals(3)}


@dataclass(frozen=True)
class LoopTrace:
    """What one pipeline call did: UNet calls as (batch, timestep), latent shapes after each step, the grid."""

    unet_calls: list[tuple[int, float]]
    latent_shapes: list[tuple[int, ...]]
    timesteps: list[float]
    init_noise_sigma: float


def diffusers_pipeline(device: str, euler: bool = False):
    from diffusers import EulerDiscreteScheduler, StableDiffusionPipeline

    from infralens.tiny import tiny_ddim_scheduler, tiny_sd_components

    scheduler = EulerDiscreteScheduler.from_config(tiny_ddim_scheduler().config) if euler else None
    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0, scheduler=scheduler), requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    return pipe.to(device)


def trace_diffusers(device: str, steps: int, guidance_scale: float, euler: bool = False) -> LoopTrace:
    from infralens.tiny import generator

    pipe = diffusers_pipeline(device, euler=euler)
    calls: list[tuple[int, float]] = []
    shapes: list[tuple[int, ...]] = []
    hook = pipe.unet.register_forward_hook(lambda module, args, output: calls.append((args[0].shape[0], float(args[1]))))

    def on_step_end(pipeline, index, timestep, tensors):
        shapes.append(tuple(tensors["latents"].shape))
        return tensors

    pipe("a cat", num_inference_steps=steps, guidance_scale=guidance_scale, output_type="np", generator=generator(device, 0), callback_on_step_end=on_step_end)
    hook.remove()
    return LoopTrace(calls, shapes, [float(t) for t in pipe.scheduler.timesteps], float(pipe.scheduler.init_noise_sigma))


def trace_diffsynth(device: str, steps: int, cfg_scale: float) -> LoopTrace:
    pipe = diffsynth_sd_pipeline(device)  # DiffSynth's own SD pipeline, tiny random weights
    calls: list[tuple[int, float]] = []
    shapes: list[tuple[int, ...]] = []
    hook = pipe.unet.register_forward_hook(lambda module, args, output: calls.append((args[0].shape[0], float(args[1].flatten()[0]))))
    original_step = pipe.step

    def recording_step(*args, **kwargs):
        latents = original_step(*args, **kwargs)
        shapes.append(tuple(latents.shape))
        return latents

    pipe.step = recording_step
    pipe("a cat", cfg_scale=cfg_scale, height=64, width=64, seed=0, num_inference_steps=steps, progress_bar_cmd=lambda x: x)
    hook.remove()
    return LoopTrace(calls, shapes, [float(t) for t in pipe.scheduler.timesteps], 1.0)


def show_trace(title: str, trace: LoopTrace, asked: bool) -> None:
    """One pipeline run; with *asked* (the exercises' 3 steps) the grid and call count print with --reveal only."""
    print(title)
    grid = [round(t, 1) for t in trace.timesteps]
    print(f"  grid {reveal(grid) if asked else grid}; {reveal(len(trace.unet_calls)) if asked else len(trace.unet_calls)} UNet calls")
    for batch, t in trace.unet_calls:
        print(f"    unet(batch={reveal(batch)}, t={t:.1f})")
    print(f"  latents after each step: {reveal(trace.latent_shapes)}")


def show(device: str, steps: int) -> None:
    asked = steps == 3
    show_trace(f"== 1. diffusers StableDiffusionPipeline, DDIM, guidance 6.0, {steps} steps (64x64 px)", trace_diffusers(device, steps, 6.0), asked)
    euler = trace_diffusers(device, steps, 1.0, euler=True)
    show_trace("== 2. Same pipeline, EulerDiscreteScheduler.from_config(ddim.config), guidance 1.0 (no CFG)", euler, asked)
    print(f"  init_noise_sigma {reveal(euler.init_noise_sigma, '.3f')}: prepare_latents multiplies N(0, I) by it")
    show_trace(
        f"== 3. DiffSynth StableDiffusionPipeline (tiny UNet/VAE/text encoder), cfg_scale 7.5, {steps} steps", trace_diffsynth(device, steps, 7.5), asked
    )


def compute_answers(device: str) -> dict:
    cfg = trace_diffusers(device, 3, 6.0)
    euler = trace_diffusers(device, 3, 1.0, euler=True)
    ds = trace_diffsynth(device, 3, 7.5)
    return {
        "diffusers_unet_calls_3_steps": len(cfg.unet_calls),
        "diffusers_unet_batch_cfg": max(batch for batch, _ in cfg.unet_calls),
        "diffusers_timesteps_3_steps": [int(t) for t in cfg.timesteps],
        "diffusers_latents_shape_64px": list(cfg.latent_shapes[-1]),
        "euler_init_noise_sigma": round(euler.init_noise_sigma, 3),
        "diffsynth_timesteps_3_steps": [int(t) for t in ds.timesteps],
        "diffsynth_unet_calls_3_steps_cfg": len(ds.unet_calls),
        "diffsynth_unet_batch": max(batch for batch, _ in ds.unet_calls),
        "diffsynth_latents_shape_64px": list(ds.latent_shapes[-1]),
    }


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="number of inference steps").parse_args(argv)
    device = setup_torch(args.device)
    print(f"lab 04 scheduler loop on {device}")
    show(device, args.steps)
    return finish(args, ANSWERS, lambda: compute_answers(device), tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
