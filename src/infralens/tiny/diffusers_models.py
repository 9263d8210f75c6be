"""Tiny diffusers models from configs (random weights, seeded), mirroring diffusers' own test fixtures.

Sizes follow ``get_dummy_components()`` in diffusers' Stable Diffusion tests: a 2-level UNet with
32/64 channels, a 2-level VAE (64x64 image -> 32x32x4 latent), a 5-layer 32-wide CLIP text encoder
and the offline tokenizer from :mod:`.tokenizer`. Everything builds in well under a second on CPU.
"""

from __future__ import annotations

from typing import Any


def _seed(seed: int) -> None:
    import torch

    torch.manual_seed(seed)


def tiny_unet(seed: int = 0, **overrides: Any):
    """A ``UNet2DConditionModel`` with 32/64 channels, cross-attention width 32, 32x32 latents."""
    from diffusers import UNet2DConditionModel

    _seed(seed)
    config = dict(
        block_out_channels=(32, 64),
        layers_per_block=2,
        sample_size=32,
        in_channels=4,
        out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=32,
    )
    config.update(overrides)
    return UNet2DConditionModel(**config)


def tiny_vae(seed: int = 0, **overrides: Any):
    """An ``AutoencoderKL`` with 2 levels (downsamples by 2), 4 latent channels."""
    from diffusers import AutoencoderKL

    _seed(seed)
    config = dict(
        block_out_channels=[32, 64],
        in_channels=3,
        out_channels=3,
        down_block_types=["DownEncoderBlock2D", "DownEncoderBlock2D"],
        up_block_types=["UpDecoderBlock2D", "UpDecoderBlock2D"],
        latent_channels=4,
    )
    config.update(overrides)
    return AutoencoderKL(**config)


def tiny_text_encoder(seed: int = 0):
    """A 5-layer, 32-wide ``CLIPTextModel`` (vocab 1000; bos 0, eos/pad 1 like the tiny tokenizer)."""
    from transformers import CLIPTextConfig, CLIPTextModel

    _seed(seed)
    config = CLIPTextConfig(
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=1,
        hidden_size=32,
        intermediate_size=37,
        layer_norm_eps=1e-05,
        num_attention_heads=4,
        num_hidden_layers=5,
        vocab_size=1000,
    )
    return CLIPTextModel(config)


def tiny_ddim_scheduler(**overrides: Any):
    """A ``DDIMScheduler`` with Stable Diffusion's schedule (scaled_linear 0.00085 -> 0.012, offset 1)."""
    from diffusers import DDIMScheduler

    config = dict(
        beta_start=0.00085,
        beta_end=0.012,
        beta_schedule="scaled_linear",
        clip_sample=False,
        set_alpha_to_one=False,
        steps_offset=1,
    )
    config.update(overrides)
    return DDIMScheduler(**config)


def tiny_sd_components(seed: int = 0, scheduler=None) -> dict[str, Any]:
    """Keyword arguments for ``StableDiffusionPipeline(**components, requires_safety_checker=False)``.

    Also fits ``StableDiffusionImg2ImgPipeline``. *scheduler* defaults to :func:`tiny_ddim_scheduler`.
    """
    from infralens.tiny.tokenizer import tiny_clip_tokenizer

    return dict(
        unet=tiny_unet(seed),
        scheduler=scheduler if scheduler is not None else tiny_ddim_scheduler(),
        vae=tiny_vae(seed),
        text_encoder=tiny_text_encoder(seed),
        tokenizer=tiny_clip_tokenizer(),
        safety_checker=None,
        feature_extractor=None,
        image_encoder=None,
    )


def tiny_controlnet(unet, seed: int = 0):
    """``ControlNetModel.from_unet`` on *unet* (its zero-initialised output convs make it a no-op at first)."""
    from diffusers import ControlNetModel

    _seed(seed)
    return ControlNetModel.from_unet(unet, conditioning_embedding_out_channels=(16, 32))


_TINY_TRANSFORMER = {"sample_size": 8, "patch_size": 2, "in_channels": 4, "num_layers": 2, "attention_head_dim": 8}
"""What the tiny transformers share: 2 layers, 8-wide heads, 2x2 patches over 8x8x4 latents."""


def _tiny_transformer(class_name: str, seed: int, **config: Any) -> Any:
    """``diffusers.<class_name>`` with the shared tiny sizes and *config*, built after seeding torch."""
    import diffusers

    _seed(seed)
    return getattr(diffusers, class_name)(**_TINY_TRANSFORMER, **config)


def tiny_dit(seed: int = 0) -> Any:
    """A 2-layer class-conditional ``DiTTransformer2DModel`` on 8x8x4 latents (1000 classes): 3 heads of 8, so the
    inner width 24 differs from the 16 patch tokens."""
    return _tiny_transformer("DiTTransformer2DModel", seed, num_attention_heads=3, out_channels=8, num_embeds_ada_norm=1000)


def tiny_pixart(seed: int = 0) -> Any:
    """A 2-layer text-conditional ``PixArtTransformer2DModel`` (caption width 32) on 8x8x4 latents."""
    return _tiny_transformer(
        "PixArtTransformer2DModel",
        seed,
        num_attention_heads=3,
        caption_channels=32,
        cross_attention_dim=24,
        out_channels=8,
        attention_bias=True,
        activation_fn="gelu-approximate",
        num_embeds_ada_norm=1000,
        norm_type="ada_norm_single",
        norm_elementwise_affine=False,
        norm_eps=1e-6,
    )


def tiny_sd3(seed: int = 0) -> Any:
    """A 2-layer ``SD3Transformer2DModel`` (MM-DiT; text width 32, pooled width 64) on 8x8x4 latents."""
    return _tiny_transformer(
        "SD3Transformer2DModel",
        seed,
        num_attention_heads=4,
        joint_attention_dim=32,
        caption_projection_dim=32,
        pooled_projection_dim=64,
        out_channels=4,
        pos_embed_max_size=16,
    )


LORA_TARGETS = ("to_q", "to_k", "to_v", "to_out.0")


def lora_donor_state_dict(unet, rank: int = 4, prefix: str = "unet.", seed: int = 0) -> dict[str, Any]:
    """A random (non-zero) peft LoRA state dict for *unet*'s attention projections, keys prefixed *prefix*.

    A deep copy of *unet* gets a peft adapter with ``init_lora_weights=False`` (so B is not zero);
    its adapter weights are exported in the format ``pipe.load_lora_weights(dict)`` accepts.
    """
    import copy

    from peft import LoraConfig
    from peft.utils import get_peft_model_state_dict

    _seed(seed)
    donor = copy.deepcopy(unet)
    donor.add_adapter(LoraConfig(r=rank, lora_alpha=rank, target_modules=list(LORA_TARGETS), init_lora_weights=False))
    return {f"{prefix}{key}": value.detach().clone() for key, value in get_peft_model_state_dict(donor).items()}
