"""DiffSynth's FLUX DiT (``diffsynth.models.flux_dit``, loaded by path) against diffusers' Flux, same weights.

The DiffSynth blocks get the tiny diffusers transformer's weights (q, k, v fused into one matrix), so each
piece can be compared with its diffusers counterpart: packing, image ids, RoPE, a double- and a single-stream block.
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.tiny import load_diffsynth_module, tiny_ds_flux_dit
from infralens.verify import ScenarioContext

PROCESS = "diffsynth-path"
IMPORTS = ("torch", "einops", "diffusers", "diffusers.pipelines.flux.pipeline_flux", "infralens.tiny")


def _diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.float() - b.float()).abs().max())


@scenario("diffsynth-flux-dit", "DiffSynth flux_dit with diffusers Flux weights: patchify, ids, RoPE, blocks match")
def run_diffsynth_flux_dit(ctx: ScenarioContext) -> None:
    """patchify / prepare_image_ids / RoPE / one double- and one single-stream block, DiffSynth vs diffusers."""
    from diffusers import FluxPipeline

    from infralens.tiny import tiny_flux_transformer

    module = load_diffsynth_module("diffsynth.models.flux_dit")
    device = ctx.device
    transformer = tiny_flux_transformer(seed=0).to(device)
    dit = tiny_ds_flux_dit(module, transformer).to(device)
    generator = torch.Generator().manual_seed(130)
    latents = torch.randn(1, 1, 12, 20, generator=generator).to(device)
    text = torch.randn(1, 12, 32, generator=generator).to(device)
    image = torch.randn(1, 60, 32, generator=generator).to(device)
    temb = torch.randn(1, 32, generator=generator).to(device)
    with torch.no_grad():
        tokens = dit.patchify(latents)
        packed = FluxPipeline._pack_latents(latents, 1, 1, 12, 20)
        ctx.check(tokens.shape == (1, 60, 4) and _diff(tokens, packed) == 0.0, "DiffSynth patchify differs from diffusers _pack_latents")
        ctx.check(_diff(dit.unpatchify(tokens, 12, 20), latents) == 0.0, "unpatchify(patchify(x)) is not x")
        image_ids = dit.prepare_image_ids(latents)
        ids_ref = FluxPipeline._prepare_latent_image_ids(1, 6, 10, device, latents.dtype)
        ctx.check(image_ids.shape == (1, 60, 3) and _diff(image_ids[0], ids_ref) == 0.0, "prepare_image_ids differs from _prepare_latent_image_ids")
        ids = torch.cat([torch.zeros(1, 12, 3, device=device), image_ids], dim=1)
        rope = dit.pos_embedder(ids)
        cos, sin = transformer.pos_embed(ids[0])
        ctx.fact("RoPE shapes (DiffSynth, diffusers cos)", (tuple(rope.shape), tuple(cos.shape)))
        ctx.check(_diff(rope[0, 0, :, :, 0, 0], cos[:, ::2]) < 1e-6, "DiffSynth RoPE cosines differ from FluxPosEmbed's")

        ref_text, ref_image = transformer.transformer_blocks[0](image, text, temb, (cos, sin))
        got_image, got_text = dit.blocks[0](image, text, temb, rope)
        joint = max(_diff(got_image, ref_image), _diff(got_text, ref_text))
        ctx.fact("double-stream block, max |DiffSynth - diffusers|", joint)
        ctx.check(joint < 1e-5, f"FluxJointTransformerBlock differs from FluxTransformerBlock by {joint}")

        ref_text2, ref_image2 = transformer.single_transformer_blocks[0](ref_image, ref_text, temb, (cos, sin))
        joint_tokens, _ = dit.single_blocks[0](torch.cat([got_text, got_image], dim=1), got_text, temb, rope)
        single = _diff(joint_tokens, torch.cat([ref_text2, ref_image2], dim=1))
        ctx.fact("single-stream block, max |DiffSynth - diffusers|", single)
        ctx.check(single < 1e-5, f"DiffSynth FluxSingleTransformerBlock differs from diffusers' by {single}")
