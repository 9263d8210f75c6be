"""Tiny IP-Adapter checkpoints for the tiny SD UNet and Flux transformer, in the original file layout.

Flat ``image_proj.*`` / ``ip_adapter.{k}.*`` keys, as the published IP-Adapter safetensors files use them, with random
values; :func:`write_adapter` saves one into a folder for ``load_ip_adapter``. Nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import torch

IMAGE_EMBED_DIM = 16
"""Width of the (pretend) CLIP image embedding the tiny adapters project."""
TOKENS = 4
"""Image tokens per image: what a plain IP-Adapter's ``ImageProjection`` makes."""


def _randn(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _image_proj(cross_attention_dim: int, seed: int) -> dict[str, torch.Tensor]:
    """A plain IP-Adapter projection in the original checkpoints' names: ``proj`` Linear and ``norm`` LayerNorm."""
    return {
        "image_proj.proj.weight": _randn(TOKENS * cross_attention_dim, IMAGE_EMBED_DIM, seed=seed) * 0.3,
        "image_proj.proj.bias": _randn(TOKENS * cross_attention_dim, seed=seed + 1) * 0.1,
        "image_proj.norm.weight": 1.0 + 0.1 * _randn(cross_attention_dim, seed=seed + 2),
        "image_proj.norm.bias": 0.1 * _randn(cross_attention_dim, seed=seed + 3),
    }


def sd_adapter_state_dict(unet, seed: int = 180) -> dict[str, torch.Tensor]:
    """Flat keys for the tiny SD UNet: ``ip_adapter.{k}.to_k_ip/to_v_ip`` with k = 1, 3, 5, ... over its cross-attentions."""
    state = _image_proj(unet.config.cross_attention_dim, seed)
    channels = unet.config.block_out_channels
    key_id = 1
    for name in unet.attn_processors:
        if name.endswith("attn1.processor"):
            continue
        if name.startswith("mid_block"):
            hidden = channels[-1]
        elif name.startswith("up_blocks"):
            hidden = list(reversed(channels))[int(name[len("up_blocks.")])]
        else:
            hidden = channels[int(name[len("down_blocks.")])]
        for which in ("k", "v"):
            state[f"ip_adapter.{key_id}.to_{which}_ip.weight"] = _randn(hidden, unet.config.cross_attention_dim, seed=seed + 10 + key_id) * 0.3
        key_id += 2
    return state


def flux_adapter_state_dict(transformer, seed: int = 190) -> dict[str, torch.Tensor]:
    """Flat keys for the tiny Flux transformer: ``ip_adapter.{k}.to_k_ip/to_v_ip`` (weight and bias), k = 0, 1, ... per double block."""
    width = transformer.config.joint_attention_dim
    state = _image_proj(width, seed)
    inner = transformer.inner_dim
    for key_id in range(transformer.config.num_layers):
        for which in ("k", "v"):
            state[f"ip_adapter.{key_id}.to_{which}_ip.weight"] = _randn(inner, width, seed=seed + 10 + key_id) * 0.3
            state[f"ip_adapter.{key_id}.to_{which}_ip.bias"] = _randn(inner, seed=seed + 20 + key_id) * 0.1
    return state


def write_adapter(state: dict[str, torch.Tensor], folder: str) -> str:
    """Save *state* as ``ip_adapter.safetensors`` in *folder*; return the file name."""
    from safetensors.torch import save_file

    name = "ip_adapter.safetensors"
    save_file({key: value.contiguous() for key, value in state.items()}, str(Path(folder) / name))
    return name


SIGLIP_WIDTH = 1152
"""Pooled width of SigLIP SO400M; ``FluxIpAdapter`` builds ``MLPProjModel(id_embeddings_dim=1152)`` whatever its other sizes."""


class StandInImageEncoder(torch.nn.Module):
    """Mean colour of each image mapped to a 1152-wide vector, returned as ``.pooler_output`` like SigLIP's."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(3, SIGLIP_WIDTH)

    def forward(self, pixels: torch.Tensor) -> SimpleNamespace:
        return SimpleNamespace(pooler_output=self.proj(pixels.mean(dim=(2, 3))))
