"""DiffSynth FLUX DiT pieces carrying the weights of the tiny diffusers Flux transformer.

``diffsynth.models.flux_dit`` is passed in as *module* (loaded by path by the caller). DiffSynth fuses q, k, v
(and, in single blocks, the MLP input) into one matrix where diffusers keeps separate layers, so the copies
concatenate diffusers' weights in q, k, v (, mlp) order.
"""

from __future__ import annotations

from typing import Any

import torch


def _cat_linear(target: torch.nn.Linear, sources: list[torch.nn.Linear]) -> None:
    target.weight.data.copy_(torch.cat([s.weight.data for s in sources], 0))
    target.bias.data.copy_(torch.cat([s.bias.data for s in sources], 0))


def _copy_linear(target: torch.nn.Linear, source: torch.nn.Linear) -> None:
    target.load_state_dict(source.state_dict())


def joint_block_from_diffusers(module: Any, block: Any, width: int, heads: int) -> Any:
    """A DiffSynth ``FluxJointTransformerBlock`` carrying the weights of a diffusers ``FluxTransformerBlock``."""
    ds = module.FluxJointTransformerBlock(width, heads)
    attn = block.attn
    _copy_linear(ds.norm1_a.linear, block.norm1.linear)
    _copy_linear(ds.norm1_b.linear, block.norm1_context.linear)
    _cat_linear(ds.attn.a_to_qkv, [attn.to_q, attn.to_k, attn.to_v])
    _cat_linear(ds.attn.b_to_qkv, [attn.add_q_proj, attn.add_k_proj, attn.add_v_proj])
    for mine, theirs in (("norm_q_a", "norm_q"), ("norm_k_a", "norm_k"), ("norm_q_b", "norm_added_q"), ("norm_k_b", "norm_added_k")):
        getattr(ds.attn, mine).weight.data.copy_(getattr(attn, theirs).weight.data)
    _copy_linear(ds.attn.a_to_out, attn.to_out[0])
    _copy_linear(ds.attn.b_to_out, attn.to_add_out)
    for ff, theirs in ((ds.ff_a, block.ff), (ds.ff_b, block.ff_context)):
        _copy_linear(ff[0], theirs.net[0].proj)
        _copy_linear(ff[2], theirs.net[2])
    return ds.eval()


def single_block_from_diffusers(module: Any, block: Any, width: int, heads: int) -> Any:
    """A DiffSynth ``FluxSingleTransformerBlock`` carrying a diffusers single block's weights (q, k, v and MLP fused)."""
    ds = module.FluxSingleTransformerBlock(width, heads)
    attn = block.attn
    _copy_linear(ds.norm.linear, block.norm.linear)
    _cat_linear(ds.to_qkv_mlp, [attn.to_q, attn.to_k, attn.to_v, block.proj_mlp])
    ds.norm_q_a.weight.data.copy_(attn.norm_q.weight.data)
    ds.norm_k_a.weight.data.copy_(attn.norm_k.weight.data)
    _copy_linear(ds.proj_out, block.proj_out)
    return ds.eval()


def tiny_ds_flux_dit(module: Any, transformer: Any, width: int = 32, heads: int = 2) -> Any:
    """A DiffSynth ``FluxDiT`` shell (``__init__`` fixes width 3072) with *transformer*'s RoPE axes and the converted blocks."""
    dit = module.FluxDiT.__new__(module.FluxDiT)
    torch.nn.Module.__init__(dit)
    dit.pos_embedder = module.RoPEEmbedding(width, 10000, list(transformer.config.axes_dims_rope))
    dit.blocks = torch.nn.ModuleList([joint_block_from_diffusers(module, b, width, heads) for b in transformer.transformer_blocks])
    dit.single_blocks = torch.nn.ModuleList([single_block_from_diffusers(module, b, width, heads) for b in transformer.single_transformer_blocks])
    dit.input_dim = 4
    return dit.eval()
