"""Variants for the DiffSynth FLUX DiT and SDXL labs (13, 14): inputs whose values tell the layout apart.

``g4-flux-grid`` packs a latent whose every value is its own flat index, on a grid that is not square (8 x 12) and
with 2 channels, so a token or feature in the wrong place, a height/width swap or a changed value shows; it also
builds image ids for a batch of 2. ``g4-sdxl-wide`` runs DiffSynth's SDXL pipeline at 32 x 48, so height and width
differ in the time ids.
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.tiny import load_diffsynth_module, tiny_ds_flux_dit
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "einops", "diffusers", "diffusers.pipelines.flux.pipeline_flux", "infralens.tiny")


@scenario("g4-flux-grid", "DiffSynth FluxDiT patchify/unpatchify of an index-valued 2x8x12 latent; image ids for batch 2 on 8x12", process="diffsynth-path")
def run_g4_flux_grid(ctx: ScenarioContext) -> None:
    """patchify of arange(192) viewed (1, 2, 8, 12), unpatchify back, prepare_image_ids on a (2, 1, 8, 12) latent."""
    from diffusers import FluxPipeline

    from infralens.tiny import tiny_flux_transformer

    module = load_diffsynth_module("diffsynth.models.flux_dit")
    device = ctx.device
    dit = tiny_ds_flux_dit(module, tiny_flux_transformer(seed=0)).to(device)
    latents = torch.arange(2 * 8 * 12, dtype=torch.float32, device=device).view(1, 2, 8, 12)
    with torch.no_grad():
        tokens = dit.patchify(latents)
        packed = FluxPipeline._pack_latents(latents, 1, 2, 8, 12)
        ctx.check(tokens.shape == (1, 24, 8) and torch.equal(tokens, packed), "patchify differs from _pack_latents on an 8x12 grid")
        back = dit.unpatchify(tokens, 8, 12)
        ctx.check(torch.equal(back, latents), "unpatchify(patchify(x)) is not x on an 8x12 grid")
        ids = dit.prepare_image_ids(torch.zeros(2, 1, 8, 12, device=device))
        reference = FluxPipeline._prepare_latent_image_ids(2, 4, 6, device, torch.float32)
        ctx.fact("image ids shape, batch 2, 8x12 latent", tuple(ids.shape))
        ctx.check(
            ids.shape == (2, 24, 3) and torch.equal(ids[0], reference) and torch.equal(ids[1], reference),
            "prepare_image_ids differs from diffusers on 8x12, batch 2",
        )


@scenario("g4-sdxl-wide", "DiffSynth StableDiffusionXLPipeline at 32 x 48 (height != width), CFG 5.0, 1 step", process="diffsynth-full")
def run_g4_sdxl_wide(ctx: ScenarioContext) -> None:
    """One step at height 32, width 48: the time ids must read (32, 48, 0, 0, 32, 48), height first."""
    from infralens.tiny import ds_tiny_sdxl_pipeline, import_full_diffsynth

    import_full_diffsynth()
    pipe = ds_tiny_sdxl_pipeline(ctx.device)
    seen: list[list[float]] = []
    handle = pipe.unet.register_forward_pre_hook(lambda m, a, k: seen.append(k["added_cond_kwargs"]["time_ids"].tolist()), with_kwargs=True)
    image = pipe("a cat", cfg_scale=5.0, height=32, width=48, seed=0, num_inference_steps=1, progress_bar_cmd=lambda steps: steps)
    handle.remove()
    ctx.fact("unet time ids", seen)
    ctx.check(image.size == (48, 32), f"image size {image.size}, expected (48, 32) as (width, height)")
    ctx.check(seen == [[[32.0, 48.0, 0.0, 0.0, 32.0, 48.0]]] * 2, f"expected 2 calls with time ids 32,48,0,0,32,48: {seen}")


@scenario("g4-fp8-index", "DiffSynth AutoWrappedLinear float8 on an index-valued (2, 3, 64) input", process="diffsynth-path")
def run_g4_fp8_index(ctx: ScenarioContext) -> None:
    """fp8_linear on arange(384) viewed (2, 3, 64): every flattened row shows which elements it holds."""
    layers = load_diffsynth_module("diffsynth.core.vram.layers")
    device = ctx.device
    dtype = torch.bfloat16 if device == "cuda" else torch.float32  # _scaled_mm on CUDA refuses a bias with float32 output
    torch.manual_seed(164)
    linear = torch.nn.Linear(64, 32).to(device, dtype)
    inputs = torch.arange(2 * 3 * 64, device=device).to(dtype).view(2, 3, 64)
    fp8 = torch.float8_e4m3fn
    wrapped = layers.AutoWrappedLinear(
        linear,
        offload_dtype=fp8,
        offload_device="cpu",
        onload_dtype=fp8,
        onload_device=device,
        preparing_dtype=fp8,
        preparing_device=device,
        computation_dtype=fp8,
        computation_device=device,
    )
    wrapped.offload()
    wrapped.onload()
    with torch.no_grad():
        output = wrapped(inputs)
    ctx.check(output.shape == (2, 3, 32) and bool(torch.isfinite(output).all()), f"fp8 output {tuple(output.shape)}")


@scenario("g4-ip-default-scale", "DiffSynth FluxImageUnit_IPAdapter.process with one picture and no ipadapter_scale", process="diffsynth-full")
def run_g4_ip_default_scale(ctx: ScenarioContext) -> None:
    """The unit without ``ipadapter_scale``: the positive K/V get the default strength 1.0."""
    from PIL import Image

    from infralens.tiny import StandInImageEncoder, import_full_diffsynth

    import_full_diffsynth()
    from diffsynth.models.flux_ipadapter import FluxIpAdapter
    from diffsynth.pipelines.flux_image import FluxImagePipeline, FluxImageUnit_IPAdapter

    device = ctx.device
    torch.manual_seed(190)
    pipe = FluxImagePipeline(device=device, torch_dtype=torch.float32)
    pipe.ipadapter = FluxIpAdapter(num_attention_heads=2, attention_head_dim=32, cross_attention_dim=32, num_tokens=4, num_blocks=2).to(device).eval()
    pipe.ipadapter_image_encoder = StandInImageEncoder().to(device).eval()
    pixels = torch.randint(0, 256, (20, 24, 3), generator=torch.Generator().manual_seed(191), dtype=torch.uint8)
    shared = {"ipadapter_images": [Image.fromarray(pixels.numpy(), mode="RGB")], "cfg_scale": 3.0}
    with torch.no_grad():
        _, posi, _ = FluxImageUnit_IPAdapter().process(pipe, shared, {}, {})
    scales = [entry["scale"] for entry in posi["ipadapter_kwargs_list"].values()]
    ctx.fact("positive scales without ipadapter_scale", scales)
    ctx.check(scales == [1.0, 1.0], f"expected the default scale 1.0 for both blocks, got {scales}")
