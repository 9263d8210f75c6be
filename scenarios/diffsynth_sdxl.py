"""DiffSynth's SDXL pipeline on tiny models (the whole package, imported with stubs, in its own process).

The SDXL UNet is built from the layout of :func:`infralens.tiny.sdxl.tiny_sdxl_unet` and given the diffusers
UNet's weights, so the two forwards can be compared on one input.
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

PROCESS = "diffsynth-full"
IMPORTS = ("torch", "transformers", "peft", "diffusers", "diffusers.models.unets", "diffusers.models.unets.unet_2d_condition")


@scenario("diffsynth-sdxl", "DiffSynth StableDiffusionXLPipeline __call__ on tiny models; SDXL UNet vs diffusers")
def run_diffsynth_sdxl(ctx: ScenarioContext) -> None:
    """``__call__`` with CFG 5.0 (two UNet passes per step), 2 steps, 48x80 (6x10 latents); the UNet against diffusers'; guidance_rescale."""
    from infralens.tiny import ds_tiny_sdxl_pipeline, import_full_diffsynth, tiny_sdxl_unet

    import_full_diffsynth()
    device = ctx.device
    pipe = ds_tiny_sdxl_pipeline(device)
    seen: list[tuple[int, list[float]]] = []
    handle = pipe.unet.register_forward_pre_hook(lambda m, a, k: seen.append((a[0].shape[0], k["added_cond_kwargs"]["time_ids"].tolist())), with_kwargs=True)
    image = pipe("a cat", cfg_scale=5.0, height=48, width=80, seed=0, num_inference_steps=2, progress_bar_cmd=lambda steps: steps)
    handle.remove()
    ctx.check(image.size == (80, 48), f"image size {image.size} (PIL: width, height)")
    ctx.fact("unet calls (batch, time_ids)", seen)
    ctx.check(seen == [(1, [[48.0, 80.0, 0.0, 0.0, 48.0, 80.0]])] * 4, f"expected 4 batch-1 calls with time ids 48,80,0,0,48,80: {seen}")

    reference = tiny_sdxl_unet(seed=0).to(device)
    generator = torch.Generator().manual_seed(14)
    sample = torch.randn(2, 4, 6, 10, generator=generator).to(device)
    context = torch.randn(2, 5, 64, generator=generator).to(device)
    added = {
        "text_embeds": torch.randn(2, 32, generator=generator).to(device),
        "time_ids": torch.tensor([[64.0, 64.0, 0, 0, 64, 64], [32, 48, 4, 2, 64, 64]]).to(device),
    }
    with torch.no_grad():
        ours = pipe.unet(sample, torch.tensor([500.0, 20.0]).to(device), context, added_cond_kwargs=added, return_dict=False)[0]
        theirs = reference(sample, torch.tensor([500.0, 20.0]).to(device), context, added_cond_kwargs=added).sample
    ctx.fact("DiffSynth SDXL UNet vs diffusers, max |diff|", float((ours - theirs).abs().max()))
    ctx.check(torch.allclose(ours, theirs, atol=1e-4), "DiffSynth's SDXL UNet should match diffusers' with the same weights")

    try:
        pipe("a cat", cfg_scale=5.0, height=48, width=80, seed=0, num_inference_steps=1, guidance_rescale=0.5, progress_bar_cmd=lambda steps: steps)
        ctx.fact("guidance_rescale", "ran")
    except KeyError as error:
        ctx.fact("guidance_rescale 0.5", f"KeyError {error}: add_time_ids lives in inputs_shared, not inputs_posi")
