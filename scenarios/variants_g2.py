"""Scenario variants for issue 39 (group g2): data on which a wrong line of the Flux, IP-Adapter and attention
annotations can be told from the right one.

Each variant runs the same upstream code as its parent scenario and adds only what the parent's data hides:
a check on a value the parent never reads, or a model layout whose neighbouring layers differ.
"""

from __future__ import annotations

import tempfile
from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers", "diffusers.pipelines.flux.pipeline_flux", "infralens.tiny")


def _rope_reference(ids: torch.Tensor, axes_dim: list[int], theta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Multi-axis RoPE written out: per id column i, angles p * theta^(-2k/d_i), each repeated twice."""
    angles = torch.cat(
        [
            ids[:, i, None].double().cpu() * (1.0 / theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d)).repeat_interleave(2)[None, :]
            for i, d in enumerate(axes_dim)
        ],
        dim=1,
    )
    return torch.cos(angles), torch.sin(angles)


@scenario("flux-rope-read", "tiny FluxPipeline 16x16, 1 step; every RoPE table the transformer gets is checked against the formula")
def run_flux_rope_read(ctx: ScenarioContext) -> None:
    """``FluxPipeline`` at 16x16 (16 text + 64 image tokens), one step; a forward hook on ``pos_embed`` checks its
    (cos, sin) output against RoPE computed by hand, so a table that is missing or wrong fails the scenario (the
    plain pipeline would run on without rotary embeddings)."""
    from diffusers import FluxPipeline

    from infralens.tiny import tiny_flux_components

    pipe: Any = FluxPipeline(**tiny_flux_components(seed=0))
    pipe = pipe.to(ctx.device)
    pipe.set_progress_bar_config(disable=True)
    pos_embed = pipe.transformer.pos_embed
    seen: list[tuple[int, int]] = []

    def hook(module, args, output) -> None:
        ctx.check(isinstance(output, tuple) and len(output) == 2, f"pos_embed returned {type(output).__name__}, expected (cos, sin)")
        cos, sin = _rope_reference(args[0], list(module.axes_dim), module.theta)
        ctx.check(
            torch.allclose(output[0].double().cpu(), cos, atol=1e-5) and torch.allclose(output[1].double().cpu(), sin, atol=1e-5),
            "pos_embed's table differs from RoPE by hand",
        )
        seen.append(tuple(output[0].shape))

    handle = pos_embed.register_forward_hook(hook)
    image = pipe(
        "a red cat", height=16, width=16, num_inference_steps=1, max_sequence_length=16, guidance_scale=3.5, output_type="np", generator=ctx.generator(0)
    ).images
    handle.remove()
    ctx.fact("RoPE tables (tokens, head_dim)", seen)
    ctx.check(image.shape == (1, 16, 16, 3), f"image shape {image.shape}")
    ctx.check(len(seen) >= 1 and all(shape == (80, 16) for shape in seen), f"expected (80, 16) tables, got {seen}")


@scenario(
    "ip-adapter-load-alt-unet",
    "tiny SD whose cross-attention sits in down block 1 and up block 1: load_ip_adapter, neighbouring attention layers of different widths",
)
def run_ip_adapter_load_alt_unet(ctx: ScenarioContext) -> None:
    """``load_ip_adapter`` into a UNet with down blocks (plain, cross-attention) and up blocks (plain, cross-attention):
    walking ``attn_processors`` (down, up, mid) the width changes 64 → 32 → 64, so each layer's hidden size differs
    from the one before it (in the stock tiny UNet the up block and the mid block both run at 64)."""
    from diffusers.models.attention_processor import IPAdapterAttnProcessor2_0
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import StableDiffusionPipeline

    from infralens.tiny import sd_adapter_state_dict, tiny_sd_components, tiny_unet, write_adapter

    components = tiny_sd_components(seed=0)
    components["unet"] = tiny_unet(0, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"), up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"))
    pipe = StableDiffusionPipeline(**components, requires_safety_checker=False).to(ctx.device)
    with tempfile.TemporaryDirectory() as folder:
        weight_name = write_adapter(sd_adapter_state_dict(pipe.unet), folder)
        pipe.load_ip_adapter(folder, subfolder="", weight_name=weight_name, image_encoder_folder=None, local_files_only=True)
    widths = [(name.split(".")[0], p.hidden_size) for name, p in pipe.unet.attn_processors.items() if isinstance(p, IPAdapterAttnProcessor2_0)]
    ctx.fact("IP processors (block, hidden size)", widths)
    ctx.check([w for _, w in widths] == [64, 64, 32, 32, 32, 64], f"IP processor widths {widths}")
