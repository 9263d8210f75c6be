"""Multistep solvers (DPM-Solver++, UniPC) against DDIM, Euler and Heun, with an exact ε-model of Gaussian data.

The denoiser and the exact ODE end point live in :mod:`infralens.tiny.gaussian_ode`; every error below is
max |final sample − exact x0|, so a better solver lands closer at the same number of model calls.
"""

from __future__ import annotations

import math

import torch

from infralens.scenarios import scenario
from infralens.tiny import SD_BETAS, GaussianODE, solver_error
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "diffusers", "scipy.stats")


@scenario("dpm-solver", "DPM-Solver++ 2M/3M vs DDIM on an exact Gaussian eps-model; Karras/exponential/beta sigmas")
def run_dpm_solver(ctx: ScenarioContext) -> None:
    """DPM-Solver++ 2M at 20 steps vs DDIM at 50; order 3 at 8 steps; Karras, exponential and beta sigmas."""
    from diffusers.schedulers.scheduling_ddim import DDIMScheduler
    from diffusers.schedulers.scheduling_dpmsolver_multistep import DPMSolverMultistepScheduler

    ode = GaussianODE.make(device=ctx.device)
    ddim_50, _ = solver_error(DDIMScheduler(**SD_BETAS, clip_sample=False), 50, ode)
    dpm_20, _ = solver_error(DPMSolverMultistepScheduler(**SD_BETAS), 20, ode)
    ctx.fact("DDIM 50 steps error", round(ddim_50, 4))
    ctx.fact("DPM-Solver++ 2M 20 steps error", round(dpm_20, 4))
    ctx.check(dpm_20 < ddim_50, f"DPM-Solver++ at 20 steps ({dpm_20}) is not closer than DDIM at 50 ({ddim_50})")

    third = DPMSolverMultistepScheduler(**SD_BETAS, solver_order=3)
    third_error, _ = solver_error(third, 8, ode)
    ctx.fact("DPM-Solver++ 3M 8 steps error", round(third_error, 4))
    ctx.check(third.lower_order_nums == 3 and torch.isfinite(torch.tensor(third_error)), "order 3 never reached in 8 steps")
    again, _ = solver_error(third, 8, ode)
    ctx.check(again == third_error, f"a second loop on the same scheduler gave {again}, the first {third_error}: set_timesteps must reset the history")

    for kind in ("karras", "exponential", "beta"):
        scheduler = DPMSolverMultistepScheduler(**SD_BETAS, **{f"use_{kind}_sigmas": True})
        if kind == "karras":
            error, _ = solver_error(scheduler, 10, ode)
            ctx.fact("karras 10 steps error", round(error, 4))
            ctx.check(error < 0.2, f"DPM-Solver++ on Karras sigmas missed the exact end point by {error} at 10 steps")
        else:
            scheduler.set_timesteps(10)
        sigmas = scheduler.sigmas
        ctx.fact(f"{kind} sigmas", [round(float(s), 3) for s in sigmas[:3]] + [round(float(sigmas[-2]), 4), float(sigmas[-1])])
        ctx.check(
            len(sigmas) == 11 and float(sigmas[-1]) == 0.0 and bool((sigmas[:-1] > sigmas[1:]).all()), f"{kind} sigmas are not a decreasing grid ending at 0"
        )

    # lambda_min_clipped=-2.0 cuts the noisiest timesteps (SD's lambda reaches about -2.7 at t=999): the grid starts lower.
    clipped = DPMSolverMultistepScheduler(**SD_BETAS, lambda_min_clipped=-2.0)
    clipped.set_timesteps(10)
    first = int(clipped.timesteps[0])
    ctx.fact("lambda_min_clipped=-2.0 first timestep", first)
    ctx.check(
        first < 999 and float(clipped.lambda_t[first]) >= -2.0,
        f"lambda_min_clipped=-2.0 should start the grid below t=999, at lambda >= -2.0; it starts at {first}",
    )


@scenario("unipc", "UniPC bh2 orders 2 and 3; bh1 with final_sigmas_type zero gives NaN")
def run_unipc(ctx: ScenarioContext) -> None:
    """UniPC predictor-corrector (bh2, orders 2 and 3); bh1 with a final σ of zero."""
    from diffusers.schedulers.scheduling_dpmsolver_multistep import DPMSolverMultistepScheduler
    from diffusers.schedulers.scheduling_unipc_multistep import UniPCMultistepScheduler

    ode = GaussianODE.make(device=ctx.device)
    unipc_10, _ = solver_error(UniPCMultistepScheduler(**SD_BETAS), 10, ode)
    dpm_10, _ = solver_error(DPMSolverMultistepScheduler(**SD_BETAS), 10, ode)
    ctx.fact("UniPC bh2 10 steps error", round(unipc_10, 4))
    ctx.fact("DPM-Solver++ 2M 10 steps error", round(dpm_10, 4))
    ctx.check(unipc_10 < dpm_10, f"UniPC ({unipc_10}) is not closer than DPM-Solver++ ({dpm_10}) at 10 steps")
    third_error, _ = solver_error(UniPCMultistepScheduler(**SD_BETAS, solver_order=3), 8, ode)
    ctx.fact("UniPC order 3 8 steps error", round(third_error, 4))
    bh1_zero, _ = solver_error(UniPCMultistepScheduler(**SD_BETAS, solver_type="bh1"), 6, ode)
    bh1_min, _ = solver_error(UniPCMultistepScheduler(**SD_BETAS, solver_type="bh1", final_sigmas_type="sigma_min"), 6, ode)
    ctx.fact("bh1 final zero error", bh1_zero)
    ctx.fact("bh1 final sigma_min error", round(bh1_min, 4))
    ctx.check(math.isnan(bh1_zero) and not math.isnan(bh1_min), "bh1 with final_sigmas_type='zero' no longer gives NaN")


@scenario("heun-vs-euler", "HeunDiscreteScheduler vs Euler at the same number of model calls")
def run_heun_vs_euler(ctx: ScenarioContext) -> None:
    """Heun (two model calls per step) against Euler at the same number of model calls."""
    from diffusers.schedulers.scheduling_euler_discrete import EulerDiscreteScheduler
    from diffusers.schedulers.scheduling_heun_discrete import HeunDiscreteScheduler

    ode = GaussianODE.make(device=ctx.device)
    heun_error, heun_calls = solver_error(HeunDiscreteScheduler(**SD_BETAS), 10, ode)
    euler_error, euler_calls = solver_error(EulerDiscreteScheduler(**SD_BETAS), heun_calls, ode)
    ctx.fact("Heun 10 steps", (round(heun_error, 4), heun_calls))
    ctx.fact("Euler same calls", (round(euler_error, 4), euler_calls))
    ctx.check(heun_calls == 19 and heun_error < euler_error, f"Heun {heun_error} ({heun_calls} calls) vs Euler {euler_error}")
    v_error, _ = solver_error(HeunDiscreteScheduler(**SD_BETAS, prediction_type="v_prediction"), 10, ode)
    ctx.fact("Heun v-prediction 10 steps", round(v_error, 4))
    ctx.check(abs(v_error - heun_error) < 1e-3, f"Heun with the exact v model ({v_error}) differs from the exact eps model ({heun_error})")
