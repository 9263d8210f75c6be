"""Tiny Stable Diffusion pipelines end to end: text-to-image, img2img, save/load, ControlNet."""

from __future__ import annotations

import tempfile

import torch

from infralens.scenarios import scenario
from infralens.tiny import tiny_controlnet, tiny_sd_components
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers")

PROMPT = "a cat"


def _pipeline(ctx: ScenarioContext, cls=None, scheduler=None, **extra):
    from diffusers import StableDiffusionPipeline

    cls = cls or StableDiffusionPipeline
    pipe = cls(**tiny_sd_components(seed=0, scheduler=scheduler), **extra, requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    return pipe.to(ctx.device)


class _CallRecorder:
    """Forward hook that records the batch size and timestep of every call of a module."""

    def __init__(self, module: torch.nn.Module) -> None:
        self.calls: list[tuple[int, float]] = []
        self.handle = module.register_forward_hook(self._hook)

    def _hook(self, module, args, output) -> None:
        sample, timestep = args[0], args[1]
        self.calls.append((sample.shape[0], float(torch.as_tensor(timestep).flatten()[0])))

    def remove(self) -> None:
        self.handle.remove()


@scenario("tiny-sd-ddim", "tiny StableDiffusionPipeline, DDIM, CFG 6.0, 3 steps; guidance_rescale 0.7")
def run_tiny_sd_ddim(ctx: ScenarioContext) -> None:
    """DDIM, CFG 6.0, 3 steps: one UNet call per step on a doubled batch; then guidance_rescale 0.7."""
    pipe = _pipeline(ctx)
    recorder = _CallRecorder(pipe.unet)
    image = pipe(PROMPT, height=32, width=48, num_inference_steps=3, guidance_scale=6.0, output_type="np", generator=ctx.generator(0)).images
    recorder.remove()
    ctx.fact("unet calls (batch, t)", recorder.calls)
    ctx.check(image.shape == (1, 32, 48, 3), f"image shape {image.shape}, expected (1, 32, 48, 3)")
    ctx.check([batch for batch, _ in recorder.calls] == [2, 2, 2], f"expected 3 UNet calls with batch 2, got {recorder.calls}")
    rescaled = pipe(
        PROMPT, height=32, width=48, num_inference_steps=3, guidance_scale=6.0, guidance_rescale=0.7, output_type="np", generator=ctx.generator(0)
    ).images
    ctx.check(rescaled.shape == image.shape, "guidance_rescale run returned another shape")
    ctx.fact("rescale changes image by", float(abs(rescaled - image).max()))


@scenario("tiny-sd-batch-wide", "tiny StableDiffusionPipeline, 2 prompts x 3 images, 32x48 (height != width), DDIM CFG 6.0, 1 step")
def run_tiny_sd_batch_wide(ctx: ScenarioContext) -> None:
    """Two prompts, three images each (6 differs from the 4 latent channels), a 32-high 48-wide image: latents (6, 4, 16, 24), one UNet call on batch 12."""
    pipe = _pipeline(ctx)
    recorder = _CallRecorder(pipe.unet)
    call = dict(num_images_per_prompt=3, height=32, width=48, num_inference_steps=1, guidance_scale=6.0, output_type="np")
    image = pipe([PROMPT, "a dog"], generator=ctx.generator(0), **call).images
    recorder.remove()
    ctx.fact("unet calls (batch, t)", recorder.calls)
    ctx.check(image.shape == (6, 32, 48, 3), f"image shape {image.shape}, expected (6, 32, 48, 3)")
    ctx.check(len(recorder.calls) >= 1 and recorder.calls[0][0] == 12, f"expected a UNet call on batch 12 (2 prompts x 3 images x CFG), got {recorder.calls}")


@scenario("tiny-sd-euler", "tiny StableDiffusionPipeline, Euler, guidance 1.0 (no CFG), 3 steps, the default 64x64 size")
def run_tiny_sd_euler(ctx: ScenarioContext) -> None:
    """Euler, guidance 1.0: CFG off, so the UNet sees batch 1; latents start at init_noise_sigma."""
    from diffusers import EulerDiscreteScheduler

    from infralens.tiny import tiny_ddim_scheduler

    scheduler = EulerDiscreteScheduler.from_config(tiny_ddim_scheduler().config)
    pipe = _pipeline(ctx, scheduler=scheduler)
    recorder = _CallRecorder(pipe.unet)
    # height and width left to the pipeline on purpose: the default (square) size, which sd-denoising-loop/default-size reads
    image = pipe(PROMPT, height=None, width=None, num_inference_steps=3, guidance_scale=1.0, output_type="np", generator=ctx.generator(0)).images
    recorder.remove()
    ctx.fact("unet calls (batch, t)", recorder.calls)
    ctx.fact("init_noise_sigma", float(pipe.scheduler.init_noise_sigma))
    ctx.check(image.shape == (1, 64, 64, 3), f"image shape {image.shape}")
    ctx.check([batch for batch, _ in recorder.calls] == [1, 1, 1], f"expected 3 UNet calls with batch 1, got {recorder.calls}")
    for spacing in ("leading", "trailing"):  # Euler's other spacings, as SD configs set them
        other = EulerDiscreteScheduler.from_config(scheduler.config, timestep_spacing=spacing, steps_offset=1)
        other.set_timesteps(3, device=ctx.device)
        ctx.fact(f"euler {spacing} timesteps", [round(float(t), 1) for t in other.timesteps])


@scenario("img2img", "StableDiffusionImg2ImgPipeline, strength 0.5")
def run_img2img(ctx: ScenarioContext) -> None:
    """img2img at strength 0.5 over a 4-step leading grid: encode, noise to t=251, two steps."""
    from diffusers import StableDiffusionImg2ImgPipeline

    pipe = _pipeline(ctx, cls=StableDiffusionImg2ImgPipeline)
    recorder = _CallRecorder(pipe.unet)
    init_image = torch.rand(1, 3, 32, 48, generator=torch.Generator().manual_seed(3)).to(ctx.device)
    image = pipe(PROMPT, image=init_image, strength=0.5, num_inference_steps=4, guidance_scale=6.0, output_type="np", generator=ctx.generator(0)).images
    recorder.remove()
    timesteps = [t for _, t in recorder.calls]
    ctx.fact("denoising timesteps", timesteps)
    ctx.check(image.shape == (1, 32, 48, 3), f"image shape {image.shape}")
    ctx.check(timesteps == [251.0, 1.0], f"strength 0.5 of 751,501,251,1 should run 251 and 1, ran {timesteps}")


@scenario("pipeline-save-load", "save_pretrained / from_pretrained(local_files_only) round trip")
def run_pipeline_save_load(ctx: ScenarioContext) -> None:
    """save_pretrained then from_pretrained(local_files_only=True): same components, same image."""
    import json
    import os

    from diffusers import StableDiffusionPipeline

    pipe = _pipeline(ctx)
    kwargs = dict(height=32, width=48, num_inference_steps=2, guidance_scale=6.0, output_type="np")
    before = pipe(PROMPT, generator=ctx.generator(0), **kwargs).images
    with tempfile.TemporaryDirectory(prefix="infralens-pipe-") as folder:
        pipe.save_pretrained(folder, safe_serialization=True)
        with open(os.path.join(folder, "model_index.json"), encoding="utf-8") as handle:
            index = json.load(handle)
        ctx.fact("model_index unet", index.get("unet"))
        loaded = StableDiffusionPipeline.from_pretrained(folder, local_files_only=True, safety_checker=None, requires_safety_checker=False)
    loaded.set_progress_bar_config(disable=True)
    loaded = loaded.to(ctx.device)
    after = loaded(PROMPT, generator=ctx.generator(0), **kwargs).images
    difference = float(abs(after - before).max())
    ctx.fact("round-trip image difference", difference)
    ctx.check(index.get("unet") == ["diffusers", "UNet2DConditionModel"], f"model_index.json unet entry is {index.get('unet')}")
    ctx.check(difference < 1e-5, f"reloaded pipeline differs by {difference}")


@scenario("controlnet", "ControlNetModel.from_unet + StableDiffusionControlNetPipeline")
def run_controlnet(ctx: ScenarioContext) -> None:
    """A fresh ControlNet adds exactly zero (zero convs); made non-zero it changes the UNet; the pipeline runs."""
    from diffusers.pipelines.controlnet.pipeline_controlnet import StableDiffusionControlNetPipeline

    components = tiny_sd_components(seed=0)
    unet = components["unet"]
    controlnet = tiny_controlnet(unet)
    unet.to(ctx.device)
    controlnet.to(ctx.device)
    generator = torch.Generator().manual_seed(4)
    latents = torch.randn(1, 4, 24, 40, generator=generator).to(ctx.device)
    text = torch.randn(1, 77, 32, generator=generator).to(ctx.device)
    hint = torch.rand(1, 3, 48, 80, generator=generator).to(ctx.device)
    with torch.no_grad():
        down, mid = controlnet(latents, 10, encoder_hidden_states=text, controlnet_cond=hint, return_dict=False)
        largest = max(float(residual.abs().max()) for residual in [*down, mid])
        ctx.fact("fresh residual max", largest)
        ctx.fact("residual count", len(down) + 1)
        ctx.check(largest == 0.0, f"a fresh ControlNet should output zero residuals, max was {largest}")
        # The UNet in ControlNet mode with the fresh (all-zero) residuals: the baseline.
        plain = unet(latents, 10, encoder_hidden_states=text, down_block_additional_residuals=down, mid_block_additional_residual=mid).sample
        for block in [*controlnet.controlnet_down_blocks, controlnet.controlnet_mid_block]:
            torch.nn.init.normal_(block.weight, std=0.02)
        down, mid = controlnet(latents, 10, encoder_hidden_states=text, controlnet_cond=hint, return_dict=False)
        guided = unet(latents, 10, encoder_hidden_states=text, down_block_additional_residuals=down, mid_block_additional_residual=mid).sample
    change = float((guided - plain).abs().max())
    ctx.fact("unet change with residuals", change)
    ctx.check(change > 0, "non-zero ControlNet residuals did not change the UNet output")

    pipe = StableDiffusionControlNetPipeline(**components, controlnet=controlnet, requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    pipe = pipe.to(ctx.device)
    image = pipe(PROMPT, image=hint, height=48, width=80, num_inference_steps=2, guidance_scale=6.0, output_type="np", generator=ctx.generator(0)).images
    ctx.check(image.shape == (1, 48, 80, 3), f"ControlNet pipeline image shape {image.shape}")
