"""DiffSynth's FlowMatchScheduler sigma templates (Qwen-Image, FLUX.2, Z-Image): its counterpart of sigma schedules.

DiffSynth has no multistep solver; its sampling choices live in the σ grid each template builds. Loaded
path-based like :mod:`infralens.verify.scenarios.diffsynth_path`.
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.tiny import load_diffsynth_module
from infralens.verify import ScenarioContext

PROCESS = "diffsynth-path"
IMPORTS = ("torch", "einops", "diffusers")


@scenario("diffsynth-sigma-templates", "Qwen-Image, FLUX.2, Z-Image sigma templates; compute_empirical_mu")
def run_diffsynth_sigma_templates(ctx: ScenarioContext) -> None:
    """Each template's grid, with and without a sequence-length-dependent shift; the exact velocity still lands on x0."""
    flow_match = load_diffsynth_module("diffsynth.diffusion.flow_match")
    scheduler_class = flow_match.FlowMatchScheduler
    sigmas, _ = scheduler_class.set_timesteps_qwen_image(8)
    ctx.fact("Qwen-Image sigmas", [round(float(s), 4) for s in sigmas])
    ctx.check(abs(float(sigmas[-1]) - 0.02) < 1e-6, f"Qwen-Image last sigma {float(sigmas[-1])} is not the shift terminal 0.02")
    dynamic, _ = scheduler_class.set_timesteps_qwen_image(8, dynamic_shift_len=4096)
    given, _ = scheduler_class.set_timesteps_qwen_image(8, exponential_shift_mu=1.2, denoising_strength=0.5)
    ctx.check(bool((dynamic[1:-1] < sigmas[1:-1]).all()), "4096 tokens (mu about 0.69) should shift less than the default mu=0.8")
    ctx.check(given.shape == (8,) and float(given[0]) < 1.0, "denoising_strength=0.5 should start below sigma 1")
    for seq_len, steps in ((1024, 10), (4096, 50), (8192, 28)):
        ctx.fact(f"empirical mu({seq_len}, {steps})", round(scheduler_class.compute_empirical_mu(seq_len, steps), 4))
    flux2, _ = scheduler_class.set_timesteps_flux2(8)
    flux2_dynamic, _ = scheduler_class.set_timesteps_flux2(8, dynamic_shift_len=4096)
    ctx.fact("FLUX.2 sigmas", [round(float(s), 4) for s in flux2])
    ctx.check(bool((flux2_dynamic[1:] > flux2[1:]).all()), "a 4096-token FLUX.2 grid is not shifted above the default mu=0.8 grid")
    z_image, _ = scheduler_class.set_timesteps_z_image(8)
    _, pinned = scheduler_class.set_timesteps_z_image(8, target_timesteps=torch.tensor([512.0]))
    ctx.check(512.0 in pinned.tolist() and pinned.shape == (8,), f"target timestep 512 not pinned: {pinned.tolist()}")
    ctx.fact("Z-Image sigmas", [round(float(s), 4) for s in z_image])

    x0 = torch.randn(1, 16, 4, 6, generator=torch.Generator().manual_seed(120)).to(ctx.device)
    eps = torch.randn(1, 16, 4, 6, generator=torch.Generator().manual_seed(121)).to(ctx.device)
    for template in ("Qwen-Image", "FLUX.2", "Z-Image"):
        scheduler = scheduler_class(template)
        scheduler.set_timesteps(4)
        sample = scheduler.add_noise(x0, eps, scheduler.timesteps[0])
        for timestep in scheduler.timesteps:
            sample = scheduler.step(eps - x0, timestep, sample)
        error = float((sample - x0).abs().max())
        ctx.fact(f"{template} x0 recovery error", error)
        ctx.check(error < 1e-4, f"{template}: the exact velocity missed x0 by {error}")
