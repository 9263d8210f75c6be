"""diffusers models on their own: VAE slicing/tiling, IP-Adapter attention, LoRA, DiTs, memory options."""

from __future__ import annotations

import copy

import torch

from infralens.scenarios import scenario
from infralens.tiny import lora_donor_state_dict, tiny_dit, tiny_pixart, tiny_sd3, tiny_sd_components, tiny_vae
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers", "peft")


def _randn(*shape: int, seed: int, device: str) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(device)


def _diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.float() - b.float()).abs().max())


@scenario("vae-tiling", "AutoencoderKL encode/decode, slicing and tiling")
def run_vae_tiling(ctx: ScenarioContext) -> None:
    """Encode/decode plainly, sliced (exact) and tiled (shapes only: random weights leave seams)."""
    vae = tiny_vae(seed=0, sample_size=32).to(ctx.device).eval()
    images = _randn(2, 3, 48, 80, seed=5, device=ctx.device).clamp(-1, 1)
    with torch.no_grad():
        plain_latents = vae.encode(images).latent_dist.mean
        plain_images = vae.decode(plain_latents).sample
        vae.enable_slicing()
        sliced_latents = vae.encode(images).latent_dist.mean
        sliced_images = vae.decode(plain_latents).sample
        vae.disable_slicing()
        vae.enable_tiling()
        tiled_latents = vae.encode(images).latent_dist.mean
        tiled_images = vae.decode(plain_latents).sample
        vae.disable_tiling()
    ctx.fact("latent shape", tuple(plain_latents.shape))
    ctx.fact("slicing difference", max(_diff(plain_latents, sliced_latents), _diff(plain_images, sliced_images)))
    ctx.fact("tiled decode difference (random weights)", _diff(plain_images, tiled_images))
    ctx.check(plain_latents.shape == (2, 4, 24, 40), f"latent shape {tuple(plain_latents.shape)}, expected (2, 4, 24, 40)")
    ctx.check(_diff(plain_latents, sliced_latents) < 1e-4 and _diff(plain_images, sliced_images) < 1e-4, "slicing changed the result")
    ctx.check(tiled_latents.shape == plain_latents.shape and tiled_images.shape == plain_images.shape, "tiling changed shapes")
    ctx.check(bool(torch.isfinite(tiled_images).all()), "tiled decode produced non-finite values")


@scenario("ip-adapter", "Attention with IPAdapterAttnProcessor2_0, scale 0 and 1")
def run_ip_adapter(ctx: ScenarioContext) -> None:
    """Decoupled cross-attention: image tokens get their own K/V; scale 0 equals plain attention."""
    from diffusers.models.attention_processor import Attention, AttnProcessor2_0, IPAdapterAttnProcessor2_0

    torch.manual_seed(6)
    attention = Attention(query_dim=32, cross_attention_dim=24, heads=2, dim_head=16).to(ctx.device)
    processor = IPAdapterAttnProcessor2_0(hidden_size=32, cross_attention_dim=24, num_tokens=(4,), scale=0.0).to(ctx.device)
    hidden = _randn(1, 12, 32, seed=7, device=ctx.device)
    text = _randn(1, 77, 24, seed=8, device=ctx.device)
    image_tokens = _randn(1, 4, 24, seed=9, device=ctx.device)
    # diffusers annotates set_processor's argument as AttnProcessor, but it takes every processor class.
    with torch.no_grad():
        attention.set_processor(AttnProcessor2_0())
        plain = attention(hidden, encoder_hidden_states=text)
        attention.set_processor(processor)
        off = attention(hidden, encoder_hidden_states=(text, [image_tokens]))
        processor.scale = [1.0]
        on = attention(hidden, encoder_hidden_states=(text, [image_tokens]))
    ctx.fact("scale 0 vs plain", _diff(off, plain))
    ctx.fact("scale 1 change", _diff(on, plain))
    ctx.check(_diff(off, plain) < 1e-5, f"IP-Adapter at scale 0 differs from plain attention by {_diff(off, plain)}")
    ctx.check(_diff(on, plain) > 1e-4, "IP-Adapter at scale 1 did not change the output")


@scenario("lora", "peft LoRA: load_lora_weights, scale, fuse, unfuse, unload")
def run_lora(ctx: ScenarioContext) -> None:
    """peft LoRA on the tiny SD UNet: load, scale through cross_attention_kwargs, fuse, unfuse, unload."""
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import StableDiffusionPipeline

    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    pipe = pipe.to(ctx.device)
    unet = pipe.unet
    x = _randn(1, 4, 24, 40, seed=10, device=ctx.device)
    text = _randn(1, 77, 32, seed=11, device=ctx.device)

    def run(**kwargs) -> torch.Tensor:
        with torch.no_grad():
            return unet(x, 10, encoder_hidden_states=text, **kwargs).sample

    base = run()
    pipe.load_lora_weights(lora_donor_state_dict(unet), adapter_name="tiny")
    full = run()
    half = run(cross_attention_kwargs={"scale": 0.5})
    zero = run(cross_attention_kwargs={"scale": 0.0})
    ctx.fact("adapter change", _diff(full, base))
    ctx.fact("scale 0.5 change", _diff(half, base))
    ctx.check(_diff(full, base) > 1e-4, "the loaded LoRA did not change the UNet output")
    ctx.check(_diff(zero, base) < 1e-5, f"LoRA at scale 0 differs from the base UNet by {_diff(zero, base)}")
    image = pipe(
        "a cat",
        height=32,
        width=48,
        num_inference_steps=2,
        guidance_scale=6.0,
        cross_attention_kwargs={"scale": 0.5},
        output_type="np",
        generator=ctx.generator(0),
    ).images
    ctx.check(image.shape == (1, 32, 48, 3), "pipeline with a LoRA scale did not produce an image")
    pipe.fuse_lora()
    fused = run()
    ctx.fact("fused vs adapter", _diff(fused, full))
    ctx.check(_diff(fused, full) < 1e-4, f"fused LoRA differs from the unfused adapter by {_diff(fused, full)}")
    pipe.unfuse_lora()
    ctx.check(_diff(run(), full) < 1e-4, "unfuse_lora did not restore the adapter output")
    pipe.fuse_lora(lora_scale=0.5)
    fused_half = run()
    ctx.fact("fused at 0.5 vs adapter scale 0.5", _diff(fused_half, half))
    ctx.check(_diff(fused_half, half) < 1e-4, f"fuse_lora(lora_scale=0.5) differs from scale 0.5 by {_diff(fused_half, half)}")
    pipe.unfuse_lora()
    pipe.unload_lora_weights()
    unloaded = run()
    ctx.fact("unloaded vs base", _diff(unloaded, base))
    ctx.check(_diff(unloaded, base) < 1e-4, f"after unload_lora_weights the UNet differs from base by {_diff(unloaded, base)}")


@scenario("dit-forward", "DiT, PixArt and SD3 transformer forwards")
def run_dit_forward(ctx: ScenarioContext) -> None:
    """Class-conditional DiT, text-conditional PixArt, MM-DiT SD3: patchify, adaLN, unpatchify."""
    device = ctx.device
    square = _randn(2, 4, 8, 8, seed=12, device=device)  # DiT's unpatchify takes a square side from the token count
    latents = _randn(2, 4, 6, 10, seed=22, device=device)  # PixArt and SD3 unpatchify with the input's height and width
    timestep = torch.tensor([1, 500], device=device)
    with torch.no_grad():
        dit = tiny_dit().to(device)
        out = dit(square, timestep=timestep, class_labels=torch.tensor([3, 7], device=device)).sample
        ctx.check(out.shape == (2, 8, 8, 8), f"DiT output {tuple(out.shape)}, expected (2, 8, 8, 8) (mean and variance)")
        pixart = tiny_pixart().to(device)
        out = pixart(
            latents,
            encoder_hidden_states=_randn(2, 5, 32, seed=13, device=device),
            timestep=timestep,
            added_cond_kwargs={"resolution": None, "aspect_ratio": None},
        ).sample
        ctx.check(out.shape == (2, 8, 6, 10), f"PixArt output {tuple(out.shape)}")
        sd3 = tiny_sd3().to(device)
        out = sd3(
            latents, encoder_hidden_states=_randn(2, 5, 32, seed=14, device=device), pooled_projections=_randn(2, 64, seed=15, device=device), timestep=timestep
        ).sample
        ctx.check(out.shape == (2, 4, 6, 10), f"SD3 output {tuple(out.shape)}")
    ctx.fact("outputs", "DiT (2, 8, 8, 8); PixArt (2, 8, 6, 10); SD3 (2, 4, 6, 10)")


def _tiny_flux(device: str):
    from diffusers.models.transformers.transformer_flux import FluxTransformer2DModel

    torch.manual_seed(16)
    return FluxTransformer2DModel(
        patch_size=1,
        in_channels=4,
        num_layers=1,
        num_single_layers=1,
        attention_head_dim=16,
        num_attention_heads=2,
        joint_attention_dim=40,
        pooled_projection_dim=24,
        axes_dims_rope=[2, 6, 8],
    ).to(device)


@scenario("memory-options", "attention slicing, processors, layerwise casting, model CPU offload, attention backend")
def run_memory_options(ctx: ScenarioContext) -> None:
    """Same numbers through sliced and classic attention, group offload and a native attention backend;
    close numbers with fp8 weight storage; a working pipeline with model CPU offload on an explicit device."""
    from diffusers.models.attention_processor import AttnProcessor, AttnProcessor2_0
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import StableDiffusionPipeline

    device = ctx.device
    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    pipe = pipe.to(device)
    unet = pipe.unet
    x = _randn(1, 4, 24, 40, seed=17, device=device)
    text = _randn(1, 77, 32, seed=18, device=device)

    def run(model) -> torch.Tensor:
        with torch.no_grad():
            return model(x, 10, encoder_hidden_states=text).sample

    base = run(unet)
    pipe.enable_attention_slicing(1)
    sliced = run(unet)
    pipe.disable_attention_slicing()
    unet.set_attn_processor(AttnProcessor())
    classic = run(unet)
    unet.set_attn_processor(AttnProcessor2_0())
    ctx.fact("sliced vs sdpa", _diff(sliced, base))
    ctx.fact("classic vs sdpa", _diff(classic, base))
    ctx.check(_diff(sliced, base) < 1e-4 and _diff(classic, base) < 1e-4, "sliced/classic attention changed the UNet output")

    casted = copy.deepcopy(unet)
    casted.enable_layerwise_casting(storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.float32)
    fp8 = run(casted)
    ctx.fact("fp8 storage change", _diff(fp8, base))
    ctx.check(bool(torch.isfinite(fp8).all()) and 0 < _diff(fp8, base) < 1.0, "fp8 weight storage broke the UNet output")

    grouped = copy.deepcopy(unet)
    grouped.enable_group_offload(onload_device=torch.device(device), offload_device=torch.device("cpu"), offload_type="block_level", num_blocks_per_group=1)
    ctx.check(_diff(run(grouped), base) < 1e-4, "group offload changed the UNet output")
    del casted, grouped

    flux = _tiny_flux(device)
    tokens = dict(
        hidden_states=_randn(1, 12, 4, seed=19, device=device),
        encoder_hidden_states=_randn(1, 8, 40, seed=20, device=device),
        pooled_projections=_randn(1, 24, seed=21, device=device),
        timestep=torch.tensor([1.0], device=device),
        img_ids=torch.zeros(12, 3, device=device),
        txt_ids=torch.zeros(8, 3, device=device),
    )
    with torch.no_grad():
        before = flux(**tokens).sample
        flux.set_attention_backend("native")
        after = flux(**tokens).sample
    ctx.fact("native backend change", _diff(after, before))
    ctx.check(_diff(after, before) < 1e-5, "the native attention backend changed the Flux output")

    pipe.enable_model_cpu_offload(device=device)
    image = pipe("a cat", height=32, width=48, num_inference_steps=2, guidance_scale=6.0, output_type="np", generator=ctx.generator(0)).images
    ctx.fact("offload hooks", len(getattr(pipe, "_all_hooks", [])))
    ctx.check(image.shape == (1, 32, 48, 3), "pipeline with model CPU offload did not produce an image")
