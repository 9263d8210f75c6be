"""One forward of each kind of model on inputs of the right shapes (bf16 activations, batch B, a W×H image).

On ``meta`` (the counts) the inputs are empty; on a real device (``cost --measure cuda``) they are random values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from infralens.cost.catalog import ModelSpec

DTYPE = torch.bfloat16
FLUX_TEXT_TOKENS = 512
CLIP_TOKENS = 77


def _inputs(device: str) -> Callable[..., torch.Tensor]:
    """A maker of input tensors on *device*: empty on ``meta``, standard normal values elsewhere."""

    def make(*shape: int, dtype: torch.dtype = DTYPE) -> torch.Tensor:
        if device == "meta":
            return torch.empty(*shape, dtype=dtype, device="meta")
        return torch.randn(*shape, dtype=dtype, device=device)

    return make


def forward_call(
    spec: ModelSpec, model: torch.nn.Module, width: int, height: int, batch: int, *, vae_mode: str = "plain", device: str = "meta"
) -> Callable[[], Any]:
    """A closure running *model* once at *width*×*height* for *batch* images (for a VAE: one decode, *vae_mode* plain|sliced|tiled).

    The inputs are made on *device*, where *model* must already be.
    """
    config = spec.config_dict()
    tensor = _inputs(device)
    if spec.kind in ("unet", "unet-sdxl"):
        sample = tensor(batch, int(config.get("in_channels", 4)), height // 8, width // 8)
        timestep = tensor(batch, dtype=torch.float32)
        context = tensor(batch, CLIP_TOKENS, int(config.get("cross_attention_dim", 768)))
        extra: dict[str, Any] = {}
        if spec.kind == "unet-sdxl":
            pooled = int(config["projection_class_embeddings_input_dim"]) - 6 * int(config["addition_time_embed_dim"])
            extra["added_cond_kwargs"] = {"text_embeds": tensor(batch, pooled), "time_ids": tensor(batch, 6)}
        return lambda: model(sample, timestep, context, **extra)
    if spec.kind == "flux":
        tokens = (height // 16) * (width // 16)
        latents = tensor(batch, tokens, int(config["in_channels"]))
        text = tensor(batch, FLUX_TEXT_TOKENS, int(config["joint_attention_dim"]))
        pooled_text = tensor(batch, int(config["pooled_projection_dim"]))
        step, guidance = tensor(batch, dtype=torch.float32), tensor(batch, dtype=torch.float32)
        img_ids, txt_ids = tensor(tokens, 3, dtype=torch.float32), tensor(FLUX_TEXT_TOKENS, 3, dtype=torch.float32)
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
        latent = tensor(batch, int(config["latent_channels"]), height // 8, width // 8)
        vae: Any = model
        if vae_mode == "tiled":
            vae.enable_tiling()
        elif vae_mode == "sliced":
            vae.enable_slicing()
        return lambda: vae.decode(latent).sample
    if spec.kind == "text":
        ids = torch.zeros(batch, spec.sequence, dtype=torch.long, device=device)
        return lambda: model(input_ids=ids)
    raise ValueError(f"model {spec.id} has no forward InfraLens runs (kind {spec.kind!r})")
