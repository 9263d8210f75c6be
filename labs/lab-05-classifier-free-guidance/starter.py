"""Lab 05 starter: classifier-free guidance as batch doubling (diffusers SD pipeline) vs two passes (DiffSynth).

Run:  .venv/bin/python labs/lab-05-classifier-free-guidance/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Runs the tiny diffusers StableDiffusionPipeline at guidance 6.0, 1.0 and 0.5 and DiffSynth's SD
pipeline at cfg_scale 7.5, 1.0 and 0.5 (N steps each, default 2), recording every UNet call.
On the diffusers run it captures the UNet output and the prediction handed to the scheduler, and
re-derives uncond + s * (cond - uncond) from them; it applies guidance rescale to the captured
halves and compares the diffusers guider's two formulations.
The exercise answers are per step, so ``--check`` works with any ``--steps``; exit 1 if one is wrong.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from infralens.tiny.labkit import Decimals, diffsynth_sd_pipeline, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "diffusers_calls_per_step_scale_6": None,
    "diffusers_unet_batch_scale_6": None,
    "diffusers_text_batch_scale_6": None,  # encoder_hidden_states rows: [negative; positive]
    "diffusers_unet_batch_scale_1": None,
    "diffusers_unet_batch_scale_0.5": None,  # do_classifier_free_guidance needs scale > 1
    "diffsynth_calls_per_step_cfg_7.5": None,
    "diffsynth_unet_batch_cfg_7.5": None,
    "diffsynth_calls_per_step_cfg_1": None,
    "diffsynth_calls_per_step_cfg_0.5": None,  # only exactly 1.0 switches CFG off
    "formula_reproduced": None,  # |guided - (uncond + 6 (cond - uncond))| < 1e-5
    "rescale_phi1_matches_cond_std": None,
    "original_formulation_w_for_s_5": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"original_formulation_w_for_s_5": Decimals(1)}


@dataclass
class Run:
    """UNet calls of one pipeline call: (latent batch, text batch), plus captured tensors."""

    steps: int
    calls: list[tuple[int, int]] = field(default_factory=list)
    unet_outputs: list = field(default_factory=list)
    guided: list = field(default_factory=list)

    @property
    def calls_per_step(self) -> int | float:
        """A count when every step makes the same number of calls (it does in both pipelines)."""
        calls, rest = divmod(len(self.calls), self.steps)
        return len(self.calls) / self.steps if rest else calls


def run_diffusers(device: str, steps: int, guidance_scale: float, guidance_rescale: float = 0.0) -> Run:
    from diffusers import StableDiffusionPipeline

    from infralens.tiny import generator, tiny_sd_components

    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False).to(device)
    pipe.set_progress_bar_config(disable=True)
    run = Run(steps)

    def on_unet(module, args, kwargs, output):
        run.calls.append((args[0].shape[0], kwargs["encoder_hidden_states"].shape[0]))
        run.unet_outputs.append(output[0].detach().clone())

    hook = pipe.unet.register_forward_hook(on_unet, with_kwargs=True)
    original_step = pipe.scheduler.step

    def recording_step(model_output, *args, **kwargs):
        run.guided.append(model_output.detach().clone())
        return original_step(model_output, *args, **kwargs)

    pipe.scheduler.step = recording_step
    pipe("a cat", num_inference_steps=steps, guidance_scale=guidance_scale, guidance_rescale=guidance_rescale, output_type="np", generator=generator(device, 0))
    hook.remove()
    return run


def run_diffsynth(device: str, steps: int, cfg_scale: float) -> Run:
    pipe = diffsynth_sd_pipeline(device)  # DiffSynth's own SD pipeline, tiny random weights
    run = Run(steps)
    hook = pipe.unet.register_forward_hook(
        lambda module, args, kwargs, output: run.calls.append((args[0].shape[0], kwargs["encoder_hidden_states"].shape[0])),
        with_kwargs=True,
    )
    pipe("a cat", cfg_scale=cfg_scale, height=64, width=64, seed=0, num_inference_steps=steps, progress_bar_cmd=lambda x: x)
    hook.remove()
    return run


def formula_error(run: Run, scale: float) -> float:
    """Re-derive each step's guided prediction from the captured UNet output."""
    worst = 0.0
    for output, guided in zip(run.unet_outputs, run.guided, strict=True):
        uncond, cond = output.chunk(2)
        worst = max(worst, float((guided - (uncond + scale * (cond - uncond))).abs().max()))
    return worst


def rescale_facts(run: Run) -> dict[str, float]:
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import rescale_noise_cfg

    uncond, cond = run.unet_outputs[0].chunk(2)
    guided = uncond + 6.0 * (cond - uncond)
    return {
        "std cond": float(cond.std()),
        "std guided (s=6)": float(guided.std()),
        "std rescaled phi=0.7": float(rescale_noise_cfg(guided, cond, 0.7).std()),
        "std rescaled phi=1.0": float(rescale_noise_cfg(guided, cond, 1.0).std()),
    }


def original_formulation_w(scale: float) -> float:
    """The w for which the paper's eps_c + w (eps_c - eps_u) equals diffusers' eps_u + s (eps_c - eps_u)."""
    import torch
    from diffusers.guiders import ClassifierFreeGuidance

    generator = torch.Generator().manual_seed(0)
    cond, uncond = torch.randn(2, 4, 8, 8, generator=generator), torch.randn(2, 4, 8, 8, generator=generator)
    target = ClassifierFreeGuidance(guidance_scale=scale).forward(cond, uncond).pred
    for w in [x / 2 for x in range(41)]:
        candidate = ClassifierFreeGuidance(guidance_scale=w, use_original_formulation=True).forward(cond, uncond).pred
        if float((candidate - target).abs().max()) < 1e-5:
            return w
    return float("nan")


def collect(device: str, steps: int) -> dict:
    return {
        "diffusers": {scale: run_diffusers(device, steps, scale) for scale in (6.0, 1.0, 0.5)},
        "diffsynth": {scale: run_diffsynth(device, steps, scale) for scale in (7.5, 1.0, 0.5)},
    }


def show(runs: dict) -> None:
    print("== 1. UNet calls per step (latent batch, text batch), prompt batch B = 1")
    for framework, by_scale in runs.items():
        for scale, run in by_scale.items():
            shapes = sorted(set(run.calls))
            print(f"  {framework:<9} scale {scale:<4}: {reveal(run.calls_per_step, '.0f')} call(s)/step, (latent, text) batches {reveal(shapes)}")
    cfg = runs["diffusers"][6.0]
    print("== 2. diffusers: guided = uncond + s * (cond - uncond), re-derived from the captured UNet output")
    print(f"  max error over {len(cfg.guided)} steps: {reveal(formula_error(cfg, 6.0), '.2e')}")
    print("== 3. Guidance rescale (Lin et al. 2023, 3.4) on the first step's prediction")
    for name, value in rescale_facts(cfg).items():
        print(f"  {name:<22} {reveal(value, '.4f') if name.endswith('phi=1.0') else format(value, '.4f')}")
    print("== 4. diffusers guider: default (Imagen) vs use_original_formulation (Ho & Salimans)")
    print(f"  s = 5.0 matches the original formulation with w = {reveal(original_formulation_w(5.0))}")


def compute_answers(runs: dict) -> dict:
    d, s = runs["diffusers"], runs["diffsynth"]
    rescale = rescale_facts(d[6.0])
    return {
        "diffusers_calls_per_step_scale_6": d[6.0].calls_per_step,
        "diffusers_unet_batch_scale_6": max(b for b, _ in d[6.0].calls),
        "diffusers_text_batch_scale_6": max(t for _, t in d[6.0].calls),
        "diffusers_unet_batch_scale_1": max(b for b, _ in d[1.0].calls),
        "diffusers_unet_batch_scale_0.5": max(b for b, _ in d[0.5].calls),
        "diffsynth_calls_per_step_cfg_7.5": s[7.5].calls_per_step,
        "diffsynth_unet_batch_cfg_7.5": max(b for b, _ in s[7.5].calls),
        "diffsynth_calls_per_step_cfg_1": s[1.0].calls_per_step,
        "diffsynth_calls_per_step_cfg_0.5": s[0.5].calls_per_step,
        "formula_reproduced": formula_error(d[6.0], 6.0) < 1e-5,
        "rescale_phi1_matches_cond_std": abs(rescale["std rescaled phi=1.0"] - rescale["std cond"]) < 1e-4,
        "original_formulation_w_for_s_5": original_formulation_w(5.0),
    }


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="number of inference steps per run").parse_args(argv)
    device = setup_torch(args.device)
    print(f"lab 05 classifier-free guidance on {device}, {args.steps} steps per run")
    runs = collect(device, args.steps)
    show(runs)
    return finish(args, ANSWERS, lambda: compute_answers(runs), tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
