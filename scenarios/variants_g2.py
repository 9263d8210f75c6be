"""Scenario variants for issue 39 (group g2): data on which a wrong line of the Flux, IP-Adapter and attention
annotations can be told from the right one.

Each variant runs the same upstream code as its parent scenario and adds only what the parent's data hides:
a check on a value the parent never reads, or a model layout whose neighbouring layers differ.
"""

from __future__ import annotations

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
        ctx.check(torch.allclose(output[0].double().cpu(), cos, atol=1e-5) and torch.allclose(output[1].double().cpu(), sin, atol=1e-5), "pos_embed's table differs from RoPE by hand")
        seen.append(tuple(output[0].shape))

    handle = pos_embed.register_forward_hook(hook)
    image = pipe("a red cat", height=16, width=16, num_inference_steps=1, max_sequence_length=16, guidance_scale=3.5, output_type="np", generator=ctx.generator(0)).images
    handle.remove()
    ctx.fact("RoPE tables (tokens, head_dim)", seen)
    ctx.check(image.shape == (1, 16, 16, 3), f"image shape {image.shape}")
    ctx.check(len(seen) >= 1 and all(shape == (80, 16) for shape in seen), f"expected (80, 16) tables, got {seen}")
