"""Lab 12 starter: multistep solvers — DPM-Solver++ and UniPC against DDIM, Euler and Heun; DiffSynth's sigma templates.

Run:  .venv/bin/python labs/lab-12-multistep-solvers/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

No network and no weights: the "model" is the exact ε-prediction for Gaussian data (every element
x0 ~ N(m, c²)), whose probability-flow ODE has a closed-form end point (infralens.tiny.gaussian_ode).
So each sampler's error against the exact answer can be measured, step count by step count. It prints
an error table, which order each multistep solver uses at each step, the σ grids of the Karras,
exponential and beta spacings, the UniPC bh1 NaN, Heun's model-call count, and DiffSynth's
FlowMatchScheduler templates. ``--check`` recomputes the answers to the exercises in index.md and
exits 1 if one is wrong.
"""

from __future__ import annotations

import math
import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "ddim_equals_euler_trailing": None,
    "dpm20_beats_ddim50": None,
    "dpm_last_timestep_20_steps": None,
    "dpm3_orders_8_steps": None,
    "dpm3_last_orders_20_steps": None,
    "unipc3_orders_8_steps": None,
    "heun_model_calls_10_steps": None,
    "karras_first_sigmas_10_steps": None,
    "bh1_zero_final_is_nan": None,
    "qwen_image_last_sigma": None,
    "flux2_empirical_mu_4096_tokens_8_steps": None,
    "cost_sd15_image_tflop_20_steps": None,
    "cost_sd15_decode_share_20_steps": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {
    "karras_first_sigmas_10_steps": Decimals(2),
    "qwen_image_last_sigma": Decimals(2),
    "flux2_empirical_mu_4096_tokens_8_steps": Decimals(2),
}


def error_table(device: str, steps: int) -> dict:
    from diffusers import DDIMScheduler, DPMSolverMultistepScheduler, EulerDiscreteScheduler, HeunDiscreteScheduler, UniPCMultistepScheduler

    from infralens.tiny.gaussian_ode import SD_BETAS, GaussianODE, solve, solver_error

    print("== 1. Error against the exact ODE end point (max |x - x0|), by number of steps")
    ode = GaussianODE.make(device=device)
    makers = {
        "DDIM (trailing)": lambda: DDIMScheduler(**SD_BETAS, clip_sample=False, timestep_spacing="trailing"),
        "Euler (trailing)": lambda: EulerDiscreteScheduler(**SD_BETAS, timestep_spacing="trailing"),
        "Heun": lambda: HeunDiscreteScheduler(**SD_BETAS),
        "DPM-Solver++ 2M": lambda: DPMSolverMultistepScheduler(**SD_BETAS),
        "DPM-Solver++ 2M Karras": lambda: DPMSolverMultistepScheduler(**SD_BETAS, use_karras_sigmas=True),
        "UniPC bh2": lambda: UniPCMultistepScheduler(**SD_BETAS),
    }
    counts = (5, 10, 20, 50)
    print(f"  {'solver':24s}" + "".join(f"{n:>10d}" for n in counts) + "   (model calls at 10 steps)")
    for name, make in makers.items():
        row = [solver_error(make(), n, ode) for n in counts]
        print(f"  {name:24s}" + "".join(f"{err:10.4f}" for err, _ in row) + f"   {reveal(row[1][1]) if name == 'Heun' else row[1][1]}")
    ddim_sample, _ = solve(makers["DDIM (trailing)"](), 10, ode)
    euler_sample, _ = solve(makers["Euler (trailing)"](), 10, ode)
    same = float((ddim_sample - euler_sample).abs().max()) < 1e-4
    print(f"  DDIM and Euler (same trailing grid, 10 steps) land on the same sample: {reveal(same)}")
    ddim_50, _ = solver_error(DDIMScheduler(**SD_BETAS, clip_sample=False), 50, ode)
    dpm_20, _ = solver_error(DPMSolverMultistepScheduler(**SD_BETAS), 20, ode)
    dpm_n, _ = solver_error(DPMSolverMultistepScheduler(**SD_BETAS), steps, ode)
    print(
        f"  DDIM 50 steps: {reveal(ddim_50, '.4f')}   DPM-Solver++ 2M 20 steps: {reveal(dpm_20, '.4f')}   DPM-Solver++ 2M {steps} steps (--steps): {dpm_n:.4f}"
    )
    heun = HeunDiscreteScheduler(**SD_BETAS)
    heun.set_timesteps(10)
    print(f"  Heun with 10 steps calls the model {reveal(len(heun.timesteps))} times")
    grid = DPMSolverMultistepScheduler(**SD_BETAS)
    grid.set_timesteps(20)
    print(f"  DPM-Solver++ timesteps for 20 steps: {grid.timesteps[:3].tolist()} ... {reveal(grid.timesteps[-2:].tolist())}")
    return {
        "ddim_equals_euler_trailing": same,
        "dpm20_beats_ddim50": dpm_20 < ddim_50,
        "dpm_last_timestep_20_steps": int(grid.timesteps[-1]),
        "heun_model_calls_10_steps": len(heun.timesteps),
    }


def dpm_orders(scheduler, steps: int, ode) -> list[int]:
    """Which update (1, 2 or 3) DPMSolverMultistepScheduler.step dispatches to, step by step."""
    from infralens.tiny.gaussian_ode import solve

    used: list[int] = []
    for order, name in ((1, "dpm_solver_first_order_update"), (2, "multistep_dpm_solver_second_order_update"), (3, "multistep_dpm_solver_third_order_update")):
        original = getattr(scheduler, name)

        def spy(*args, _original=original, _order=order, **kwargs):
            used.append(_order)
            return _original(*args, **kwargs)

        setattr(scheduler, name, spy)
    solve(scheduler, steps, ode)
    return used


def show_orders(device: str) -> dict:
    from diffusers import DPMSolverMultistepScheduler, UniPCMultistepScheduler

    from infralens.tiny.gaussian_ode import SD_BETAS, GaussianODE

    print("== 2. Which order each step uses (solver_order=3, lower_order_final=True)")
    ode = GaussianODE.make(device=device)
    eight = dpm_orders(DPMSolverMultistepScheduler(**SD_BETAS, solver_order=3), 8, ode)
    twenty = dpm_orders(DPMSolverMultistepScheduler(**SD_BETAS, solver_order=3), 20, ode)
    print(f"  DPM-Solver++ 3M,  8 steps: {reveal(eight)}")
    print(f"  DPM-Solver++ 3M, 20 steps: {twenty[:-2]} + {reveal(twenty[-2:])}")
    unipc = UniPCMultistepScheduler(**SD_BETAS, solver_order=3)
    unipc.set_timesteps(8)
    orders = []
    original = unipc.multistep_uni_p_bh_update

    def spy(*args, **kwargs):
        orders.append(kwargs["order"])
        return original(*args, **kwargs)

    unipc.multistep_uni_p_bh_update = spy
    from infralens.tiny.gaussian_ode import solve

    solve(unipc, 8, ode)
    print(f"  UniPC order 3,     8 steps: {reveal(orders)}")
    return {"dpm3_orders_8_steps": eight, "dpm3_last_orders_20_steps": twenty[-2:], "unipc3_orders_8_steps": orders}


def show_sigmas(device: str) -> dict:
    from diffusers import DPMSolverMultistepScheduler, UniPCMultistepScheduler

    from infralens.tiny.gaussian_ode import SD_BETAS, GaussianODE, solver_error

    print("== 3. Sigma spacings (10 steps) and the UniPC bh1 trap")
    ode = GaussianODE.make(device=device)
    first = {}
    for kind in ("karras", "exponential", "beta"):
        scheduler = DPMSolverMultistepScheduler(**SD_BETAS, **{f"use_{kind}_sigmas": True})
        error, _ = solver_error(scheduler, 10, ode)
        first[kind] = [round(float(s), 2) for s in scheduler.sigmas[:3]]
        sigmas = ", ".join(f"{float(s):.3f}" for s in scheduler.sigmas)
        print(f"  {kind:12s} error {error:.4f}  sigmas: {reveal(sigmas) if kind == 'karras' else sigmas}")
    zero, _ = solver_error(UniPCMultistepScheduler(**SD_BETAS, solver_type="bh1"), 6, ode)
    sigma_min, _ = solver_error(UniPCMultistepScheduler(**SD_BETAS, solver_type="bh1", final_sigmas_type="sigma_min"), 6, ode)
    print(f"  UniPC bh1, final_sigmas_type='zero': error {reveal(zero)}; 'sigma_min': error {sigma_min:.4f}")
    return {"karras_first_sigmas_10_steps": first["karras"], "bh1_zero_final_is_nan": math.isnan(zero)}


def show_diffsynth() -> dict:
    from infralens.tiny import load_diffsynth_module

    print("== 4. DiffSynth FlowMatchScheduler: no multistep solver, but per-model sigma templates (8 steps)")
    scheduler = load_diffsynth_module("diffsynth.diffusion.flow_match").FlowMatchScheduler
    grids = {
        "FLUX.1": scheduler.set_timesteps_flux(8)[0],
        "Qwen-Image": scheduler.set_timesteps_qwen_image(8)[0],
        "FLUX.2": scheduler.set_timesteps_flux2(8)[0],
        "FLUX.2 4096 tokens": scheduler.set_timesteps_flux2(8, dynamic_shift_len=4096)[0],
        "Z-Image": scheduler.set_timesteps_z_image(8)[0],
    }
    for name, sigmas in grids.items():
        row = ", ".join(f"{float(s):.3f}" for s in sigmas)
        print(f"  {name:20s} {reveal(row) if name == 'Qwen-Image' else row}")
    mu = scheduler.compute_empirical_mu(4096, 8)
    print(f"  compute_empirical_mu(4096 tokens, 8 steps) = {reveal(mu, '.3f')}")
    return {"qwen_image_last_sigma": round(float(grids["Qwen-Image"][-1]), 4), "flux2_empirical_mu_4096_tokens_8_steps": round(mu, 2)}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=20, steps_help="DPM-Solver++ steps to compare with 50 DDIM steps").parse_args(argv)
    device = setup_torch(args.device)
    answers = error_table(device, args.steps)
    answers.update(show_orders(device))
    answers.update(show_sigmas(device))
    answers.update(show_diffsynth())
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("12", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("12")})


if __name__ == "__main__":
    sys.exit(main())
