"""Lab 02 starter: one reverse step, model output in, previous latent out.

Run:  .venv/bin/python labs/lab-02-denoising-step/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

1. Oracle steps: give DDIMScheduler.step the *true* epsilon / v / x0 and watch it recover x0,
   for each prediction_type; give the wrong one and watch it fail silently.
2. One real step with the tiny random-weight UNet (shapes, prev_timestep).
3. DiffSynth's DDIM step (weights w_x, w_eps) against diffusers', and the flow-matching Euler
   step with the exact velocity.
``--steps N`` is the inference grid size used for the real step (default 3).
``--check`` recomputes the answers to the exercises in index.md; exit 1 if one is wrong.
"""

from __future__ import annotations

import math
import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "last_prev_timestep_3_steps": None,  # tiny DDIM (leading, offset 1), 3 steps, last step t=1
    "final_alpha_cumprod_sd": None,  # set_alpha_to_one=False, SD schedule, 5 decimals
    "x0_error_true_eps_below_1e-4": None,
    "x0_error_eps_config_fed_v_above_0.1": None,  # prediction_type mismatch: silent, large error
    "linspace_4_steps_first_step_lands_at": None,  # diffusers DDIM, linspace, t=999 -> ?
    "diffsynth_weight_x_999_to_666": None,  # sqrt(abar_666 / abar_999), 3 decimals
    "flow_euler_true_velocity_error_below_1e-5": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"final_alpha_cumprod_sd": Decimals(5), "diffsynth_weight_x_999_to_666": Decimals(3)}

SD_SCHEDULE = dict(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012)


def pair(device: str, seed: int = 0, shape=(1, 4, 32, 32)):
    import torch

    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator).to(device), torch.randn(*shape, generator=generator).to(device)


def oracle_errors(device: str) -> dict[str, float]:
    """x0 error of DDIMScheduler.step fed the exact target for each prediction_type (and one mismatch)."""
    from diffusers import DDIMScheduler

    x0, eps = pair(device)
    errors = {}
    for prediction_type in ("epsilon", "v_prediction", "sample"):
        scheduler = DDIMScheduler(**SD_SCHEDULE, prediction_type=prediction_type, clip_sample=False)
        scheduler.set_timesteps(10)
        t = scheduler.timesteps[4]
        abar = scheduler.alphas_cumprod[t]
        xt = abar.sqrt() * x0 + (1 - abar).sqrt() * eps
        target = {"epsilon": eps, "v_prediction": abar.sqrt() * eps - (1 - abar).sqrt() * x0, "sample": x0}[prediction_type]
        out = scheduler.step(target, t, xt)
        errors[prediction_type] = float((out.pred_original_sample - x0).abs().max())
        if prediction_type == "v_prediction":
            wrong = DDIMScheduler(**SD_SCHEDULE, prediction_type="epsilon", clip_sample=False)
            wrong.set_timesteps(10)
            errors["epsilon config fed v"] = float((wrong.step(target, t, xt).pred_original_sample - x0).abs().max())
    return errors


def show_oracle(device: str) -> None:
    print("== 1. Oracle: DDIMScheduler.step given the exact model output for its prediction_type (t on a 10-step grid)")
    for name, error in oracle_errors(device).items():
        print(f"  {name:<22} max |x0_hat - x0| = {error:.2e}")


def real_step(device: str, steps: int):
    """One DDIM step per grid entry with the tiny UNet; returns (per-step records, scheduler)."""
    import torch

    from infralens.tiny import tiny_ddim_scheduler, tiny_unet

    unet = tiny_unet(seed=0).to(device).eval()
    scheduler = tiny_ddim_scheduler()
    scheduler.set_timesteps(steps, device=device)
    latents, _ = pair(device, seed=3)
    text = torch.randn(1, 77, 32, generator=torch.Generator().manual_seed(4)).to(device)
    records = []
    with torch.no_grad():
        for t in scheduler.timesteps:
            model_output = unet(latents, t, encoder_hidden_states=text).sample
            prev = int(t) - scheduler.config.num_train_timesteps // scheduler.num_inference_steps
            out = scheduler.step(model_output, t, latents)
            records.append((int(t), prev, tuple(model_output.shape), tuple(out.prev_sample.shape)))
            latents = out.prev_sample
    return records, scheduler


def show_real_step(device: str, steps: int) -> None:
    print(f"== 2. Tiny UNet + DDIM (leading, steps_offset=1), {steps} steps: the model never sees t_prev")
    records, scheduler = real_step(device, steps)
    for t, prev, out_shape, prev_shape in records:
        target = "final_alpha_cumprod" if prev < 0 else f"abar[{prev}]"
        shown = reveal(prev) if steps == 3 and prev < 0 else prev  # the exercise asks for the 3-step value
        print(f"  t={t:<4} unet out {out_shape} -> prev_timestep {shown:<5} ({target}) -> latents {prev_shape}")
    print(f"  final_alpha_cumprod = {reveal(float(scheduler.final_alpha_cumprod), '.5f')} (set_alpha_to_one={scheduler.config.set_alpha_to_one})")


def level_reached(device: str, spacing: str, steps: int) -> int:
    """Feed diffusers' DDIM the exact epsilon at its first timestep; which training level did x land on?"""
    from diffusers import DDIMScheduler

    x0, eps = pair(device, seed=5)
    scheduler = DDIMScheduler(**SD_SCHEDULE, timestep_spacing=spacing, clip_sample=False)
    scheduler.set_timesteps(steps)
    t = scheduler.timesteps[0]
    abar = scheduler.alphas_cumprod
    xt = abar[t].sqrt() * x0 + (1 - abar[t]).sqrt() * eps
    prev = scheduler.step(eps, t, xt).prev_sample
    levels = abar.to(device).view(-1, 1, 1, 1, 1)
    candidates = levels.sqrt() * x0 + (1 - levels).sqrt() * eps  # x at every training level, (1000, *shape)
    return int((candidates - prev).abs().flatten(1).max(dim=1).values.argmin())


def diffsynth_step(device: str):
    """DiffSynth DDIM 4-step grid: w_x for 999 -> 666, and its oracle step vs the analytic x_666."""
    import torch

    from infralens.tiny import load_diffsynth_module

    ddim = load_diffsynth_module("diffsynth.diffusion.ddim_scheduler").DDIMScheduler()
    ddim.set_timesteps(4)
    abar = ddim.alphas_cumprod
    weight_x = math.sqrt(abar[666] / abar[999])
    x0, eps = pair(device, seed=6)
    xt = ddim.add_noise(x0, eps, torch.tensor([999]))
    prev = ddim.step(eps, torch.tensor([999.0]), xt)
    analytic = math.sqrt(abar[666]) * x0 + math.sqrt(1 - abar[666]) * eps
    return ddim.timesteps.tolist(), weight_x, float((prev - analytic).abs().max())


def flow_error(device: str) -> float:
    """diffusers FlowMatchEuler: start at sigma=1 and step with the exact velocity eps - x0."""
    from diffusers import FlowMatchEulerDiscreteScheduler

    x0, eps = pair(device, seed=7)
    scheduler = FlowMatchEulerDiscreteScheduler(shift=3.0)
    scheduler.set_timesteps(4, device=device)
    sample = eps.clone()  # sigma = 1: pure noise
    for t in scheduler.timesteps:
        sample = scheduler.step(eps - x0, t, sample).prev_sample
    return float((sample - x0).abs().max())


def show_diffsynth_and_flow(device: str) -> None:
    print("== 3. DiffSynth DDIM (4 steps) and flow-matching Euler")
    grid, weight_x, error = diffsynth_step(device)
    print(f"  DiffSynth grid {grid}; 999 -> 666: w_x = sqrt(abar_666/abar_999) = {reveal(weight_x, '.3f')}; oracle step error {error:.2e}")
    print(f"  diffusers DDIM linspace 4 steps: the step at t=999 lands on level {reveal(level_reached(device, 'linspace', 4))} (grid says 666)")
    print(f"  diffusers DDIM trailing 4 steps: the step at t=999 lands on level {reveal(level_reached(device, 'trailing', 4))}")
    print(f"  FlowMatchEuler (shift 3, 4 steps) with the exact velocity: max |x - x0| = {flow_error(device):.2e}")


def compute_answers(device: str) -> dict:
    records, scheduler = real_step(device, 3)
    errors = oracle_errors(device)
    _, weight_x, _ = diffsynth_step(device)
    return {
        "last_prev_timestep_3_steps": records[-1][1],
        "final_alpha_cumprod_sd": round(float(scheduler.final_alpha_cumprod), 5),
        "x0_error_true_eps_below_1e-4": errors["epsilon"] < 1e-4,
        "x0_error_eps_config_fed_v_above_0.1": errors["epsilon config fed v"] > 0.1,
        "linspace_4_steps_first_step_lands_at": level_reached(device, "linspace", 4),
        "diffsynth_weight_x_999_to_666": round(weight_x, 3),
        "flow_euler_true_velocity_error_below_1e-5": flow_error(device) < 1e-5,
    }


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=4, steps_help="inference grid size for the real step").parse_args(argv)
    device = setup_torch(args.device)
    print(f"lab 02 denoising step on {device}")
    show_oracle(device)
    show_real_step(device, args.steps)
    show_diffsynth_and_flow(device)
    return finish(args, ANSWERS, lambda: compute_answers(device), tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
