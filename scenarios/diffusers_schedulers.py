"""diffusers schedulers and guiders on plain tensors: forward noise, spacing, flow matching, CFG."""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "diffusers")


def _max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max())


@scenario("forward-noise", "DDPMScheduler init/add_noise/get_velocity, FlowMatchEuler scale_noise")
def run_forward_noise(ctx: ScenarioContext) -> None:
    """DDPM q(x_t | x_0) in closed form, the v target, and the rectified-flow interpolation."""
    from diffusers.schedulers.scheduling_ddpm import DDPMScheduler
    from diffusers.schedulers.scheduling_flow_match_euler_discrete import FlowMatchEulerDiscreteScheduler

    device = ctx.device
    scheduler = DDPMScheduler()  # linear betas 1e-4 -> 0.02, 1000 steps
    DDPMScheduler(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012)
    generator = torch.Generator().manual_seed(0)
    x0 = torch.randn(3, 4, 6, 10, generator=generator).to(device)
    eps = torch.randn(3, 4, 6, 10, generator=generator).to(device)
    t = torch.tensor([10, 500, 999], device=device)
    noisy = scheduler.add_noise(x0, eps, t)
    abar = scheduler.alphas_cumprod.to(device)[t].view(3, 1, 1, 1)
    expected = abar.sqrt() * x0 + (1 - abar).sqrt() * eps
    error = _max_diff(noisy, expected)
    ctx.fact("add_noise max error", error)
    ctx.check(error < 1e-5, f"add_noise differs from sqrt(abar)*x0 + sqrt(1-abar)*eps by {error}")
    velocity = scheduler.get_velocity(x0, eps, t)
    v_error = _max_diff(velocity, abar.sqrt() * eps - (1 - abar).sqrt() * x0)
    ctx.check(v_error < 1e-5, f"get_velocity differs from sqrt(abar)*eps - sqrt(1-abar)*x0 by {v_error}")

    flow = FlowMatchEulerDiscreteScheduler()
    timestep = flow.timesteps[[0, 500]].to(device)
    x0_pair, eps_pair = x0[:2], eps[:2]
    noised = flow.scale_noise(x0_pair, timestep, eps_pair)
    sigma = (timestep / flow.config.num_train_timesteps).view(2, 1, 1, 1)
    flow_error = _max_diff(noised, sigma * eps_pair + (1 - sigma) * x0_pair)
    ctx.fact("flow scale_noise max error", flow_error)
    ctx.check(flow_error < 1e-5, f"scale_noise differs from sigma*eps + (1-sigma)*x0 by {flow_error}")


@scenario("scheduler-spacing", "DDIM set_timesteps linspace/leading/trailing; Euler scale_model_input")
def run_scheduler_spacing(ctx: ScenarioContext) -> None:
    """DDIM's three timestep spacings on a 4-step grid; Euler's input scaling."""
    from diffusers.schedulers.scheduling_ddim import DDIMScheduler
    from diffusers.schedulers.scheduling_euler_discrete import EulerDiscreteScheduler

    expected = {
        "linspace": [999, 666, 333, 0],
        "leading": [751, 501, 251, 1],
        "trailing": [999, 749, 499, 249],
    }
    for spacing, grid in expected.items():
        scheduler = DDIMScheduler(
            beta_schedule="scaled_linear",
            beta_start=0.00085,
            beta_end=0.012,
            timestep_spacing=spacing,
            steps_offset=1 if spacing == "leading" else 0,
        )
        scheduler.set_timesteps(4, device=ctx.device)
        got = scheduler.timesteps.tolist()
        ctx.fact(f"ddim {spacing}", got)
        ctx.check(got == grid, f"DDIM {spacing} spacing gave {got}, expected {grid}")

    euler = EulerDiscreteScheduler(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012, steps_offset=1)
    euler.set_timesteps(4, device=ctx.device)
    sample = torch.ones(1, 4, 6, 10, device=ctx.device)
    scaled = euler.scale_model_input(sample, euler.timesteps[0])
    sigma = float(euler.sigmas[0])
    factor = float(scaled.flatten()[0])
    ctx.fact("euler input factor", factor)
    ctx.check(abs(factor - 1 / (sigma**2 + 1) ** 0.5) < 1e-5, f"Euler scaled input by {factor}, expected 1/sqrt(sigma^2+1)")


@scenario("flow-match-euler", "FlowMatchEulerDiscreteScheduler loop with an exact-velocity denoiser")
def run_flow_match_euler(ctx: ScenarioContext) -> None:
    """Euler steps on the velocity ODE; the exact velocity (eps - x0) must land on x0."""
    from diffusers.schedulers.scheduling_flow_match_euler_discrete import FlowMatchEulerDiscreteScheduler

    scheduler = FlowMatchEulerDiscreteScheduler(shift=3.0)
    scheduler.set_timesteps(4, device=ctx.device)
    generator = torch.Generator().manual_seed(1)
    x0 = torch.randn(1, 4, 6, 10, generator=generator).to(ctx.device)
    eps = torch.randn(1, 4, 6, 10, generator=generator).to(ctx.device)
    sample = scheduler.scale_noise(x0, scheduler.timesteps[:1], eps)
    for t in scheduler.timesteps:
        sample = scheduler.step(eps - x0, t, sample).prev_sample
    error = _max_diff(sample, x0)
    ctx.fact("x0 recovery error", error)
    ctx.fact("timesteps", [round(float(t), 1) for t in scheduler.timesteps])
    ctx.check(error < 1e-4, f"flow-matching Euler with the exact velocity missed x0 by {error}")


@scenario("guider", "diffusers.guiders ClassifierFreeGuidance.forward")
def run_guider(ctx: ScenarioContext) -> None:
    """The modular guider: uncond + s * (cond - uncond), with and without rescale."""
    from diffusers.guiders import ClassifierFreeGuidance

    generator = torch.Generator().manual_seed(2)
    cond = torch.randn(2, 4, 6, 10, generator=generator).to(ctx.device)
    uncond = torch.randn(2, 4, 6, 10, generator=generator).to(ctx.device)
    guider = ClassifierFreeGuidance(guidance_scale=5.0)
    out = guider.forward(cond, uncond).pred
    error = _max_diff(out, uncond + 5.0 * (cond - uncond))
    ctx.fact("cfg formula error", error)
    ctx.check(error < 1e-5, f"ClassifierFreeGuidance differs from uncond + 5*(cond-uncond) by {error}")
    rescaled = ClassifierFreeGuidance(guidance_scale=5.0, guidance_rescale=0.7).forward(cond, uncond).pred
    ctx.check(rescaled.shape == cond.shape and bool(torch.isfinite(rescaled).all()), "rescaled guidance output is not finite")
