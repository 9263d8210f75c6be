"""Tiny Flux models from configs: a 2+2-block ``FluxTransformer2DModel``, a 1-level VAE, CLIP + T5 encoders.

Sizes: 1x1 patches over 4 latent channels, head dim 16 with 2 heads (inner width 32), RoPE axes
``[2, 6, 8]`` (they must sum to the head dim; the index, row and column axes differ in width, so a swapped row
and column changes the embedding), joint (T5) width 32, pooled (CLIP) width 32, 10 T5 tokens by default, and a
guidance embedding as in FLUX.1-dev. The VAE has one level (no downsampling) with latent channels 1,
so a 16x24 image gives 16x24x1 latents and ``FluxPipeline`` packs them into 2x2 patches (4 channels,
8x12 = 96 tokens). Every component is put in eval mode: T5 has dropout and would otherwise make two runs with
one seed differ. Nothing is downloaded; the T5 tokenizer is a character-level Unigram built in memory.
"""

from __future__ import annotations

from typing import Any

from infralens.tiny.diffusers_models import _seed

_T5_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789.,!?'-"


def tiny_flux_transformer(seed: int = 0, **overrides: Any):
    """A ``FluxTransformer2DModel`` with 2 double-stream and 2 single-stream blocks, inner width 32."""
    from diffusers import FluxTransformer2DModel

    _seed(seed)
    config: dict[str, Any] = dict(
        patch_size=1,
        in_channels=4,
        num_layers=2,
        num_single_layers=2,
        attention_head_dim=16,
        num_attention_heads=2,
        joint_attention_dim=32,
        pooled_projection_dim=32,
        axes_dims_rope=[2, 6, 8],
        guidance_embeds=True,
    )
    config.update(overrides)
    model: Any = FluxTransformer2DModel(**config)
    return model.eval()


def tiny_flux_vae(seed: int = 0):
    """An ``AutoencoderKL`` with one level of 4 channels and 1 latent channel, Flux's shift and scale."""
    from diffusers import AutoencoderKL

    _seed(seed)
    model: Any = AutoencoderKL(
        block_out_channels=[4],
        in_channels=3,
        out_channels=3,
        down_block_types=["DownEncoderBlock2D"],
        up_block_types=["UpDecoderBlock2D"],
        latent_channels=1,
        norm_num_groups=1,
        use_quant_conv=False,
        use_post_quant_conv=False,
        shift_factor=0.0609,
        scaling_factor=1.5035,
    )
    return model.eval()


def tiny_clip_text_encoder(seed: int = 0, hidden_size: int = 32, projection_dim: int | None = None):
    """A 2-layer ``CLIPTextModel`` (or ``CLIPTextModelWithProjection`` when *projection_dim* is given), vocab 1000."""
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTextModelWithProjection

    _seed(seed)
    config = CLIPTextConfig(
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=1,
        hidden_size=hidden_size,
        intermediate_size=37,
        num_attention_heads=4,
        num_hidden_layers=2,
        vocab_size=1000,
        projection_dim=projection_dim or hidden_size,
    )
    model = CLIPTextModel(config) if projection_dim is None else CLIPTextModelWithProjection(config)
    return model.eval()


def tiny_t5_tokenizer(max_length: int = 10):
    """A ``T5Tokenizer`` built in memory: a Unigram vocabulary of single characters, no hub files.

    *max_length* (10) differs from the transformer's head dim (16); ``FluxPipeline`` pads to its own
    ``max_sequence_length``, so pass that too."""
    from transformers import T5Tokenizer

    pieces = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("\u2581", -1.0)]
    pieces += [(char, -2.0) for char in _T5_ALPHABET] + [("\u2581" + char, -1.5) for char in _T5_ALPHABET]
    return T5Tokenizer(vocab=pieces, extra_ids=0, model_max_length=max_length)


def tiny_t5_encoder(seed: int = 0, vocab_size: int = 100, d_model: int = 32):
    """A 2-layer ``T5EncoderModel`` of width *d_model* (Flux's joint attention input)."""
    from transformers import T5Config, T5EncoderModel

    _seed(seed)
    config = T5Config(vocab_size=vocab_size, d_model=d_model, d_ff=37, d_kv=8, num_layers=2, num_heads=4, relative_attention_num_buckets=8)
    return T5EncoderModel(config).eval()


def tiny_flux_components(seed: int = 0, scheduler=None) -> dict[str, Any]:
    """Keyword arguments for ``diffusers.FluxPipeline`` (tiny transformer, VAE, CLIP and T5 with tokenizers).

    *scheduler* defaults to ``FlowMatchEulerDiscreteScheduler`` with FLUX.1-dev's dynamic shifting.
    Call the pipeline at any height and width that are multiples of 2 (16x24, say) with ``max_sequence_length=10``.
    """
    from diffusers import FlowMatchEulerDiscreteScheduler

    from infralens.tiny.tokenizer import tiny_clip_tokenizer

    if scheduler is None:
        scheduler = FlowMatchEulerDiscreteScheduler(use_dynamic_shifting=True, base_shift=0.5, max_shift=1.15, base_image_seq_len=256, max_image_seq_len=4096)
    return dict(
        scheduler=scheduler,
        vae=tiny_flux_vae(seed),
        text_encoder=tiny_clip_text_encoder(seed),
        tokenizer=tiny_clip_tokenizer(),
        text_encoder_2=tiny_t5_encoder(seed),
        tokenizer_2=tiny_t5_tokenizer(),
        transformer=tiny_flux_transformer(seed),
    )
