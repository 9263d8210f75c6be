"""Tiny SDXL pipelines: two text encoders, pooled embeddings, micro-conditioning time ids, the fp16 VAE upcast, the refiner.

The components come from :mod:`infralens.tiny.sdxl` (the VAE halves each side: 32x48 images give 16x24 latents). Size and crop ids are given
explicitly and differ from one another so the notes' expects can tell them apart.
"""

from __future__ import annotations

import warnings
from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = (
    "torch",
    "transformers",
    "diffusers",
    "diffusers.pipelines.stable_diffusion_xl.pipeline_stable_diffusion_xl",
    "diffusers.pipelines.stable_diffusion_xl.pipeline_stable_diffusion_xl_img2img",
)

PROMPT = "a cat"
SIZES = dict(original_size=(24, 20), crops_coords_top_left=(2, 3), target_size=(16, 28))


class _AddedCond:
    """Forward pre-hook keeping the ``added_cond_kwargs`` of every UNet call."""

    def __init__(self, module: torch.nn.Module) -> None:
        self.calls: list[dict[str, torch.Tensor]] = []
        self.handle = module.register_forward_pre_hook(self._hook, with_kwargs=True)

    def _hook(self, module, args, kwargs) -> None:
        self.calls.append(dict(kwargs["added_cond_kwargs"]))

    def remove(self) -> None:
        self.handle.remove()


@scenario("tiny-sdxl", "tiny StableDiffusionXLPipeline, CFG 5.0, 2 steps, fp32 then fp16 VAE (force_upcast)")
def run_tiny_sdxl(ctx: ScenarioContext) -> None:
    """StableDiffusionXLPipeline, CFG 5.0, 2 steps, float32; the UNet reacts to the time ids; a 1-step call with a float16 VAE (force_upcast)."""
    from diffusers import StableDiffusionXLPipeline

    from infralens.tiny import tiny_sdxl_components

    pipe: Any = StableDiffusionXLPipeline(**tiny_sdxl_components(seed=0))
    pipe.to(ctx.device)
    pipe.set_progress_bar_config(disable=True)
    ctx.check(pipe.watermark is None, "the invisible watermark should be off (the package is not installed)")
    recorder = _AddedCond(pipe.unet)
    call = dict(height=32, width=48, num_inference_steps=2, guidance_scale=5.0, output_type="np", **SIZES)
    image = pipe(PROMPT, generator=ctx.generator(0), **call).images
    ctx.check(image.shape == (1, 32, 48, 3), f"image shape {image.shape}")
    ctx.check(len(recorder.calls) == 2, f"expected 2 UNet calls, got {len(recorder.calls)}")
    ids = recorder.calls[0]["time_ids"]
    ctx.fact("time_ids", ids.tolist())
    ctx.check(ids.tolist() == [[24.0, 20.0, 2.0, 3.0, 16.0, 28.0]] * 2, f"time ids {ids.tolist()}")
    ctx.check(not recorder.calls[0]["text_embeds"][0].any(), "the negative pooled embedding should be zeros (force_zeros_for_empty_prompt)")
    recorder.remove()

    # The time ids and pooled vector must reach the output: change one id, the prediction changes.
    generator = torch.Generator().manual_seed(14)
    sample, context = torch.randn(1, 4, 6, 10, generator=generator).to(ctx.device), torch.randn(1, 16, 64, generator=generator).to(ctx.device)
    pooled = torch.randn(1, 32, generator=generator).to(ctx.device)
    with torch.no_grad():
        outs = [
            pipe.unet(sample, 500, context, added_cond_kwargs={"text_embeds": pooled, "time_ids": torch.tensor([ids], device=ctx.device)}).sample
            for ids in ([16.0, 28.0, 0.0, 0.0, 16.0, 28.0], [1024.0, 28.0, 0.0, 0.0, 16.0, 28.0])
        ]
    ctx.fact("UNet output change when orig height 16 -> 1024", float((outs[0] - outs[1]).abs().max()))
    ctx.check(not torch.allclose(outs[0], outs[1]), "the time ids did not reach the UNet's output")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.vae.to(torch.float16)
        half = pipe(PROMPT, generator=ctx.generator(0), **dict(call, num_inference_steps=1)).images
    ctx.check(pipe.vae.dtype == torch.float16, f"the VAE should be cast back to float16 after decoding, is {pipe.vae.dtype}")
    ctx.check(half.shape == image.shape and half.dtype == image.dtype, f"fp16-VAE run gave {half.shape} {half.dtype}")

    try:
        pipe._get_add_time_ids((16, 28), (0, 0), (16, 28), dtype=torch.float32, text_encoder_projection_dim=16)
        ctx.check(False, "a projection_dim that does not fit add_embedding should raise ValueError")
    except ValueError as error:
        ctx.fact("wrong projection dim", str(error)[:80])


@scenario("tiny-sdxl-refiner", "StableDiffusionXLImg2ImgPipeline refiner: text_encoder_2 only, aesthetic-score time ids")
def run_tiny_sdxl_refiner(ctx: ScenarioContext) -> None:
    """StableDiffusionXLImg2ImgPipeline as a refiner: no first text encoder, requires_aesthetics_score=True, strength 0.5."""
    from diffusers import StableDiffusionXLImg2ImgPipeline

    from infralens.tiny import tiny_sdxl_components

    pipe: Any = StableDiffusionXLImg2ImgPipeline(**tiny_sdxl_components(seed=0, refiner=True), requires_aesthetics_score=True)
    pipe.to(ctx.device)
    pipe.set_progress_bar_config(disable=True)
    recorder = _AddedCond(pipe.unet)
    init = torch.rand(1, 3, 28, 44, generator=torch.Generator().manual_seed(1)).to(ctx.device)
    image = pipe(
        PROMPT,
        image=init,
        strength=0.5,
        num_inference_steps=4,
        guidance_scale=5.0,
        aesthetic_score=7.0,
        negative_aesthetic_score=2.0,
        output_type="np",
        generator=ctx.generator(0),
        **SIZES,
    ).images
    recorder.remove()
    ctx.check(image.shape == (1, 28, 44, 3), f"image shape {image.shape}")
    ctx.check(len(recorder.calls) == 2, f"strength 0.5 of 4 steps should run 2 UNet calls, got {len(recorder.calls)}")
    ids = recorder.calls[0]["time_ids"].tolist()
    ctx.fact("refiner time_ids", ids)
    ctx.check(ids == [[24.0, 20.0, 0.0, 0.0, 2.0], [24.0, 20.0, 2.0, 3.0, 7.0]], f"refiner time ids {ids}")


@scenario("tiny-sdxl-batch", "tiny StableDiffusionXLPipeline, 2 prompts x 2 images, 16x24 (height != width), negative size ids, CFG 5.0, 1 step")
def run_tiny_sdxl_batch(ctx: ScenarioContext) -> None:
    """Two prompts, two images each, a non-square 16x24 image, and negative size ids that differ from the positive ones.

    ``target_size`` is left to its default ``(height, width)``; ``negative_original_size`` (4, 4) and
    ``negative_target_size`` (8, 6) make the negative time-id row differ from the positive one, so the order of the
    rows after the CFG concatenation and the per-image repeat can be seen.
    """
    from diffusers import StableDiffusionXLPipeline

    from infralens.tiny import tiny_sdxl_components

    pipe: Any = StableDiffusionXLPipeline(**tiny_sdxl_components(seed=0))
    pipe.to(ctx.device)
    pipe.set_progress_bar_config(disable=True)
    recorder = _AddedCond(pipe.unet)
    image = pipe(
        [PROMPT, "a dog"],
        num_images_per_prompt=2,
        height=16,
        width=24,
        num_inference_steps=1,
        guidance_scale=5.0,
        output_type="np",
        generator=ctx.generator(0),
        original_size=(24, 20),
        crops_coords_top_left=(2, 3),
        negative_original_size=(4, 4),
        negative_target_size=(8, 6),
    ).images
    recorder.remove()
    ctx.check(image.shape == (4, 16, 24, 3), f"image shape {image.shape}, expected (4, 16, 24, 3)")
    ctx.check(len(recorder.calls) >= 1, "the UNet was not called")
    ids = recorder.calls[0]["time_ids"].tolist()
    ctx.fact("time_ids", ids)
    negative, positive = [4.0, 4.0, 0.0, 0.0, 8.0, 6.0], [24.0, 20.0, 2.0, 3.0, 16.0, 24.0]
    ctx.check(ids == [negative, positive] * 4, f"time ids {ids}: expected the [negative, positive] pair repeated 4 times")
