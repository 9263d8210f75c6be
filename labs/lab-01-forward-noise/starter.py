"""Lab 01 starter: the forward noise process on real schedulers (no model needed).

Run:  .venv/bin/python labs/lab-01-forward-noise/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Prints the noise schedule (alpha-bar_t and SNR at N evenly spaced t), noises a batch with
diffusers' DDPMScheduler.add_noise and checks it against the closed form, shows the v target
and the flow-matching interpolation, then compares DiffSynth's DDIMScheduler.add_noise
(loaded from source, path-based) with diffusers'. ``--check`` recomputes the answers to the
exercises in index.md and exits 1 if one of them is wrong.
"""

from __future__ import annotations

import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "abar_500_sd": None,  # SD scaled_linear alpha-bar at t=500, 3 decimals
    "first_t_below_half_sd": None,  # first t with alpha-bar_t < 0.5 (SD schedule)
    "first_t_below_half_linear": None,  # same for DDPM's linear schedule
    "snr_999_sd": None,  # alpha-bar / (1 - alpha-bar) at t=999, 4 decimals
    "diffsynth_level_of_second_sample": None,  # DiffSynth add_noise with timesteps [10, 999]
    "flow_x0_coefficient_at_sigma_0.25": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"abar_500_sd": Decimals(3), "snr_999_sd": Decimals(4), "flow_x0_coefficient_at_sigma_0.25": Decimals(2)}


def sd_ddpm():
    from diffusers import DDPMScheduler

    return DDPMScheduler(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012)


def show_schedules(steps: int) -> None:
    import torch
    from diffusers import DDPMScheduler

    print("== 1. The schedule: alpha-bar_t = prod(1 - beta_s), SNR = abar / (1 - abar)")
    grid = torch.linspace(0, 999, max(steps, 2)).round().long().tolist()
    for name, scheduler in (("linear (DDPM)", DDPMScheduler()), ("scaled_linear (SD)", sd_ddpm())):
        abar = scheduler.alphas_cumprod
        asked = (500, 999) if "SD" in name else ()  # the exercises ask for the SD schedule at these t
        cells = ", ".join(f"t={t}: {reveal(float(abar[t]), '.4f') if t in asked else format(float(abar[t]), '.4f')}" for t in grid)
        print(f"  {name:<19} beta {float(scheduler.betas[0]):.5f} -> {float(scheduler.betas[-1]):.4f} | abar {cells}")
        snr = abar / (1 - abar)
        print(f"  {'':<19} SNR at t=0 {float(snr[0]):.1f}, t=999 {reveal(float(snr[999]), '.6f') if 'SD' in name else format(float(snr[999]), '.6f')}")


def show_add_noise(device: str) -> None:
    import torch

    print("== 2. DDPMScheduler.add_noise: one jump from x0 to x_t, one noise level per sample")
    scheduler = sd_ddpm()
    generator = torch.Generator().manual_seed(0)
    x0 = torch.randn(3, 4, 32, 32, generator=generator).to(device)
    eps = torch.randn(3, 4, 32, 32, generator=generator).to(device)
    t = torch.tensor([10, 500, 999], device=device)
    xt = scheduler.add_noise(x0, eps, t)
    abar = scheduler.alphas_cumprod.to(device)[t].view(3, 1, 1, 1)
    closed_form = abar.sqrt() * x0 + (1 - abar).sqrt() * eps
    print(f"  x0 {tuple(x0.shape)}, timesteps {t.tolist()} -> x_t {tuple(xt.shape)}")
    print(f"  max |add_noise - closed form| = {float((xt - closed_form).abs().max()):.2e}")
    for i, step in enumerate(t.tolist()):
        corr = float(torch.corrcoef(torch.stack([xt[i].flatten(), x0[i].flatten()]))[0, 1])
        print(f"  sample {i}: t={step:<4} sqrt(abar)={float(abar[i].sqrt()):.3f}  std(x_t)={float(xt[i].std()):.3f}  corr(x_t, x0)={corr:.3f}")
    velocity = scheduler.get_velocity(x0, eps, t)
    v_form = abar.sqrt() * eps - (1 - abar).sqrt() * x0
    print(f"  get_velocity: v = sqrt(abar)*eps - sqrt(1-abar)*x0, max error {float((velocity - v_form).abs().max()):.2e}")


def show_flow_matching(device: str) -> None:
    import torch
    from diffusers import FlowMatchEulerDiscreteScheduler

    print("== 3. Flow matching (SD3/Flux): x_sigma = sigma*eps + (1-sigma)*x0, coefficients sum to 1")
    flow = FlowMatchEulerDiscreteScheduler()
    generator = torch.Generator().manual_seed(1)
    x0 = torch.randn(2, 4, 8, 8, generator=generator).to(device)
    eps = torch.randn(2, 4, 8, 8, generator=generator).to(device)
    timestep = flow.timesteps[[0, 750]].to(device)
    noised = flow.scale_noise(x0, timestep, eps)
    sigma = timestep / flow.config.num_train_timesteps
    for i in range(2):
        print(f"  timestep {float(timestep[i]):7.1f} -> sigma {float(sigma[i]):.3f}: std(x_sigma) = {float(noised[i].std()):.3f}")
    print("  velocity target eps - x0 is the same at every sigma (DiffSynth training_target)")


def diffsynth_levels(device: str):
    """DiffSynth's add_noise vs diffusers' on the same inputs, and its first-timestep rule."""
    import torch

    from infralens.tiny import load_diffsynth_module

    ddim = load_diffsynth_module("diffsynth.diffusion.ddim_scheduler").DDIMScheduler()
    generator = torch.Generator().manual_seed(2)
    x0 = torch.randn(2, 4, 8, 8, generator=generator).to(device)
    eps = torch.randn(2, 4, 8, 8, generator=generator).to(device)
    same_t = torch.tensor([500, 500])
    diff = float((ddim.add_noise(x0, eps, same_t) - sd_ddpm().add_noise(x0, eps, same_t.to(device))).abs().max())
    mixed = ddim.add_noise(x0, eps, torch.tensor([10, 999]))
    levels = sd_ddpm().alphas_cumprod.to(device).view(-1, 1, 1, 1)
    candidates = levels.sqrt() * x0[1] + (1 - levels).sqrt() * eps[1]  # sample 2 at every training level
    level_of_second = int((candidates - mixed[1]).abs().flatten(1).max(dim=1).values.argmin())
    return diff, level_of_second


def show_diffsynth(device: str) -> None:
    print("== 4. DiffSynth DDIMScheduler.add_noise (loaded from source, path-based)")
    diff, level = diffsynth_levels(device)
    print(f"  same t=500 for both samples: max |DiffSynth - diffusers| = {diff:.2e}")
    print(f"  timesteps [10, 999]: DiffSynth noises sample 2 at t={reveal(level)} (only timestep[0] is read)")


def compute_answers(device: str) -> dict[str, float]:
    from diffusers import DDPMScheduler

    sd = sd_ddpm().alphas_cumprod
    linear = DDPMScheduler().alphas_cumprod
    return {
        "abar_500_sd": round(float(sd[500]), 3),
        "first_t_below_half_sd": int((sd < 0.5).nonzero()[0]),
        "first_t_below_half_linear": int((linear < 0.5).nonzero()[0]),
        "snr_999_sd": round(float(sd[999] / (1 - sd[999])), 4),
        "diffsynth_level_of_second_sample": diffsynth_levels(device)[1],
        "flow_x0_coefficient_at_sigma_0.25": flow_x0_coefficient(0.25),
    }


def flow_x0_coefficient(sigma: float) -> float:
    """What scale_noise multiplies x0 by at *sigma*: noise x0 = 1 with eps = 0 and read the result."""
    import torch
    from diffusers import FlowMatchEulerDiscreteScheduler

    flow = FlowMatchEulerDiscreteScheduler()
    index = int((flow.sigmas - sigma).abs().argmin())
    out = flow.scale_noise(torch.ones(1, 1, 2, 2), flow.timesteps[[index]], torch.zeros(1, 1, 2, 2))
    return round(float(out.flatten()[0]), 6)


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=5, steps_help="how many evenly spaced t values to print").parse_args(argv)
    device = setup_torch(args.device)
    print(f"lab 01 forward noise on {device}")
    show_schedules(args.steps)
    show_add_noise(device)
    show_flow_matching(device)
    show_diffsynth(device)
    return finish(args, ANSWERS, lambda: compute_answers(device), tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
