"""Variants for labs 10 and 12 (issue 39, group g3b): cases the main scenarios cannot tell apart.

- ``g3b-controlnet-trained-hint``: a ControlNet whose zero convs (hint embedding included) have weights, as after
  training, fed an 8-bit PIL hint that is not square (40x56) to a batch of three images: the hint's values reach
  the residuals, the batch repeat and the CFG doubling are visible, and no two dimensions share a size.
- ``g3b-dpm-solver-fp16``: DPM-Solver++ stepped on a float16 sample, so the float32 upcast inside ``step`` is a real
  widening rather than a no-op.
"""

from __future__ import annotations

import numpy as np
import torch

from infralens.scenarios import scenario
from infralens.tiny import SD_BETAS, tiny_controlnet, tiny_sd_components
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers", "PIL")


@scenario("g3b-controlnet-trained-hint", "ControlNet pipeline, non-zero zero convs, 40x56 PIL hint, 3 images per prompt, CFG 6.0")
def run_controlnet_trained_hint(ctx: ScenarioContext) -> None:
    """A 'trained' ControlNet (zero convs given weights) on an 8-bit 40x56 hint, one prompt, three images."""
    from diffusers.pipelines.controlnet.pipeline_controlnet import StableDiffusionControlNetPipeline
    from PIL import Image

    components = tiny_sd_components(seed=0)
    controlnet = tiny_controlnet(components["unet"])
    torch.manual_seed(3)
    with torch.no_grad():
        for conv in [*controlnet.controlnet_down_blocks, controlnet.controlnet_mid_block, controlnet.controlnet_cond_embedding.conv_out]:
            torch.nn.init.normal_(conv.weight, std=0.02)
    pixels = np.random.RandomState(7).randint(0, 256, size=(40, 56, 3), dtype=np.uint8)
    hint = Image.fromarray(pixels)
    pipe = StableDiffusionControlNetPipeline(**components, controlnet=controlnet, requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    pipe = pipe.to(ctx.device)
    images = pipe("a cat", image=hint, num_images_per_prompt=3, num_inference_steps=2, guidance_scale=6.0, output_type="np", generator=ctx.generator(0)).images
    ctx.fact("image shape", tuple(images.shape))
    ctx.check(images.shape == (3, 40, 56, 3), f"ControlNet pipeline image shape {images.shape}, expected (3, 40, 56, 3)")
    ctx.check(bool(np.isfinite(images).all()), "the ControlNet pipeline produced non-finite pixels")


@scenario("g3b-dpm-solver-fp16", "DPMSolverMultistepScheduler stepped on a float16 sample and float16 model outputs, 6 steps")
def run_dpm_solver_fp16(ctx: ScenarioContext) -> None:
    """Six DPM-Solver++ steps on float16 tensors: the update runs in float32 and the result comes back float16."""
    from diffusers.schedulers.scheduling_dpmsolver_multistep import DPMSolverMultistepScheduler

    scheduler = DPMSolverMultistepScheduler(**SD_BETAS)
    scheduler.set_timesteps(6)
    generator = torch.Generator().manual_seed(11)
    sample = (torch.randn(1, 4, 6, 5, generator=generator) * scheduler.init_noise_sigma).to(ctx.device, torch.float16)
    for t in scheduler.timesteps:
        noise_pred = (0.5 * sample).to(torch.float16)  # a stand-in ε-model that answers in float16
        sample = scheduler.step(noise_pred, t, sample).prev_sample
    ctx.fact("final dtype", str(sample.dtype))
    ctx.check(sample.dtype == torch.float16, f"DPM-Solver++ returned {sample.dtype} for a float16 sample")
    ctx.check(bool(torch.isfinite(sample).all()), "DPM-Solver++ in float16 produced non-finite values")
