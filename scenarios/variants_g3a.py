"""Data variants for the scheduler, pipeline and VAE notes of labs 01-08 (issue 39, group g3a).

Each one gives a case the main scenarios leave out, so a wrong version of an annotated line shows:
a second device for a stored schedule, x0 equal to the noise, a half-precision sample, as many inference
steps as training steps, a VAE whose posterior is nearly a point, a float64 init image, classes from a
pipeline folder and from a top-level module, and a VAE whose input and output channels differ.
"""

from __future__ import annotations

from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.tiny import tiny_sd_components, tiny_vae
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers")


def _max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.double() - b.double()).abs().max())


@scenario("ddpm-add-noise-two-devices", "DDPMScheduler.add_noise on the run's device, then (another scheduler) on the meta device")
def run_ddpm_add_noise_two_devices(ctx: ScenarioContext) -> None:
    """The stored schedule follows the samples' device; on meta no values exist, only the move."""
    from diffusers.schedulers.scheduling_ddpm import DDPMScheduler

    scheduler, on_meta = DDPMScheduler(), DDPMScheduler()
    generator = torch.Generator().manual_seed(0)
    x0 = torch.randn(3, 4, 8, 6, generator=generator).to(ctx.device)
    eps = torch.randn(3, 4, 8, 6, generator=generator).to(ctx.device)
    t = torch.tensor([10, 500, 999], device=ctx.device)
    noisy = scheduler.add_noise(x0, eps, t)
    meta = torch.empty(2, 4, 8, 6, device="meta")
    out = on_meta.add_noise(meta, torch.empty_like(meta), torch.tensor([1, 2], device="meta"))
    ctx.fact("stored schedule device after the meta call", str(on_meta.alphas_cumprod.device))
    ctx.check(out is not None and out.shape == meta.shape and out.is_meta, f"meta add_noise gave {out!r}")
    abar = scheduler.alphas_cumprod.to(ctx.device)[t].view(3, 1, 1, 1)
    error = _max_diff(noisy, abar.sqrt() * x0 + (1 - abar).sqrt() * eps)
    ctx.check(error < 1e-5, f"add_noise differs from the closed form by {error}")


@scenario("flow-match-scale-noise-x0-is-noise", "FlowMatchEuler scale_noise with noise equal to the sample, sigma 1, 0.5, 0.001")
def run_flow_match_scale_noise_x0_is_noise(ctx: ScenarioContext) -> None:
    """x_sigma = sigma*eps + (1-sigma)*x0 with eps = x0: the weights sum to 1, so x0 comes back at any sigma."""
    from diffusers.schedulers.scheduling_flow_match_euler_discrete import FlowMatchEulerDiscreteScheduler

    flow = FlowMatchEulerDiscreteScheduler()
    timestep = flow.timesteps[[0, 500, 999]].to(ctx.device)
    x0 = torch.randn(3, 4, 8, 6, generator=torch.Generator().manual_seed(4)).to(ctx.device)
    out = flow.scale_noise(x0, timestep, x0.clone())
    error = _max_diff(out, x0)
    ctx.fact("scale_noise(x0, t, x0) - x0", error)
    ctx.check(error < 1e-5, f"scale_noise with noise == sample moved it by {error}")


@scenario("flow-match-euler-bf16", "FlowMatchEuler loop in bfloat16 on 8x6 latents with the exact velocity")
def run_flow_match_euler_bf16(ctx: ScenarioContext) -> None:
    """The update runs in float32 on a bfloat16 sample; the result comes back as bfloat16."""
    from diffusers.schedulers.scheduling_flow_match_euler_discrete import FlowMatchEulerDiscreteScheduler

    scheduler = FlowMatchEulerDiscreteScheduler(shift=3.0)
    scheduler.set_timesteps(4, device=ctx.device)
    generator = torch.Generator().manual_seed(1)
    x0 = torch.randn(1, 4, 8, 6, generator=generator).to(ctx.device, torch.bfloat16)
    eps = torch.randn(1, 4, 8, 6, generator=generator).to(ctx.device, torch.bfloat16)
    sample = scheduler.scale_noise(x0, scheduler.timesteps[:1], eps)
    for t in scheduler.timesteps:
        sample = scheduler.step(eps - x0, t, sample).prev_sample
    error = _max_diff(sample, x0)
    ctx.fact("bf16 x0 recovery error", error)
    ctx.check(sample.dtype == torch.bfloat16, f"prev_sample came back as {sample.dtype}")
    ctx.check(error < 0.1, f"bf16 flow-matching Euler with the exact velocity missed x0 by {error}")


@scenario("trailing-every-step", "DDIM and Euler trailing spacing with 4 and with 1000 (= num_train_timesteps) steps")
def run_trailing_every_step(ctx: ScenarioContext) -> None:
    """With N = num_train_timesteps the trailing grid must hold every training step, 999 down to 0."""
    from diffusers.schedulers.scheduling_ddim import DDIMScheduler
    from diffusers.schedulers.scheduling_euler_discrete import EulerDiscreteScheduler

    for cls in (DDIMScheduler, EulerDiscreteScheduler):
        scheduler = cls(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012, timestep_spacing="trailing")
        for steps in (4, 1000):
            scheduler.set_timesteps(steps, device=ctx.device)
            got = [int(t) for t in scheduler.timesteps]
            ctx.fact(f"{cls.__name__} trailing {steps}: first, last, count", [got[0], got[-1], len(got)])
            expected = [999, 749, 499, 249] if steps == 4 else list(range(999, -1, -1))
            ctx.check(got == expected, f"{cls.__name__} trailing {steps} gave {got[:5]}... ({len(got)})")


@scenario("img2img-sharp-posterior", "img2img, strength 0.5, float64 64x48 image, VAE posterior std ~3e-7 (logvar bias -30)")
def run_img2img_sharp_posterior(ctx: ScenarioContext) -> None:
    """A VAE whose encoder posterior is nearly a point: the posterior draw is its mean, so the latents are exact."""
    from diffusers import StableDiffusionImg2ImgPipeline

    components = tiny_sd_components(seed=0)
    vae = components["vae"]
    channels = vae.config.latent_channels
    with torch.no_grad():
        vae.quant_conv.weight[channels:] = 0.0
        vae.quant_conv.bias[channels:] = -30.0
    pipe: Any = StableDiffusionImg2ImgPipeline(**components, requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    pipe = pipe.to(ctx.device)
    init_image = torch.rand(1, 3, 64, 48, generator=torch.Generator().manual_seed(3), dtype=torch.float64).to(ctx.device)
    image = pipe("a cat", image=init_image, strength=0.5, num_inference_steps=4, guidance_scale=6.0, output_type="np", generator=ctx.generator(0)).images
    ctx.check(image.shape == (1, 64, 48, 3), f"image shape {image.shape}")


@scenario("pipeline-class-tuple-kinds", "_fetch_class_library_tuple on the tiny SD components, a pipeline-folder class and a top-level-module class")
def run_pipeline_class_tuple_kinds(ctx: ScenarioContext) -> None:
    """A class from diffusers/pipelines/<name>/ records the folder; one from a two-part module records its module."""
    from diffusers.image_processor import VaeImageProcessor
    from diffusers.pipelines.pipeline_loading_utils import _fetch_class_library_tuple
    from diffusers.pipelines.stable_diffusion.clip_image_project_model import CLIPImageProjection

    components = tiny_sd_components(seed=0)
    objects = [components[name] for name in ("unet", "vae", "text_encoder", "tokenizer", "scheduler")]
    objects += [CLIPImageProjection(hidden_size=8), VaeImageProcessor()]
    pairs = [list(_fetch_class_library_tuple(obj)) for obj in objects]
    ctx.fact("pairs", pairs)
    ctx.check(pairs[-2] == ["stable_diffusion", "CLIPImageProjection"], f"pipeline-folder class recorded {pairs[-2]}")
    ctx.check(pairs[-1] == ["diffusers", "VaeImageProcessor"], f"top-level-module class recorded {pairs[-1]}")


@scenario("vae-in-out-differ", "AutoencoderKL with 3 input and 1 output channels (tiny, 2 levels); encode/decode a 16x12 image")
def run_vae_in_out_differ(ctx: ScenarioContext) -> None:
    """The encoder reads in_channels, the decoder writes out_channels: a VAE need not be symmetric."""
    vae = tiny_vae(seed=0, out_channels=1).to(ctx.device)
    x = torch.randn(1, 3, 16, 12, generator=torch.Generator().manual_seed(5)).to(ctx.device)
    with torch.no_grad():
        latents = vae.encode(x).latent_dist.mode()
        decoded = vae.decode(latents).sample
    ctx.check(tuple(latents.shape) == (1, 4, 8, 6), f"latents {tuple(latents.shape)}")
    ctx.check(tuple(decoded.shape) == (1, 1, 16, 12), f"decoded {tuple(decoded.shape)}")


@scenario("ddim-eta-half", "DDIMScheduler.step loop with eta 0.5, leading grid 750, 500, 250, 0 (a step lands on t_prev = 0)")
def run_ddim_eta_half(ctx: ScenarioContext) -> None:
    """eta > 0 makes sigma_t non-zero; steps_offset 0 makes the third step end exactly at t_prev = 0."""
    from diffusers.schedulers.scheduling_ddim import DDIMScheduler

    scheduler = DDIMScheduler(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012, clip_sample=False)
    scheduler.set_timesteps(4, device=ctx.device)
    ctx.check([int(t) for t in scheduler.timesteps] == [750, 500, 250, 0], f"grid {scheduler.timesteps.tolist()}")
    generator = torch.Generator().manual_seed(6)
    sample = torch.randn(1, 4, 8, 6, generator=generator).to(ctx.device)
    eps = torch.randn(1, 4, 8, 6, generator=generator).to(ctx.device)
    step_generator = ctx.generator(7)
    for t in scheduler.timesteps:
        sample = scheduler.step(eps, t, sample, eta=0.5, generator=step_generator).prev_sample
    ctx.check(bool(torch.isfinite(sample).all()), "DDIM with eta 0.5 gave a non-finite sample")
