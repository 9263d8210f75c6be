"""Branches the main scenarios never take, run offline on CPU with tiny inputs (issue 39, items 5/6).

- ``dodge-a-config-register``: DDPM, DDIM and a tiny AutoencoderKL built with some keyword arguments set, so
  ``register_to_config`` has both passed and defaulted names to record before each body runs.
- ``dodge-a-ddim-predictions``: DDIMScheduler.step loops with ``prediction_type="sample"`` and ``"v_prediction"``.
- ``dodge-a-flow-stochastic``: FlowMatchEulerDiscreteScheduler with ``stochastic_sampling=True`` and the exact velocity.
- ``dodge-a-flow-dynamic``: ``use_dynamic_shifting=True`` grids for a given ``mu``, exponential and linear shift.
- ``dodge-a-euler-v``: EulerDiscreteScheduler v-prediction steps with ``s_churn > 0`` (so σ̂ differs from σ).
- ``dodge-a-euler-unscaled``: Euler ``step`` without ``scale_model_input`` on a fresh scheduler, then on one
  whose flag a previous loop set.
- ``dodge-a-retrieve-custom``: ``retrieve_timesteps`` with a custom timestep list (Euler) and a custom σ list
  (flow matching); DDIM and both lists at once raise.
- ``dodge-a-sd-user-latents``: the tiny SD pipeline with caller-supplied ``latents``.
- ``dodge-a-cfg-off``: ``ClassifierFreeGuidance.forward`` with guidance off four ways.
- ``dodge-a-img2img-latent-image``: img2img given 4-channel latents as ``image``.
- ``dodge-a-logvar-clamp``: ``DiagonalGaussianDistribution`` on log-variances beyond both clamp bounds.
- ``dodge-a-lora-text-encoder``: a LoRA with ``text_encoder.`` keys loaded into, then unloaded from, the tiny SD.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.tiny import lora_donor_state_dict, tiny_sd_components
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers", "infralens.tiny")

SHAPE = (1, 4, 6, 10)


def _randn(*shape: int, seed: int, device: str) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(device)


def _max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max())


@scenario("dodge-a-config-register", "DDPM, DDIM and a tiny AutoencoderKL built with some keywords set: what register_to_config records")
def run_config_register(ctx: ScenarioContext) -> None:
    """Passed and defaulted keywords land in the config before the body runs; from_config re-applies the new class's defaults."""
    from diffusers import AutoencoderKL, DDIMScheduler, DDPMScheduler, EulerDiscreteScheduler

    ddpm: Any = DDPMScheduler(num_train_timesteps=800, beta_schedule="scaled_linear", beta_end=0.015, prediction_type="v_prediction")
    ctx.check(ddpm.config.num_train_timesteps == 800 and len(ddpm.betas) == 800, "DDPM config and schedule disagree on 800 steps")
    ctx.check(DDPMScheduler.from_config(ddpm.config).config == ddpm.config, "DDPM from_config did not rebuild the same config")
    ddim: Any = DDIMScheduler(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012, clip_sample=False, set_alpha_to_one=False)
    ctx.check(ddim.config.timestep_spacing == "leading", "DDIM's own default spacing should be leading")
    euler: Any = EulerDiscreteScheduler.from_config(ddim.config)
    ctx.fact("euler from ddim config: spacing", euler.config.timestep_spacing)
    ctx.check(euler.config.timestep_spacing == "linspace", "a defaulted timestep_spacing should take Euler's own default (linspace)")
    ctx.check(euler.config.get("set_alpha_to_one") is False, "DDIM-only keys should stay in the Euler config")
    positional: Any = EulerDiscreteScheduler(500, beta_schedule="scaled_linear")
    ctx.check("num_train_timesteps" in positional.config._use_default_values, "a positional argument should be listed as defaulted")
    ctx.check(DDIMScheduler.from_config(positional.config).config.num_train_timesteps == 1000, "from_config should drop the positional 500")
    vae: Any = AutoencoderKL(
        block_out_channels=(8, 16),
        norm_num_groups=4,
        sample_size=24,
        scaling_factor=0.13025,
        down_block_types=("DownEncoderBlock2D",) * 2,
        up_block_types=("UpDecoderBlock2D",) * 2,
    )
    ctx.check(vae.tile_sample_min_size == 24 and vae.config.scaling_factor == 0.13025, "the VAE body did not read the registered sample_size")


def _ddim_loop(ctx: ScenarioContext, prediction_type: str, seed: int) -> torch.Tensor:
    from diffusers.schedulers.scheduling_ddim import DDIMScheduler

    scheduler = DDIMScheduler(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012, clip_sample=False, prediction_type=prediction_type)
    scheduler.set_timesteps(4, device=ctx.device)
    sample = _randn(*SHAPE, seed=seed, device=ctx.device)
    for index, t in enumerate(scheduler.timesteps):
        output = _randn(*SHAPE, seed=seed + 1 + index, device=ctx.device)
        sample = scheduler.step(output, t, sample).prev_sample
    return sample


@scenario("dodge-a-ddim-predictions", "DDIMScheduler.step on random tensors with prediction_type sample, then v_prediction (4 steps, 6x10)")
def run_ddim_predictions(ctx: ScenarioContext) -> None:
    """The x0 and v branches of DDIM's step: no model, random model outputs."""
    for prediction_type, seed in (("sample", 20), ("v_prediction", 30)):
        out = _ddim_loop(ctx, prediction_type, seed)
        ctx.check(bool(torch.isfinite(out).all()) and out.shape == SHAPE, f"DDIM {prediction_type} loop gave {out.shape}")


@scenario("dodge-a-flow-stochastic", "FlowMatchEulerDiscreteScheduler(stochastic_sampling=True, shift=3) driven by the exact velocity (4 steps)")
def run_flow_stochastic(ctx: ScenarioContext) -> None:
    """Ancestral flow matching: x0 = x - sigma v, re-noised to the next sigma; the exact velocity still lands on x0."""
    from diffusers.schedulers.scheduling_flow_match_euler_discrete import FlowMatchEulerDiscreteScheduler

    scheduler = FlowMatchEulerDiscreteScheduler(shift=3.0, stochastic_sampling=True)
    scheduler.set_timesteps(4, device=ctx.device)
    x0 = _randn(*SHAPE, seed=40, device=ctx.device)
    eps = _randn(*SHAPE, seed=41, device=ctx.device)
    sample = scheduler.scale_noise(x0, scheduler.timesteps[:1], eps)
    generator = ctx.generator(42)
    for t in scheduler.timesteps:
        sigma = float(scheduler.sigmas[scheduler.step_index if scheduler.step_index is not None else 0])
        noise_now = (sample - (1 - sigma) * x0) / sigma
        sample = scheduler.step(noise_now - x0, t, sample, generator=generator).prev_sample
    error = _max_diff(sample, x0)
    ctx.fact("x0 recovery error", error)
    ctx.check(error < 1e-4, f"stochastic flow matching with the exact velocity missed x0 by {error}")


@scenario("dodge-a-flow-dynamic", "FlowMatchEulerDiscreteScheduler(use_dynamic_shifting=True): 4 steps, mu=log 2.5 (exponential), then mu=2 (linear)")
def run_flow_dynamic(ctx: ScenarioContext) -> None:
    """The shift comes from mu at set_timesteps time: e^mu for the exponential type, mu for the linear one."""
    from diffusers.schedulers.scheduling_flow_match_euler_discrete import FlowMatchEulerDiscreteScheduler

    for kind, mu in (("exponential", math.log(2.5)), ("linear", 2.0)):
        scheduler = FlowMatchEulerDiscreteScheduler(use_dynamic_shifting=True, time_shift_type=kind)
        scheduler.set_timesteps(4, device=ctx.device, mu=mu)
        ctx.fact(f"{kind} sigmas", [round(float(s), 4) for s in scheduler.sigmas])
        ctx.check(len(scheduler.sigmas) == 5 and float(scheduler.sigmas[-1]) == 0.0, f"{kind}: grid {scheduler.sigmas.tolist()}")


@scenario("dodge-a-euler-v", "EulerDiscreteScheduler v_prediction, s_churn 0.6 over 3 steps (sigma_hat > sigma), random tensors")
def run_euler_v(ctx: ScenarioContext) -> None:
    """v-prediction in sigma space with churn: the x0 estimate uses sigma, the derivative uses sigma_hat."""
    from diffusers.schedulers.scheduling_euler_discrete import EulerDiscreteScheduler

    scheduler = EulerDiscreteScheduler(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012, prediction_type="v_prediction")
    scheduler.set_timesteps(3, device=ctx.device)
    sample = _randn(*SHAPE, seed=50, device=ctx.device) * scheduler.init_noise_sigma
    generator = ctx.generator(51)
    for index, t in enumerate(scheduler.timesteps):
        scheduler.scale_model_input(sample, t)
        output = _randn(*SHAPE, seed=52 + index, device=ctx.device)
        sample = scheduler.step(output, t, sample, s_churn=0.6, generator=generator).prev_sample
    ctx.check(bool(torch.isfinite(sample).all()), "Euler v-prediction loop gave a non-finite sample")


class _Records(logging.Handler):
    """Keeps the messages logged on one logger."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@scenario("dodge-a-euler-unscaled", "EulerDiscreteScheduler.step without scale_model_input: fresh scheduler, then one a previous loop scaled")
def run_euler_unscaled(ctx: ScenarioContext) -> None:
    """The warning fires on a scheduler that never scaled; set_timesteps does not reset the flag."""
    from diffusers.schedulers import scheduling_euler_discrete
    from diffusers.schedulers.scheduling_euler_discrete import EulerDiscreteScheduler

    handler = _Records()
    logger = scheduling_euler_discrete.logger
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)  # the verifier may have turned diffusers' logging down to errors
    try:
        fresh = EulerDiscreteScheduler()
        fresh.set_timesteps(3, device=ctx.device)
        fresh.step(_randn(*SHAPE, seed=60, device=ctx.device), fresh.timesteps[0], _randn(*SHAPE, seed=61, device=ctx.device))
        warned_fresh = len(handler.messages)
        reused = EulerDiscreteScheduler()
        reused.set_timesteps(3, device=ctx.device)
        reused.scale_model_input(_randn(*SHAPE, seed=62, device=ctx.device), reused.timesteps[0])
        reused.set_timesteps(4, device=ctx.device)
        reused.step(_randn(*SHAPE, seed=63, device=ctx.device), reused.timesteps[0], _randn(*SHAPE, seed=64, device=ctx.device))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    ctx.fact("warnings", handler.messages)
    ctx.check(warned_fresh == 1 and len(handler.messages) == 1, f"expected one warning (fresh scheduler only), got {handler.messages}")


@scenario("dodge-a-retrieve-custom", "retrieve_timesteps with timesteps=[999, 615, 202, 41] (Euler) and sigmas=[1, 0.7, 0.35, 0.1] (flow matching, shift 3)")
def run_retrieve_custom(ctx: ScenarioContext) -> None:
    """Custom grids: N becomes the list's length; DDIM (no timesteps parameter) and both lists at once raise."""
    from diffusers import DDIMScheduler, EulerDiscreteScheduler, FlowMatchEulerDiscreteScheduler
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import retrieve_timesteps

    custom = [999, 615, 202, 41]
    timesteps, steps = retrieve_timesteps(EulerDiscreteScheduler(), device=ctx.device, timesteps=custom)
    ctx.check(timesteps.tolist() == [float(t) for t in custom] and steps == 4, f"custom timesteps gave {timesteps.tolist()}, N={steps}")
    sigmas = [1.0, 0.7, 0.35, 0.1]
    timesteps, steps = retrieve_timesteps(FlowMatchEulerDiscreteScheduler(shift=3.0), device=ctx.device, sigmas=sigmas)
    ctx.check(len(timesteps) == 4 and steps == 4, f"custom sigmas gave {timesteps.tolist()}, N={steps}")
    for scheduler, kwargs in ((DDIMScheduler(), {"timesteps": custom}), (EulerDiscreteScheduler(), {"timesteps": custom, "sigmas": sigmas})):
        try:
            retrieve_timesteps(scheduler, device=ctx.device, **kwargs)
        except ValueError:
            continue
        ctx.check(False, f"retrieve_timesteps({type(scheduler).__name__}, {sorted(kwargs)}) should raise ValueError")


def _sd_pipeline(ctx: ScenarioContext, cls=None):
    from diffusers import StableDiffusionPipeline

    pipe: Any = (cls or StableDiffusionPipeline)(**tiny_sd_components(seed=0), requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    return pipe.to(ctx.device)


@scenario(
    "dodge-a-sd-user-latents", "tiny StableDiffusionPipeline (DDIM, 32x48, 2 steps) with latents drawn by the caller from the seed the pipeline would use"
)
def run_sd_user_latents(ctx: ScenarioContext) -> None:
    """Latents passed in pin the starting noise: the caller's draw of the same seed gives the same image."""
    pipe = _sd_pipeline(ctx)
    call = dict(height=32, width=48, num_inference_steps=2, guidance_scale=6.0, output_type="np")
    drawn = pipe("a cat", generator=torch.Generator().manual_seed(7), **call).images
    latents = torch.randn(1, 4, 16, 24, generator=torch.Generator().manual_seed(7))
    given = pipe("a cat", generator=torch.Generator().manual_seed(7), latents=latents, **call).images
    error = float(abs(given - drawn).max())
    ctx.fact("own draw vs caller's latents", error)
    ctx.check(error == 0.0, f"the caller's copy of the pipeline's draw changed the image by {error}")


@scenario("dodge-a-cfg-off", "ClassifierFreeGuidance.forward with CFG off: scale 1, disabled, outside the start/stop window, original formulation at scale 0")
def run_cfg_off(ctx: ScenarioContext) -> None:
    """Every way _is_cfg_enabled() turns false; rescale on top changes nothing beyond rounding."""
    from diffusers.guiders import ClassifierFreeGuidance

    cond = _randn(2, 4, 6, 10, seed=70, device=ctx.device)
    uncond = _randn(2, 4, 6, 10, seed=71, device=ctx.device)
    windowed = ClassifierFreeGuidance(guidance_scale=5.0, start=0.2, stop=0.6)
    windowed.set_state(step=4, num_inference_steps=5, timestep=torch.tensor(100))
    guiders = {
        "scale 1": ClassifierFreeGuidance(guidance_scale=1.0),
        "disabled": ClassifierFreeGuidance(guidance_scale=5.0, enabled=False),
        "window": windowed,
        "original at 0": ClassifierFreeGuidance(guidance_scale=0.0, use_original_formulation=True),
        "scale 1, rescale 0.7": ClassifierFreeGuidance(guidance_scale=1.0, guidance_rescale=0.7),
    }
    for name, guider in guiders.items():
        error = _max_diff(guider.forward(cond, uncond).pred, cond)
        ctx.fact(f"{name}: pred - cond", error)
        ctx.check(error < 1e-6, f"guidance off ({name}) moved the prediction by {error}")
    inside = ClassifierFreeGuidance(guidance_scale=5.0, start=0.2, stop=0.6)
    inside.set_state(step=2, num_inference_steps=5, timestep=torch.tensor(500))
    ctx.check(_max_diff(inside.forward(cond, uncond).pred, cond) > 1e-3, "a step inside the window should be guided")


@scenario(
    "dodge-a-img2img-latent-image", "img2img (strength 0.5, 4 steps) given the latents of a previous output_type='latent' call as `image` (12x20 latents)"
)
def run_img2img_latent_image(ctx: ScenarioContext) -> None:
    """A 4-channel image is used as latents: no encode, no scaling, only the forward noise."""
    from diffusers import StableDiffusionImg2ImgPipeline

    pipe = _sd_pipeline(ctx, cls=StableDiffusionImg2ImgPipeline)
    pixels = torch.rand(1, 3, 24, 40, generator=torch.Generator().manual_seed(80)).to(ctx.device)
    latents = pipe("a cat", image=pixels, strength=0.5, num_inference_steps=4, guidance_scale=6.0, output_type="latent", generator=ctx.generator(81)).images
    ctx.check(tuple(latents.shape) == (1, 4, 12, 20), f"latent output {tuple(latents.shape)}")
    out = pipe("a cat", image=latents, strength=0.5, num_inference_steps=4, guidance_scale=6.0, output_type="latent", generator=ctx.generator(82)).images
    ctx.check(tuple(out.shape) == (1, 4, 12, 20), f"second pass {tuple(out.shape)}")
    pipe.scheduler.set_timesteps(4, device=ctx.device)
    t = pipe.scheduler.timesteps[2:3]
    noised = pipe.prepare_latents(latents, t, 1, 1, latents.dtype, ctx.device, generator=torch.Generator().manual_seed(83))
    noise = torch.randn(latents.shape, generator=torch.Generator().manual_seed(83)).to(ctx.device)
    error = _max_diff(noised, pipe.scheduler.add_noise(latents, noise, t))
    ctx.fact("prepare_latents vs add_noise of the unscaled latents", error)
    ctx.check(error < 1e-6, f"4-channel input was not only noised (encoded or scaled?): {error}")


@scenario("dodge-a-logvar-clamp", "DiagonalGaussianDistribution on 8 moment channels (1, 8, 6, 10) whose log-variances run from -45 to 30")
def run_logvar_clamp(ctx: ScenarioContext) -> None:
    """Log-variances beyond [-30, 20] are clipped to the bounds; those inside stay as they are."""
    from diffusers.models.autoencoders.vae import DiagonalGaussianDistribution

    mean = _randn(1, 4, 6, 10, seed=90, device=ctx.device)
    logvar = torch.linspace(-45.0, 30.0, 240).reshape(1, 4, 6, 10).to(ctx.device)
    posterior = DiagonalGaussianDistribution(torch.cat([mean, logvar], dim=1))
    ctx.fact("std range", [float(posterior.std.min()), float(posterior.std.max())])
    ctx.check(
        abs(float(posterior.std.min()) - math.exp(-15.0)) < 1e-12 and abs(float(posterior.std.max()) - math.exp(10.0)) < 1e-2,
        "std is not bounded by exp(-15) and exp(10)",
    )


@scenario("dodge-a-lora-text-encoder", "tiny SD with a LoRA on the UNet and on the text encoder's q/v projections, loaded then unloaded")
def run_lora_text_encoder(ctx: ScenarioContext) -> None:
    """unload_lora_weights strips the text encoder's adapter too: its output returns to the base one."""
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import StableDiffusionPipeline

    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    pipe = pipe.to(ctx.device)
    generator = torch.Generator().manual_seed(95)
    state = {}
    for name, module in pipe.text_encoder.named_modules():
        if name.endswith(("q_proj", "v_proj")):
            state[f"text_encoder.{name}.lora_A.weight"] = 0.1 * torch.randn(4, module.in_features, generator=generator)
            state[f"text_encoder.{name}.lora_B.weight"] = 0.1 * torch.randn(module.out_features, 4, generator=generator)
    state.update(lora_donor_state_dict(pipe.unet))
    ids = pipe.tokenizer(["a cat"], padding="max_length", max_length=pipe.tokenizer.model_max_length, return_tensors="pt").input_ids.to(ctx.device)

    def encode() -> torch.Tensor:
        with torch.no_grad():
            return pipe.text_encoder(ids)[0]

    base = encode()
    pipe.load_lora_weights(state, adapter_name="tiny")
    ctx.check(any(hasattr(m, "lora_A") for m in pipe.text_encoder.modules()), "the text-encoder LoRA was not injected")
    ctx.check(_max_diff(encode(), base) > 1e-4, "the text-encoder LoRA did not change the text embedding")
    pipe.unload_lora_weights()
    error = _max_diff(encode(), base)
    ctx.fact("text embedding after unload vs base", error)
    ctx.check(error < 1e-6, f"after unload_lora_weights the text encoder differs from base by {error}")
