"""Variants for lab 16/17 annotations whose claims the main scenarios' data cannot tell apart.

- ``g1-layerwise-walk-nested``: the layerwise-casting walk started below the top (a prefix already set), then the
  public entry on a fresh model, so the first prefixes the walk builds have a parent part.
- ``g1-group-offload-triples``: block-level group offloading in memory with ``num_blocks_per_group=3`` on the tiny
  Flux (two blocks per list): a group holds more than one block, so its onload and offload leaders differ, and the
  last chunk is shorter than asked.
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

from .diffusers_hooks import flux_inputs, flux_run

IMPORTS = ("torch", "transformers", "diffusers", "diffusers.hooks", "diffusers.hooks.layerwise_casting", "infralens.tiny")


@scenario("g1-layerwise-walk-nested", "layerwise-casting walk started at transformer_blocks with a prefix, then from the top")
def run_layerwise_walk_nested(ctx: ScenarioContext) -> None:
    """float8 storage on one ModuleList walked with its own prefix, then the whole tiny Flux through the public entry."""
    from diffusers.hooks.layerwise_casting import DEFAULT_SKIP_MODULES_PATTERN, _apply_layerwise_casting, apply_layerwise_casting

    from infralens.tiny import tiny_flux_transformer

    device = ctx.device
    part = tiny_flux_transformer(seed=16).to(device)
    _apply_layerwise_casting(
        part.transformer_blocks, torch.float8_e4m3fn, torch.float32, DEFAULT_SKIP_MODULES_PATTERN, None, False, _prefix="transformer_blocks"
    )
    block = part.transformer_blocks[0]
    ctx.check(block.ff.net[2].weight.dtype == torch.float8_e4m3fn, "a block's feed-forward Linear should be stored in float8")
    ctx.check(block.norm1.linear.weight.dtype == torch.float32, "the 'norm' pattern should keep norm1's Linear in float32")
    ctx.check(part.x_embedder.weight.dtype == torch.float32, "a walk started at transformer_blocks should leave x_embedder alone")

    whole = tiny_flux_transformer(seed=16).to(device)
    apply_layerwise_casting(whole, storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.float32)
    ctx.check(whole.proj_out.weight.dtype == torch.float32, "the anchored ^proj_out$ should keep the top-level proj_out in float32")
    ctx.check(whole.single_transformer_blocks[0].proj_out.weight.dtype == torch.float8_e4m3fn, "a nested proj_out should be stored in float8")


@scenario("g1-group-offload-triples", "tiny Flux block-level group offload in memory, 3 blocks per group (lists of 2)")
def run_group_offload_triples(ctx: ScenarioContext) -> None:
    """Block-level offloading with groups larger than one block: the output must not change."""
    from diffusers.hooks import apply_group_offloading

    from infralens.tiny import tiny_flux_transformer

    device = ctx.device
    inputs = flux_inputs(device)
    reference = flux_run(tiny_flux_transformer(seed=17).to(device), inputs)
    model = tiny_flux_transformer(seed=17)
    ctx.check(len(model.transformer_blocks) == 2 and len(model.single_transformer_blocks) == 2, "the tiny Flux should have two blocks per list")
    apply_group_offloading(model, onload_device=device, offload_device="cpu", offload_type="block_level", num_blocks_per_group=3)
    error = float((flux_run(model, inputs) - reference).abs().max())
    ctx.fact("3-blocks-per-group max error", error)
    ctx.check(error < 1e-5, f"block-level offloading with 3 blocks per group changed the output by {error}")
