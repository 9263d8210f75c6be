"""Lab 06 starter: the VAE around the denoising loop — latent shapes, scaling, slicing and tiling.

Run:  .venv/bin/python labs/lab-06-vae-latent-space/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds the tiny random-weight AutoencoderKL from ``infralens.tiny`` and shows: pixel vs latent
shapes and the scaling factor; that slicing gives the same numbers up to float rounding; how
tiling cuts the largest activation (and changes the output); what img2img's ``strength`` does to
the schedule; and DiffSynth's SD VAE (loaded from source) running the same weights. ``--check`` recomputes the
answers to the exercises in index.md and exits 1 if one of them is wrong.
"""

from __future__ import annotations

import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "latent_shape_64px": None,  # tiny VAE, one 64x64 RGB image
    "sd_factor": None,  # 2 ** (levels - 1) for SD's 4-level VAE
    "variance_ratio_sd_factor_on_sdxl": None,  # (default scaling_factor / 0.13025) squared, 2 decimals
    "tile_latent_min_size": None,
    "tile_stride_latent": None,  # int(16 * 0.75)
    "blend_extent_px": None,  # int(32 * 0.25)
    "tiles_for_64x64_latent": None,  # range(0, 64, 12) has 6 origins per axis
    "slicing_matches_to_1e-4": None,  # same numbers up to float rounding
    "img2img_first_timestep_strength_0.5": None,
    "img2img_steps_run_strength_0.5": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"variance_ratio_sd_factor_on_sdxl": Decimals(2)}
SDXL_SCALING_FACTOR = 0.13025  # SDXL's published VAE config


class LargestActivation:
    """Forward hooks on every leaf module; remembers the largest output tensor (bytes).

    On CPU, PyTorch has no allocator statistics, so the largest single activation is the
    honest proxy for peak memory; on CUDA the starter also prints max_memory_allocated.
    """

    def __init__(self, model):
        self.bytes, self.calls, self._handles = 0, 0, []
        for module in model.modules():
            if not list(module.children()):
                self._handles.append(module.register_forward_hook(self._hook))

    def _hook(self, module, inputs, output):
        if hasattr(output, "numel"):
            self.bytes = max(self.bytes, output.numel() * output.element_size())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for handle in self._handles:
            handle.remove()


def measure(fn, model, device):
    import torch

    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    with LargestActivation(model) as tracker, torch.no_grad():
        out = fn()
    peak = torch.cuda.max_memory_allocated() if device == "cuda" else None
    return out, tracker.bytes, peak


def fmt_bytes(n: int | None) -> str:
    return "n/a" if n is None else f"{n / 1024:.0f} KiB"


def show_shapes(vae, device) -> dict:
    import torch

    print("== 1. Pixels -> latent distribution -> latent (encode), and back (decode)")
    image = torch.rand(1, 3, 64, 64, generator=torch.Generator().manual_seed(0)).to(device) * 2 - 1
    with torch.no_grad():
        posterior = vae.encode(image).latent_dist
        z = posterior.sample(generator=torch.Generator(device).manual_seed(0))
        scaled = z * vae.config.scaling_factor
        decoded = vae.decode(scaled / vae.config.scaling_factor).sample
    factor = 2 ** (len(vae.config.block_out_channels) - 1)
    print(f"  image {tuple(image.shape)} in [-1, 1] -> moments {tuple(posterior.parameters.shape)} (mean + logvar)")
    print(f"  latent {reveal(tuple(z.shape))}: spatial factor 2**(levels-1) = {factor}, latent_channels = {vae.config.latent_channels}")
    print(f"  elements: pixels {image.numel()} vs latent {z.numel()} ({image.numel() / z.numel():.0f}x fewer to denoise)")
    ratio = (vae.config.scaling_factor / SDXL_SCALING_FACTOR) ** 2
    print(f"  scaling_factor {vae.config.scaling_factor}: latent std {float(z.std()):.3f} -> scaled {float(scaled.std()):.3f}")
    print(f"  an SDXL latent scaled by this default instead of {SDXL_SCALING_FACTOR}: variance off by {reveal(ratio, '.4f')}")
    print(f"  decode(scaled / scaling_factor) -> {tuple(decoded.shape)}")
    return {"latent_shape_64px": tuple(z.shape), "variance_ratio_sd_factor_on_sdxl": round(ratio, 4)}


def show_slicing(vae, device) -> float:
    import torch

    print("== 2. Slicing: one image of the batch at a time")
    batch = torch.rand(4, 3, 64, 64, generator=torch.Generator().manual_seed(1)).to(device) * 2 - 1
    full, full_bytes, full_peak = measure(lambda: vae.encode(batch).latent_dist.mean, vae, device)
    vae.enable_slicing()
    sliced, sliced_bytes, sliced_peak = measure(lambda: vae.encode(batch).latent_dist.mean, vae, device)
    vae.disable_slicing()
    diff = float((full - sliced).abs().max())
    print(f"  batch 4: largest activation {fmt_bytes(full_bytes)} -> {fmt_bytes(sliced_bytes)} with slicing; max |diff| = {reveal(diff, '.1e')}")
    if device == "cuda":
        print(f"  CUDA peak allocated {fmt_bytes(full_peak)} -> {fmt_bytes(sliced_peak)}")
    return diff


def show_tiling(vae, device) -> dict:
    import torch

    print("== 3. Tiling: decode a large latent as overlapping tiles")
    print(
        f"  tile_sample_min_size {vae.tile_sample_min_size} px, tile_latent_min_size {reveal(vae.tile_latent_min_size)}, "
        f"overlap factor {vae.tile_overlap_factor}"
    )
    z = torch.randn(1, 4, 64, 64, generator=torch.Generator().manual_seed(2)).to(device)
    plain, plain_bytes, plain_peak = measure(lambda: vae.decode(z).sample, vae, device)
    tile_calls = []
    handle = vae.decoder.register_forward_hook(lambda m, i, o: tile_calls.append(tuple(i[0].shape)))
    vae.enable_tiling()
    tiled, tiled_bytes, tiled_peak = measure(lambda: vae.decode(z).sample, vae, device)
    vae.disable_tiling()
    handle.remove()
    stride = int(vae.tile_latent_min_size * (1 - vae.tile_overlap_factor))
    blend = int(vae.tile_sample_min_size * vae.tile_overlap_factor)
    print(f"  latent {tuple(z.shape)} -> image {tuple(plain.shape)}; tiled image {tuple(tiled.shape)}")
    print(f"  tiles decoded: {reveal(len(tile_calls))} of shape {reveal(tile_calls[0])} (stride {reveal(stride)} latent px, blend {reveal(blend)} px)")
    print(f"  largest activation {fmt_bytes(plain_bytes)} untiled -> {fmt_bytes(tiled_bytes)} tiled")
    if device == "cuda":
        print(f"  CUDA peak allocated {fmt_bytes(plain_peak)} -> {fmt_bytes(tiled_peak)}")
    print(f"  max |tiled - untiled| = {float((plain - tiled).abs().max()):.3f} (random weights: seams are not hidden)")
    return {
        "tile_latent_min_size": vae.tile_latent_min_size,
        "tile_stride_latent": stride,
        "blend_extent_px": blend,
        "tiles_for_64x64_latent": len(tile_calls),
    }


def show_img2img(steps: int, device) -> dict:
    import torch
    from diffusers import StableDiffusionImg2ImgPipeline

    from infralens.tiny import tiny_sd_components

    print(f"== 4. img2img: encode, scale, add noise at the first timestep that strength leaves ({steps} steps)")
    pipe = StableDiffusionImg2ImgPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False).to(device)
    pipe.set_progress_bar_config(disable=True)
    seen = []
    handle = pipe.unet.register_forward_pre_hook(lambda m, args: seen.append(int(args[1])))
    image = torch.rand(1, 3, 64, 64, generator=torch.Generator().manual_seed(3))
    result = {}
    for strength in (1.0, 0.5):
        seen.clear()
        pipe(
            prompt_embeds=torch.randn(1, 77, 32),
            negative_prompt_embeds=torch.zeros(1, 77, 32),
            image=image,
            strength=strength,
            num_inference_steps=steps,
            output_type="np",
            generator=torch.Generator(device).manual_seed(0),
        )
        print(f"  strength {strength}: UNet timesteps {reveal(seen) if strength == 0.5 else seen}")
        if strength == 0.5:
            result = {"img2img_first_timestep_strength_0.5": seen[0], "img2img_steps_run_strength_0.5": len(seen)}
    handle.remove()
    return result


def show_diffsynth(vae) -> None:
    import torch

    from infralens.tiny import ds_tiny_vae, load_diffsynth_module

    print("== 5. DiffSynth's SD VAE (loaded from source): same weights, no slicing or tiling")
    module = load_diffsynth_module("diffsynth.models.stable_diffusion_vae")
    ds_vae = ds_tiny_vae(module)
    missing, unexpected = ds_vae.load_state_dict(vae.cpu().state_dict(), strict=False)
    image = torch.rand(1, 3, 64, 64, generator=torch.Generator().manual_seed(4)) * 2 - 1
    with torch.no_grad():
        diff = float((ds_vae.encode(image).mean - vae.encode(image).latent_dist.mean).abs().max())
    print(f"  diffusers weights -> DiffSynth: {len(missing)} missing, {len(unexpected)} unexpected keys; encode mean max |diff| = {diff:.1e}")
    print(f"  DiffSynth SD VAE has enable_tiling: {hasattr(ds_vae, 'enable_tiling')}; scaling_factor attribute: {reveal(ds_vae.scaling_factor)}")
    tiler = load_diffsynth_module("diffsynth.models.flux_vae").TileWorker()
    x = torch.randn(1, 4, 48, 48)
    out = tiler.tiled_forward(lambda t: t * 2.0, x, tile_size=16, tile_stride=8)
    print(f"  TileWorker on a pointwise function: max |tiled - direct| = {float((out - 2.0 * x).abs().max()):.1e}")


def compute_answers(vae, steps: int, device) -> dict:
    from infralens.tiny import tiny_vae

    sd_like = tiny_vae(block_out_channels=[8, 8, 8, 8], down_block_types=["DownEncoderBlock2D"] * 4, up_block_types=["UpDecoderBlock2D"] * 4, norm_num_groups=8)
    answers = {"sd_factor": 2 ** (len(sd_like.config.block_out_channels) - 1)}
    answers.update(show_shapes(vae, device))
    answers["slicing_matches_to_1e-4"] = show_slicing(vae, device) < 1e-4
    answers.update(show_tiling(vae, device))
    answers.update(show_img2img(steps, device))
    return answers


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=3, steps_help="img2img inference steps").parse_args(argv)
    from infralens.tiny import tiny_vae

    device = setup_torch(args.device)
    vae = tiny_vae(seed=0).to(device).eval()
    answers = compute_answers(vae, 4 if args.check or args.reveal else args.steps, device)
    show_diffsynth(vae)
    return finish(args, ANSWERS, answers, tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
