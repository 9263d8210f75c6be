"""Scenario variants for issue 39 (blitz 3): the parent scenarios' runs, with forward pre-hooks that keep each
watched layer's last input on the layer (``module._blitz_input``, and ``_blitz_kwargs`` for a keyword call).

A statement such as ``sample = self.conv_in(sample)`` overwrites its only input, so an expect in that frame has
nothing to recompute the result from; with the input kept on the layer it can redo the layer's arithmetic with
plain functions and compare.
"""

from __future__ import annotations

from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.tiny import tiny_controlnet, tiny_dit, tiny_sd3, tiny_sd_components
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers")


def _keep_inputs(*modules: torch.nn.Module) -> list[Any]:
    """Register hooks on each module that store its first positional input, its keyword inputs and its output on
    it (``_blitz_input``, ``_blitz_kwargs``, ``_blitz_output``)."""

    def pre_hook(module, args, kwargs) -> None:
        module._blitz_input = args[0] if args else None
        module._blitz_kwargs = dict(kwargs)

    def post_hook(module, args, output) -> None:
        module._blitz_output = output

    handles = [module.register_forward_pre_hook(pre_hook, with_kwargs=True) for module in modules]
    return handles + [module.register_forward_hook(post_hook) for module in modules]


@scenario("blitz3-sd-inputs", "tiny StableDiffusionPipeline 32x48, DDIM, CFG 6.0, 2 steps; the UNet, conv_in and conv_out keep their inputs")
def run_blitz3_sd_inputs(ctx: ScenarioContext) -> None:
    """The tiny-sd-ddim run (2 steps): the UNet's call keywords and the inputs of ``conv_in`` and ``conv_out``
    are kept on those modules, so the UNet's frame can recompute what those lines produce."""
    from diffusers import StableDiffusionPipeline

    pipe: Any = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    pipe = pipe.to(ctx.device)
    handles = _keep_inputs(pipe.unet, pipe.unet.conv_in, pipe.unet.conv_out)
    image = pipe("a cat", height=32, width=48, num_inference_steps=2, guidance_scale=6.0, output_type="np", generator=ctx.generator(0)).images
    for handle in handles:
        handle.remove()
    ctx.check(image.shape == (1, 32, 48, 3), f"image shape {image.shape}, expected (1, 32, 48, 3)")


@scenario("blitz3-controlnet-inputs", "tiny ControlNetModel.from_unet, 24x40 latent, hint embedding made non-zero; conv_in keeps its input")
def run_blitz3_controlnet_inputs(ctx: ScenarioContext) -> None:
    """One ControlNet forward on a 24x40 latent whose hint embedding's last conv is re-initialised away from zero,
    so the hint term added after ``conv_in`` is non-zero; ``conv_in`` keeps its input."""
    components = tiny_sd_components(seed=0)
    controlnet = tiny_controlnet(components["unet"]).to(ctx.device)
    torch.manual_seed(5)
    torch.nn.init.normal_(controlnet.controlnet_cond_embedding.conv_out.weight, std=0.1)
    generator = torch.Generator().manual_seed(4)
    latents = torch.randn(1, 4, 24, 40, generator=generator).to(ctx.device)
    text = torch.randn(1, 77, 32, generator=generator).to(ctx.device)
    hint = torch.rand(1, 3, 48, 80, generator=generator).to(ctx.device)
    handles = _keep_inputs(controlnet.conv_in)
    with torch.no_grad():
        down, mid = controlnet(latents, 10, encoder_hidden_states=text, controlnet_cond=hint, return_dict=False)
    for handle in handles:
        handle.remove()
    ctx.check(len(down) >= 1 and mid.shape[0] == 1, "ControlNet returned no residuals")


def _randn(*shape: int, seed: int, device: str) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(device)


@scenario(
    "blitz3-dit-inputs",
    "DiT (8x8) and SD3 (6x10) transformer forwards as in dit-forward; pos_embed, proj_out_2 and context_embedder keep their inputs and outputs",
)
def run_blitz3_dit_inputs(ctx: ScenarioContext) -> None:
    """The DiT and SD3 forwards of ``dit-forward`` (same inputs), with the patch embedders, DiT's last linear and
    SD3's context embedder keeping what they were given and what they returned."""
    device = ctx.device
    square = _randn(2, 4, 8, 8, seed=12, device=device)
    latents = _randn(2, 4, 6, 10, seed=22, device=device)
    timestep = torch.tensor([1, 500], device=device)
    with torch.no_grad():
        dit = tiny_dit().to(device)
        sd3 = tiny_sd3().to(device)
        handles = _keep_inputs(dit.pos_embed, dit.proj_out_2, sd3.pos_embed, sd3.context_embedder)
        out = dit(square, timestep=timestep, class_labels=torch.tensor([3, 7], device=device)).sample
        ctx.check(out.shape == (2, 8, 8, 8), f"DiT output {tuple(out.shape)}, expected (2, 8, 8, 8)")
        out = sd3(
            latents, encoder_hidden_states=_randn(2, 5, 32, seed=14, device=device), pooled_projections=_randn(2, 64, seed=15, device=device), timestep=timestep
        ).sample
        ctx.check(out.shape == (2, 4, 6, 10), f"SD3 output {tuple(out.shape)}")
    for handle in handles:
        handle.remove()


@scenario(
    "blitz3-flux-inputs",
    "tiny FluxPipeline 16x24, 10 text tokens, 2 steps, guidance 3.5; every transformer block keeps its keyword inputs, "
    "a step-end callback keeps the packed latents",
)
def run_blitz3_flux_inputs(ctx: ScenarioContext) -> None:
    """The plain ``tiny-flux`` run: each double- and single-stream block keeps the keywords it was called with, and
    ``callback_on_step_end`` keeps the last step's packed latents on the pipeline (``pipe._blitz_latents``), the
    tensor the pipeline unpacks after the loop."""
    from diffusers import FluxPipeline

    from infralens.tiny import tiny_flux_components

    pipe: Any = FluxPipeline(**tiny_flux_components(seed=0))
    pipe = pipe.to(ctx.device)
    pipe.set_progress_bar_config(disable=True)
    handles = _keep_inputs(*pipe.transformer.transformer_blocks, *pipe.transformer.single_transformer_blocks)

    def keep_latents(pipeline, step, timestep, callback_kwargs):
        pipeline._blitz_latents = callback_kwargs["latents"]
        return {}

    image = pipe(
        "a red cat",
        height=16,
        width=24,
        num_inference_steps=2,
        max_sequence_length=10,
        guidance_scale=3.5,
        output_type="np",
        generator=ctx.generator(0),
        callback_on_step_end=keep_latents,
        callback_on_step_end_tensor_inputs=["latents"],
    ).images
    for handle in handles:
        handle.remove()
    ctx.check(image.shape == (1, 16, 24, 3), f"image shape {image.shape}, expected (1, 16, 24, 3)")
    ctx.check(getattr(pipe, "_blitz_latents", None) is not None, "the step-end callback never ran")


@scenario("blitz3-ip-adapter-inputs", "Attention with IPAdapterAttnProcessor2_0 at scale 1 (as in ip-adapter); the layer keeps its call keywords")
def run_blitz3_ip_adapter_inputs(ctx: ScenarioContext) -> None:
    """The ``ip-adapter`` layer at scale 1, called with ``(text, [image tokens])``; the ``Attention`` module keeps the
    keywords of its call, so the processor's frame can compare what it unpacked with what was passed."""
    from diffusers.models.attention_processor import Attention, IPAdapterAttnProcessor2_0

    torch.manual_seed(6)
    attention = Attention(query_dim=32, cross_attention_dim=24, heads=2, dim_head=16).to(ctx.device)
    processor = IPAdapterAttnProcessor2_0(hidden_size=32, cross_attention_dim=24, num_tokens=(4,), scale=1.0).to(ctx.device)
    hidden = _randn(1, 12, 32, seed=7, device=ctx.device)
    text = _randn(1, 77, 24, seed=8, device=ctx.device)
    image_tokens = _randn(1, 4, 24, seed=9, device=ctx.device)
    attention.set_processor(processor)
    handles = _keep_inputs(attention)
    with torch.no_grad():
        out = attention(hidden, encoder_hidden_states=(text, [image_tokens]))
    for handle in handles:
        handle.remove()
    ctx.check(out.shape == (1, 12, 32), f"IP-Adapter attention output {tuple(out.shape)}")
