"""Lab 18 starter: IP-Adapter loading — processor swap, image projection and scales in diffusers (SD, Flux) and DiffSynth.

Run:  .venv/bin/python labs/lab-18-ip-adapter/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Writes a tiny IP-Adapter checkpoint (random weights, the original key layout) into a temporary folder, loads it
into a tiny Stable Diffusion pipeline without an image encoder, and passes image embeddings directly. It prints
which processors were swapped and which checkpoint entry each got, the image-token shapes, what scale 0 and a
per-block scale do, and that unloading restores the plain pipeline. Then the same for a tiny Flux pipeline, and
DiffSynth's FluxIpAdapter on the same footing. ``--check`` recomputes the answers to the exercises in index.md.
"""

from __future__ import annotations

import sys
import tempfile
import warnings

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "sd_ip_processors": None,
    "first_up_key_id": None,
    "mid_key_id": None,
    "image_tokens_shape": None,
    "scale_zero_exact": None,
    "style_scales": None,
    "unload_exact": None,
    "flux_ip_processors": None,
    "flux_missing_negative_error": None,
    "diffsynth_kv_blocks": None,
    "diffsynth_ip_k_shape": None,
    "diffsynth_negative_scale": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"style_scales": Decimals(1), "diffsynth_negative_scale": Decimals(1)}


def diff(a, b) -> float:
    return float((a.float() - b.float()).abs().max())


def show_sd(device: str, steps: int) -> dict:
    import torch
    from diffusers import StableDiffusionPipeline
    from diffusers.models.attention_processor import IPAdapterAttnProcessor2_0

    from infralens.tiny import tiny_sd_components
    from infralens.tiny.ip_adapter import IMAGE_EMBED_DIM, sd_adapter_state_dict, write_adapter

    print("== 1. Stable Diffusion: load_ip_adapter(image_encoder_folder=None)")
    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False).to(device)
    pipe.set_progress_bar_config(disable=True)
    embeds = [torch.randn(2, 1, IMAGE_EMBED_DIM, generator=torch.Generator().manual_seed(181)).to(device)]

    def generate(**kwargs):
        generator = torch.Generator().manual_seed(182)
        with torch.no_grad():
            return pipe("a cat", height=16, width=16, num_inference_steps=steps, guidance_scale=6.0, output_type="latent", generator=generator, **kwargs).images

    plain = generate()
    state = sd_adapter_state_dict(pipe.unet)
    with tempfile.TemporaryDirectory() as folder:
        pipe.load_ip_adapter(folder, subfolder="", weight_name=write_adapter(state, folder), image_encoder_folder=None)
    processors = pipe.unet.attn_processors
    ip_names = [name for name, p in processors.items() if isinstance(p, IPAdapterAttnProcessor2_0)]
    # Which checkpoint entry did each processor receive? Match the loaded weight against the file's tensors.
    key_ids = {}
    for name in ip_names:
        loaded = processors[name].to_k_ip[0].weight
        key_ids[name] = next(
            int(key.split(".")[1]) for key, value in state.items() if key.endswith("to_k_ip.weight") and torch.equal(value.to(loaded.device), loaded)
        )
    print(f"  IP-Adapter processors: {reveal(len(ip_names))} of {len(processors)}; checkpoint entry per layer, in attn_processors order:")
    for name in ip_names:
        asked = name.startswith(("up_blocks.0.attentions.0.", "mid_block."))  # the exercises ask for these two
        print(f"    ip_adapter.{reveal(key_ids[name]) if asked else key_ids[name]:<2} -> {name.removesuffix('.processor')}")
    with torch.no_grad():
        tokens = pipe.unet.encoder_hid_proj(embeds)[0]
    print(f"  image embeds {tuple(embeds[0].shape)} -> image tokens {reveal(tuple(tokens.shape))}")

    pipe.set_ip_adapter_scale(0.0)
    off = generate(ip_adapter_image_embeds=embeds)
    pipe.set_ip_adapter_scale(1.0)
    on = generate(ip_adapter_image_embeds=embeds)
    print(f"  scale 0: max |diff| vs no adapter = {reveal(diff(off, plain))}; scale 1: {diff(on, plain):.3f}")
    pipe.set_ip_adapter_scale({"up": {"block_0": [0.0, 1.0, 0.0]}})
    style = [pipe.unet.attn_processors[name].scale[0] for name in ip_names]
    print(f"  set_ip_adapter_scale({{'up': {{'block_0': [0.0, 1.0, 0.0]}}}}) -> {reveal(style)}")
    pipe.unload_ip_adapter()
    back = generate()
    print(f"  after unload_ip_adapter: max |diff| vs no adapter = {reveal(diff(back, plain))}")
    return {
        "sd_ip_processors": len(ip_names),
        "first_up_key_id": key_ids["up_blocks.0.attentions.0.transformer_blocks.0.attn2.processor"],
        "mid_key_id": key_ids["mid_block.attentions.0.transformer_blocks.0.attn2.processor"],
        "image_tokens_shape": list(tokens.shape),
        "scale_zero_exact": diff(off, plain) == 0.0,
        "style_scales": style,
        "unload_exact": diff(back, plain) == 0.0,
    }


def show_flux(device: str, steps: int) -> dict:
    import torch
    from diffusers import FluxPipeline
    from diffusers.models.transformers.transformer_flux import FluxIPAdapterAttnProcessor

    from infralens.tiny import tiny_flux_components
    from infralens.tiny.ip_adapter import IMAGE_EMBED_DIM, flux_adapter_state_dict, write_adapter

    print("== 2. Flux: load_ip_adapter(image_encoder_pretrained_model_name_or_path=None)")
    pipe = FluxPipeline(**tiny_flux_components(seed=0)).to(device)
    pipe.set_progress_bar_config(disable=True)
    with tempfile.TemporaryDirectory() as folder:
        name = write_adapter(flux_adapter_state_dict(pipe.transformer), folder)
        pipe.load_ip_adapter(folder, weight_name=name, image_encoder_pretrained_model_name_or_path=None)
    processors = pipe.transformer.attn_processors
    swapped = [n for n, p in processors.items() if isinstance(p, FluxIPAdapterAttnProcessor)]
    print(f"  IP-Adapter processors: {reveal(len(swapped))} of {len(processors)}: {reveal([n.removesuffix('.attn.processor') for n in swapped])}")
    embeds = [torch.randn(1, 1, IMAGE_EMBED_DIM, generator=torch.Generator().manual_seed(191)).to(device)]
    try:
        with torch.no_grad():
            pipe("a cat", height=16, width=16, num_inference_steps=steps, max_sequence_length=16, output_type="latent", ip_adapter_image_embeds=embeds)
        error = "none"
        print("  ip_adapter_image_embeds without negative_ip_adapter_image_embeds -> no error")
    except Exception as caught:  # the point of the exercise: which error, raised where
        error = type(caught).__name__
        print(f"  ip_adapter_image_embeds without negative_ip_adapter_image_embeds -> {reveal(f'{error}: {caught}')}")
    return {"flux_ip_processors": len(swapped), "flux_missing_negative_error": error}


def show_diffsynth(device: str) -> dict:
    import torch
    from PIL import Image

    from infralens.tiny import import_full_diffsynth
    from infralens.tiny.ip_adapter import StandInImageEncoder

    import_full_diffsynth()
    from diffsynth.models.flux_ipadapter import FluxIpAdapter
    from diffsynth.pipelines.flux_image import FluxImagePipeline, FluxImageUnit_IPAdapter

    print("== 3. DiffSynth: FluxImageUnit_IPAdapter.process with a FluxIpAdapter of 2 blocks, 4 tokens per image")
    torch.manual_seed(184)
    pipe = FluxImagePipeline(device=device, torch_dtype=torch.float32)
    pipe.ipadapter = FluxIpAdapter(num_attention_heads=2, attention_head_dim=32, cross_attention_dim=24, num_tokens=4, num_blocks=2).to(device).eval()
    pipe.ipadapter_image_encoder = StandInImageEncoder().to(device).eval()
    pictures = [Image.new("RGB", (20, 24), colour) for colour in ("red", "blue")]
    shared = {"ipadapter_images": pictures, "ipadapter_scale": 0.6, "cfg_scale": 3.0}
    with torch.no_grad():
        _, posi, nega = FluxImageUnit_IPAdapter().process(pipe, shared, {}, {})
    kv = posi["ipadapter_kwargs_list"]
    shape = list(kv[0]["ip_k"].shape)
    print(
        f"  K/V for blocks {reveal(sorted(kv))}; ip_k {reveal(tuple(shape))}; scale {kv[0]['scale']} "
        f"(negative pass: {reveal(nega['ipadapter_kwargs_list'][0]['scale'])})"
    )
    return {"diffsynth_kv_blocks": len(kv), "diffsynth_ip_k_shape": shape, "diffsynth_negative_scale": nega["ipadapter_kwargs_list"][0]["scale"]}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="denoising steps of each tiny pipeline call").parse_args(argv)
    device = setup_torch(args.device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        answers = show_sd(device, args.steps)
        answers.update(show_flux(device, args.steps))
    answers.update(show_diffsynth(device))
    return finish(args, ANSWERS, answers, tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
