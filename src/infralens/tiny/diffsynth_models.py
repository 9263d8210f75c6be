"""DiffSynth's own Stable Diffusion classes built from tiny configs.

Each builder takes the already-loaded DiffSynth module (path-based or full-package mode, see
:mod:`.diffsynth_loader`) so it works in either. The UNet config matches
:func:`infralens.tiny.diffusers_models.tiny_unet`, so diffusers weights load into it strictly.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch


def ds_tiny_unet(module: types.ModuleType, seed: int = 0, layers_per_block: int = 2):
    """``diffsynth.models.stable_diffusion_unet.UNet2DConditionModel`` matching the tiny diffusers UNet."""
    import torch

    torch.manual_seed(seed)
    return module.UNet2DConditionModel(
        sample_size=32,
        block_out_channels=(32, 64),
        layers_per_block=layers_per_block,
        cross_attention_dim=32,
        attention_head_dim=8,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
    ).eval()


def ds_tiny_vae(module: types.ModuleType, seed: int = 0, levels: int = 2):
    """``diffsynth.models.stable_diffusion_vae.StableDiffusionVAE``; *levels* 2 matches the tiny diffusers VAE.

    ``levels=4`` gives SD's /8 latent (16/16/32/32 channels). ``layers_per_block=1`` because
    diffusers' ``AutoencoderKL`` default is 1 and DiffSynth's is 2.
    """
    import torch

    torch.manual_seed(seed)
    channels: tuple[int, ...]
    if levels == 2:
        channels, groups = (32, 64), 32
    else:
        channels, groups = (16, 16, 32, 32)[:levels], 8
    return module.StableDiffusionVAE(
        block_out_channels=channels,
        layers_per_block=1,
        norm_num_groups=groups,
        latent_channels=4,
        down_block_types=("DownEncoderBlock2D",) * levels,
        up_block_types=("UpDecoderBlock2D",) * levels,
    ).eval()


def ds_tiny_text_encoder(module: types.ModuleType, seed: int = 0):
    """``diffsynth.models.stable_diffusion_text_encoder.SDTextEncoder``, 2 layers, 32 wide, vocab 1000."""
    import torch

    torch.manual_seed(seed)
    return module.SDTextEncoder(hidden_size=32, intermediate_size=37, num_hidden_layers=2, num_attention_heads=4, vocab_size=1000).eval()


def vram_config(device: str, stored: torch.dtype) -> dict[str, object]:
    """The ``vram_config`` of DiffSynth's ``enable_vram_management``: weights kept on the CPU in *stored*,
    loaded to *device* in *stored*, prepared and computed in float32 there."""
    import torch

    return {
        "offload_dtype": stored,
        "offload_device": "cpu",
        "onload_dtype": stored,
        "onload_device": device,
        "preparing_dtype": torch.float32,
        "preparing_device": device,
        "computation_dtype": torch.float32,
        "computation_device": device,
    }
