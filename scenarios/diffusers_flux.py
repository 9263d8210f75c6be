"""Flux in diffusers: ``FluxPipeline`` on the tiny Flux components, plain and with true CFG."""

from __future__ import annotations

from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers", "diffusers.pipelines.flux.pipeline_flux", "infralens.tiny")


class _TransformerCalls:
    """Forward pre-hook recording the batch size and the ``timestep`` keyword of each transformer call."""

    def __init__(self, module: torch.nn.Module) -> None:
        self.calls: list[tuple[int, float]] = []
        self.handle = module.register_forward_pre_hook(self._hook, with_kwargs=True)

    def _hook(self, module, args, kwargs) -> None:
        self.calls.append((int(kwargs["hidden_states"].shape[0]), round(float(kwargs["timestep"].flatten()[0]), 4)))


@scenario("tiny-flux", "tiny FluxPipeline 16x24, 10 text tokens, 2 steps, guidance 3.5; then negative_prompt with true_cfg_scale 4.0")
def run_tiny_flux(ctx: ScenarioContext) -> None:
    """``FluxPipeline`` at 16 high, 24 wide (an 8x12 packed grid of 96 tokens) with 10 T5 tokens, 2 steps, guidance 3.5:
    once plain, once with ``negative_prompt`` and true CFG 4.0."""
    from diffusers import FluxPipeline

    from infralens.tiny import tiny_flux_components

    pipe: Any = FluxPipeline(**tiny_flux_components(seed=0))
    pipe = pipe.to(ctx.device)
    pipe.set_progress_bar_config(disable=True)
    calls = _TransformerCalls(pipe.transformer)
    common = dict(height=16, width=24, num_inference_steps=2, max_sequence_length=10, guidance_scale=3.5, output_type="np")
    plain = pipe("a red cat", generator=ctx.generator(0), **common).images
    ctx.fact("transformer calls, plain (batch, t/1000)", list(calls.calls))
    ctx.check(len(calls.calls) >= 2 and all(batch == 1 for batch, _ in calls.calls), f"expected batch-1 transformer calls, got {calls.calls}")
    ctx.check(plain.shape == (1, 16, 24, 3), f"image shape {plain.shape}, expected (1, 16, 24, 3)")
    calls.calls.clear()
    guided = pipe("a red cat", negative_prompt="blurry", true_cfg_scale=4.0, generator=ctx.generator(0), **common).images
    ctx.fact("transformer calls, true CFG (batch, t/1000)", list(calls.calls))
    # verify's expects may call the transformer once more per step, so the count is a fact, not a check
    ctx.check(len(calls.calls) >= 4 and all(batch == 1 for batch, _ in calls.calls), f"true CFG should make 2 batch-1 calls per step, got {calls.calls}")
    change = float(abs(guided - plain).max())
    ctx.fact("true CFG image change", change)
    ctx.check(change > 0, "true CFG with a negative prompt did not change the image")
    calls.handle.remove()


@scenario("tiny-flux-wide", "tiny FluxPipeline, 2 prompts, 16x32 (height != width), 10 text tokens, 1 step, guidance 3.5")
def run_tiny_flux_wide(ctx: ScenarioContext) -> None:
    """``FluxPipeline`` on two prompts at 16 high, 32 wide: an 8x16 packed grid of 128 tokens per image, 10 T5 tokens."""
    from diffusers import FluxPipeline

    from infralens.tiny import tiny_flux_components

    pipe: Any = FluxPipeline(**tiny_flux_components(seed=0))
    pipe = pipe.to(ctx.device)
    pipe.set_progress_bar_config(disable=True)
    calls = _TransformerCalls(pipe.transformer)
    image = pipe(
        ["a red cat", "a dog"],
        height=16,
        width=32,
        num_inference_steps=1,
        max_sequence_length=10,
        guidance_scale=3.5,
        output_type="np",
        generator=ctx.generator(0),
    ).images
    calls.handle.remove()
    ctx.fact("transformer calls (batch, t/1000)", list(calls.calls))
    ctx.check(image.shape == (2, 16, 32, 3), f"image shape {image.shape}, expected (2, 16, 32, 3)")
    ctx.check(len(calls.calls) >= 1 and all(batch == 2 for batch, _ in calls.calls), f"expected batch-2 transformer calls, got {calls.calls}")
