"""Tiny SDXL models from configs: a 2-level ``text_time`` UNet, two CLIP encoders, a VAE; DiffSynth's counterparts.

Widths: both text encoders are 32 wide, so the concatenated prompt embedding is 64 wide (the UNet's
``cross_attention_dim``); the second encoder projects its pooled output to 32. The UNet's time ids are six
numbers each embedded into ``ADD_TIME_DIM`` = 8 sinusoidal features, so its ``add_embedding`` takes
6 x 8 + 32 = 80 inputs (``PROJECTION_INPUT_DIM``). The refiner variant reads five ids (size, crop,
aesthetic score): 5 x 8 + 32 = 72. The DiffSynth UNet has the same layout and parameter names, so the
diffusers weights load into it strictly. Nothing is downloaded.
"""

from __future__ import annotations

import types
from typing import Any

from infralens.tiny.diffusers_models import _seed

TEXT_WIDTH = 32
POOLED_DIM = 32
ADD_TIME_DIM = 8
SDXL_TOKENS = 16
"""Tokenizer length: 16 tokens instead of CLIP's 77 keeps the encoders and cross-attention cheap."""
PROJECTION_INPUT_DIM = 6 * ADD_TIME_DIM + POOLED_DIM
REFINER_PROJECTION_INPUT_DIM = 5 * ADD_TIME_DIM + POOLED_DIM

_UNET = dict(
    block_out_channels=(32, 64),
    layers_per_block=1,
    in_channels=4,
    out_channels=4,
    down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
    up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
    attention_head_dim=(2, 2),
    cross_attention_dim=2 * TEXT_WIDTH,
    use_linear_projection=True,
    addition_embed_type="text_time",
    addition_time_embed_dim=ADD_TIME_DIM,
    projection_class_embeddings_input_dim=PROJECTION_INPUT_DIM,
)


def tiny_sdxl_unet(seed: int = 0, **overrides: Any):
    """A ``UNet2DConditionModel`` with ``addition_embed_type="text_time"`` (SDXL's micro-conditioning), 32/64 channels.

    Its cross-attention runs at 64 channels as 2 heads of 32, so the head dim differs from the 16 text tokens; the
    default ``sample_size`` 12 gives 6x6 = 36 query tokens there, not the 64 of the text width.
    """
    from diffusers import UNet2DConditionModel

    _seed(seed)
    config: dict[str, Any] = dict(_UNET, sample_size=12)
    config.update(overrides)
    model: Any = UNet2DConditionModel(**config)
    return model.eval()


def tiny_sdxl_components(seed: int = 0, refiner: bool = False) -> dict[str, Any]:
    """Keyword arguments for ``StableDiffusionXLPipeline`` (or, with *refiner*, ``StableDiffusionXLImg2ImgPipeline``).

    The refiner has no first text encoder (like the real SDXL refiner) and a UNet that expects the aesthetic-score ids.
    Call with an explicit ``height`` and ``width`` (multiples of 4; the VAE halves them, the UNet halves once more);
    the default is 24x24 (12x12 latents).
    """
    from diffusers import EulerDiscreteScheduler

    from infralens.tiny.diffusers_models import tiny_vae
    from infralens.tiny.flux import tiny_clip_text_encoder
    from infralens.tiny.tokenizer import tiny_clip_tokenizer

    scheduler = EulerDiscreteScheduler(
        beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear", steps_offset=1, timestep_spacing="leading", prediction_type="epsilon"
    )
    unet = (
        tiny_sdxl_unet(seed, projection_class_embeddings_input_dim=REFINER_PROJECTION_INPUT_DIM, cross_attention_dim=TEXT_WIDTH)
        if refiner
        else tiny_sdxl_unet(seed)
    )
    return dict(
        unet=unet,
        scheduler=scheduler,
        vae=tiny_vae(seed, sample_size=32).eval(),
        text_encoder=None if refiner else tiny_clip_text_encoder(seed, hidden_size=TEXT_WIDTH),
        text_encoder_2=tiny_clip_text_encoder(seed + 1, hidden_size=TEXT_WIDTH, projection_dim=POOLED_DIM),
        tokenizer=None if refiner else tiny_clip_tokenizer(SDXL_TOKENS),
        tokenizer_2=tiny_clip_tokenizer(SDXL_TOKENS),
    )


def ds_tiny_sdxl_unet(module: types.ModuleType, seed: int = 0):
    """``diffsynth.models.stable_diffusion_xl_unet.SDXLUNet2DConditionModel`` with the layout of :func:`tiny_sdxl_unet`."""
    import torch

    torch.manual_seed(seed)
    return module.SDXLUNet2DConditionModel(sample_size=8, **_UNET).eval()


def ds_tiny_sdxl_text_encoder_2(module: types.ModuleType, seed: int = 0):
    """``diffsynth.models.stable_diffusion_xl_text_encoder.SDXLTextEncoder2``: 2 layers, 32 wide, projection 32, vocab 1000."""
    import torch

    torch.manual_seed(seed)
    return module.SDXLTextEncoder2(
        hidden_size=TEXT_WIDTH, intermediate_size=37, num_hidden_layers=2, num_attention_heads=4, vocab_size=1000, projection_dim=POOLED_DIM
    ).eval()


def ds_tiny_sdxl_pipeline(device: str):
    """DiffSynth's own ``StableDiffusionXLPipeline`` on *device*: its SDXL UNet carrying :func:`tiny_sdxl_unet`'s weights
    (seed 0, loaded strictly), a 4-level VAE, both text encoders and two 16-token tokenizers.

    Loads the full DiffSynth package with stubs (:func:`infralens.tiny.import_full_diffsynth`), so use it only in
    a process that does not also load DiffSynth modules path-based.
    """
    import torch

    from infralens.tiny.diffsynth_loader import import_full_diffsynth
    from infralens.tiny.diffsynth_models import ds_tiny_text_encoder, ds_tiny_vae
    from infralens.tiny.tokenizer import tiny_clip_tokenizer

    import_full_diffsynth()
    from diffsynth.models import stable_diffusion_text_encoder, stable_diffusion_vae, stable_diffusion_xl_text_encoder, stable_diffusion_xl_unet
    from diffsynth.pipelines.stable_diffusion_xl import StableDiffusionXLPipeline

    pipe = StableDiffusionXLPipeline(device=device, torch_dtype=torch.float32)
    pipe.unet = ds_tiny_sdxl_unet(stable_diffusion_xl_unet)
    pipe.unet.load_state_dict(tiny_sdxl_unet(seed=0).state_dict(), strict=True)
    pipe.unet.to(device)
    pipe.vae = ds_tiny_vae(stable_diffusion_vae, levels=4).to(device)
    pipe.text_encoder = ds_tiny_text_encoder(stable_diffusion_text_encoder).to(device)
    pipe.text_encoder_2 = ds_tiny_sdxl_text_encoder_2(stable_diffusion_xl_text_encoder, seed=1).to(device)
    pipe.tokenizer, pipe.tokenizer_2 = tiny_clip_tokenizer(SDXL_TOKENS), tiny_clip_tokenizer(SDXL_TOKENS)
    return pipe
