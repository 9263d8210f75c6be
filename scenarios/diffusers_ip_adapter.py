"""IP-Adapter loading in diffusers: a tiny adapter file written to a temp folder, loaded into SD and Flux pipelines.

No image encoder is loaded (``image_encoder_folder=None`` / ``image_encoder_pretrained_model_name_or_path=None``):
the image embeddings are passed directly, as ``ip_adapter_image_embeds``.
"""

from __future__ import annotations

import tempfile

import torch

from infralens.scenarios import scenario
from infralens.tiny import IMAGE_EMBED_DIM, flux_adapter_state_dict, sd_adapter_state_dict, tiny_sd_components, write_adapter
from infralens.verify import ScenarioContext

IMPORTS = (
    "torch",
    "transformers",
    "diffusers",
    "diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion",
    "diffusers.pipelines.flux.pipeline_flux",
    "safetensors.torch",
)


def _randn(*shape: int, seed: int, device: str) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(device)


def _diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.float() - b.float()).abs().max())


@scenario("ip-adapter-load", "tiny SD: load_ip_adapter from a temp file, scale 0 = no adapter, per-block scales, unload")
def run_ip_adapter_load(ctx: ScenarioContext) -> None:
    """SD: load the adapter (processor swap + image projection), scale 0 equals no adapter, per-block scales, unload."""
    from diffusers.models.attention_processor import AttnProcessor2_0, IPAdapterAttnProcessor2_0
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import StableDiffusionPipeline

    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    pipe = pipe.to(ctx.device)
    # Negative and positive image embeddings stacked on the batch axis, as prepare_ip_adapter_image_embeds expects under CFG.
    embeds = [_randn(2, 1, IMAGE_EMBED_DIM, seed=181, device=ctx.device)]

    def generate(**kwargs) -> torch.Tensor:
        generator = torch.Generator().manual_seed(182)
        with torch.no_grad():
            return pipe("a cat", height=16, width=24, num_inference_steps=1, guidance_scale=6.0, output_type="latent", generator=generator, **kwargs).images

    plain = generate()
    with tempfile.TemporaryDirectory() as folder:
        weight_name = write_adapter(sd_adapter_state_dict(pipe.unet), folder)
        pipe.load_ip_adapter(folder, subfolder="", weight_name=weight_name, image_encoder_folder=None, local_files_only=True)
    processors = pipe.unet.attn_processors
    swapped = sum(isinstance(p, IPAdapterAttnProcessor2_0) for p in processors.values())
    ctx.fact("processors swapped", f"{swapped} of {len(processors)}")
    ctx.check(swapped == len(processors) // 2 == 6, f"{swapped} IP-Adapter processors, expected the 6 cross-attentions")
    ctx.check(pipe.unet.config.encoder_hid_dim_type == "ip_image_proj", "encoder_hid_dim_type was not set to ip_image_proj")

    pipe.set_ip_adapter_scale(0.0)
    off = generate(ip_adapter_image_embeds=embeds)
    pipe.set_ip_adapter_scale(1.0)
    on = generate(ip_adapter_image_embeds=embeds)
    pipe.set_ip_adapter_scale({"up": {"block_0": [0.0, 1.0, 0.0]}})
    styled = [p.scale[0] for p in pipe.unet.attn_processors.values() if isinstance(p, IPAdapterAttnProcessor2_0)]
    ctx.fact("scale 0 vs no adapter", _diff(off, plain))
    ctx.fact("scale 1 change", _diff(on, plain))
    ctx.fact("per-block scales", styled)
    ctx.check(_diff(off, plain) < 1e-6, f"scale 0 differs from the pipeline without adapter by {_diff(off, plain)}")
    ctx.check(_diff(on, plain) > 1e-3, "scale 1 did not change the output")
    ctx.check(styled == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0], f"per-block scales {styled}")

    pipe.unload_ip_adapter()
    back = generate()
    ctx.fact("after unload vs no adapter", _diff(back, plain))
    ctx.check(all(isinstance(p, AttnProcessor2_0) for p in pipe.unet.attn_processors.values()), "unload left non-default processors")
    ctx.check(pipe.unet.encoder_hid_proj is None and _diff(back, plain) < 1e-6, "unload did not restore the plain pipeline")


@scenario("ip-adapter-per-prompt", "tiny SD with an IP-Adapter, precomputed image embeddings, 2 images per prompt under CFG")
def run_ip_adapter_per_prompt(ctx: ScenarioContext) -> None:
    """SD with a loaded IP-Adapter asked for two images of one prompt: the image embeddings are repeated per image."""
    from diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion import StableDiffusionPipeline

    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    pipe = pipe.to(ctx.device)
    with tempfile.TemporaryDirectory() as folder:
        weight_name = write_adapter(sd_adapter_state_dict(pipe.unet), folder)
        pipe.load_ip_adapter(folder, subfolder="", weight_name=weight_name, image_encoder_folder=None, local_files_only=True)
    embeds = [_randn(2, 1, IMAGE_EMBED_DIM, seed=181, device=ctx.device)]
    with torch.no_grad():
        latents = pipe(
            "a cat",
            num_images_per_prompt=2,
            height=16,
            width=24,
            num_inference_steps=1,
            guidance_scale=6.0,
            output_type="latent",
            generator=torch.Generator().manual_seed(182),
            ip_adapter_image_embeds=embeds,
        ).images
    ctx.check(latents.shape[0] == 2, f"two images per prompt should give 2 latents, got {tuple(latents.shape)}")
    ctx.fact("latents", tuple(latents.shape))


@scenario("flux-ip-adapter-load", "tiny FluxPipeline: load_ip_adapter into the double blocks, per-layer scales, scale 0")
def run_flux_ip_adapter_load(ctx: ScenarioContext) -> None:
    """Flux: load into the double-stream blocks only; negative embeddings passed too; scale 0 equals no adapter."""
    from diffusers.models.transformers.transformer_flux import FluxIPAdapterAttnProcessor
    from diffusers.pipelines.flux.pipeline_flux import FluxPipeline

    from infralens.tiny import tiny_flux_components

    pipe = FluxPipeline(**tiny_flux_components(seed=0)).to(ctx.device)
    pipe.set_progress_bar_config(disable=True)
    embeds = [_randn(1, 1, IMAGE_EMBED_DIM, seed=191, device=ctx.device)]
    negative = [torch.zeros(1, 1, IMAGE_EMBED_DIM, device=ctx.device)]

    def generate(**kwargs) -> torch.Tensor:
        generator = torch.Generator().manual_seed(192)
        with torch.no_grad():
            return pipe("a cat", height=12, width=20, num_inference_steps=2, max_sequence_length=10, output_type="latent", generator=generator, **kwargs).images

    plain = generate()
    with tempfile.TemporaryDirectory() as folder:
        weight_name = write_adapter(flux_adapter_state_dict(pipe.transformer), folder)
        pipe.load_ip_adapter(folder, weight_name=weight_name, image_encoder_pretrained_model_name_or_path=None, local_files_only=True)
    processors = pipe.transformer.attn_processors
    swapped = sum(isinstance(p, FluxIPAdapterAttnProcessor) for p in processors.values())
    ctx.fact("processors swapped", f"{swapped} of {len(processors)}")
    ctx.check(swapped == pipe.transformer.config.num_layers == 2, f"{swapped} Flux IP-Adapter processors, expected one per double block")

    pipe.set_ip_adapter_scale(0.0)
    off = generate(ip_adapter_image_embeds=embeds, negative_ip_adapter_image_embeds=negative)
    pipe.set_ip_adapter_scale([1.0, 0.5])
    scales = [p.scale for p in pipe.transformer.attn_processors.values() if isinstance(p, FluxIPAdapterAttnProcessor)]
    on = generate(ip_adapter_image_embeds=embeds, negative_ip_adapter_image_embeds=negative)
    ctx.fact("scale 0 vs no adapter", _diff(off, plain))
    ctx.fact("scale change", _diff(on, plain))
    ctx.fact("per-layer scales", scales)
    ctx.check(_diff(off, plain) < 1e-6, f"scale 0 differs from the pipeline without adapter by {_diff(off, plain)}")
    ctx.check(_diff(on, plain) > 1e-3, "the adapter did not change the output")
    ctx.check(scales == [[1.0], [0.5]], f"per-layer scales {scales}")
