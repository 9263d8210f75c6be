"""One forward of each kind of model on meta inputs of the right shapes (bf16 activations, batch B, a W×H image)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from infralens.cost.catalog import ModelSpec

DTYPE = torch.bfloat16
FLUX_TEXT_TOKENS = 512
CLIP_TOKENS = 77


def _empty(*shape: int, dtype: torch.dtype = DTYPE) -> torch.Tensor:
    return torch.empty(*shape, dtype=dtype, device="meta")


def forward_call(spec: ModelSpec, model: torch.nn.Module, width: int, height: int, batch: int, *, vae_mode: str = "plain") -> Callable[[], Any]:
    """A closure running *model* once at *width*×*height* for *batch* images (for a VAE: one decode, *vae_mode* plain|sliced|tiled)."""
    config = spec.config_dict()
    if spec.kind in ("unet", "unet-sdxl"):
        sample = _empty(batch, int(config.get("in_channels", 4)), height // 8, width // 8)
        timestep = _empty(batch, dtype=torch.float32)
        context = _empty(batch, CLIP_TOKENS, int(config.get("cross_attention_dim", 768)))
        extra: dict[str, Any] = {}
        if spec.kind == "unet-sdxl":
            pooled = int(config["projection_class_embeddings_input_dim"]) - 6 * int(config["addition_time_embed_dim"])
            extra["added_cond_kwargs"] = {"text_embeds": _empty(batch, pooled), "time_ids": _empty(batch, 6)}
        return lambda: model(sample, timestep, context, **extra)
    if spec.kind == "flux":
        tokens = (height // 16) * (width // 16)
        latents = _empty(batch, tokens, int(config["in_channels"]))
        text = _empty(batch, FLUX_TEXT_TOKENS, int(config["joint_attention_dim"]))
        pooled_text = _empty(batch, int(config["pooled_projection_dim"]))
        step, guidance = _empty(batch, dtype=torch.float32), _empty(batch, dtype=torch.float32)
        img_ids, txt_ids = _empty(tokens, 3, dtype=torch.float32), _empty(FLUX_TEXT_TOKENS, 3, dtype=torch.float32)
        return lambda: model(
            hidden_states=latents,
            encoder_hidden_states=text,
            pooled_projections=pooled_text,
            timestep=step,
            guidance=guidance,
            img_ids=img_ids,
            txt_ids=txt_ids,
        )
    if spec.kind == "vae":
        latent = _empty(batch, int(config["latent_channels"]), height // 8, width // 8)
        vae: Any = model
        if vae_mode == "tiled":
            vae.enable_tiling()
        elif vae_mode == "sliced":
            vae.enable_slicing()
        return lambda: vae.decode(latent).sample
    if spec.kind == "text":
        ids = torch.zeros(batch, spec.sequence, dtype=torch.long, device="meta")
        return lambda: model(input_ids=ids)
    raise ValueError(f"model {spec.id} has no forward InfraLens runs (kind {spec.kind!r})")
