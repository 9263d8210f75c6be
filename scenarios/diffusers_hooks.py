"""diffusers' hook system on tiny models: HookRegistry, group offloading (memory and disk), First Block Cache."""

from __future__ import annotations

import os
import tempfile

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers", "diffusers.hooks", "diffusers.models.transformers.transformer_flux", "safetensors.torch")


def flux_inputs(device: str, timestep: float = 0.9, seed: int = 170) -> dict[str, torch.Tensor]:
    """One fixed input for the tiny Flux transformer (16 image tokens of 4 channels, 8 text tokens)."""
    generator = torch.Generator().manual_seed(seed)
    return dict(
        hidden_states=torch.randn(1, 16, 4, generator=generator).to(device),
        encoder_hidden_states=torch.randn(1, 8, 32, generator=generator).to(device),
        pooled_projections=torch.randn(1, 32, generator=generator).to(device),
        timestep=torch.tensor([timestep], device=device),
        guidance=torch.tensor([3.5], device=device),
        img_ids=torch.zeros(16, 3, device=device),
        txt_ids=torch.zeros(8, 3, device=device),
    )


def flux_run(model: torch.nn.Module, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
    with torch.no_grad():
        return model(**inputs).sample


def count_block_bodies(model: torch.nn.Module) -> list[str]:
    """Forward pre-hooks on each block's ``attn``: they fire only when the block's own forward body runs.

    A hook on the block itself would fire even when a cache hook skips the body (the diffusers hook replaces
    ``forward``, and ``nn.Module.__call__`` still runs the block's own torch hooks first)."""
    calls: list[str] = []
    for prefix in ("transformer_blocks", "single_transformer_blocks"):
        for index, block in enumerate(getattr(model, prefix)):
            block.attn.register_forward_pre_hook(lambda module, args, name=f"{prefix}.{index}": calls.append(name))
    return calls


def _make_hooks():
    """Two ModelHook subclasses made at run time (diffusers is imported lazily): an affine pre/post hook and a negating new_forward."""
    from diffusers.hooks import ModelHook

    class AffineHook(ModelHook):
        def __init__(self, scale: float, shift: float) -> None:
            super().__init__()
            self.scale, self.shift = scale, shift

        def pre_forward(self, module, *args, **kwargs):
            return (args[0] * self.scale,), kwargs

        def post_forward(self, module, output):
            return output + self.shift

    class NegateHook(ModelHook):
        def new_forward(self, module, *args, **kwargs):
            return -self.fn_ref.original_forward(*args, **kwargs)

    return AffineHook, NegateHook


@scenario("model-hooks", "HookRegistry on a Linear: 3 chained hooks (one new_forward) removed; the new_forward bypass trap")
def run_model_hooks(ctx: ScenarioContext) -> None:
    """HookRegistry on one Linear: three chained hooks (one with new_forward), removed from the front twice, then the last."""
    from diffusers.hooks import HookRegistry

    affine, negate = _make_hooks()
    device = ctx.device
    torch.manual_seed(171)
    layer = torch.nn.Linear(4, 4).to(device).eval()
    x = torch.randn(2, 4, generator=torch.Generator().manual_seed(172)).to(device)
    linear = torch.nn.functional.linear
    with torch.no_grad():
        plain = layer(x)
        registry = HookRegistry.check_if_exists_or_initialize(layer)
        ctx.check(HookRegistry.check_if_exists_or_initialize(layer) is registry, "a second call should return the same registry")
        registry.register_hook(negate(), "negate")
        registry.register_hook(affine(2.0, 0.0), "double")
        registry.register_hook(affine(1.0, 1.0), "shift")
        ctx.check(torch.allclose(layer(x), 1 - linear(2 * x, layer.weight, layer.bias), atol=1e-5), "the chain should compute 1 - layer(2x)")
        try:
            registry.register_hook(affine(3.0, 0.0), "double")
            ctx.check(False, "a second hook named 'double' should be refused")
        except ValueError:
            pass
        registry.remove_hook("double")
        ctx.check(torch.allclose(layer(x), 1 - plain, atol=1e-6), "without 'double' the chain should compute 1 - layer(x)")
        registry.remove_hook("negate")
        ctx.check(torch.allclose(layer(x), plain + 1, atol=1e-6), "without 'negate' only the +1 should remain")
        registry.remove_hook("shift")
        ctx.check(torch.equal(layer(x), plain), "with every hook removed the layer should be plain again")

        # The trap: removing the hook right below a new_forward hook also bypasses that hook in 0.42.1.
        other = torch.nn.Linear(4, 4).to(device).eval()
        other_plain = other(x)
        trap = HookRegistry.check_if_exists_or_initialize(other)
        trap.register_hook(affine(2.0, 0.0), "double")
        trap.register_hook(negate(), "negate")
        trap.register_hook(affine(1.0, 1.0), "shift")
        trap.remove_hook("double")
        bypassed = torch.allclose(other(x), other_plain + 1, atol=1e-6)
        ctx.fact("negate bypassed after removing the hook below it", bypassed)
        ctx.check(bypassed, "removing 'double' below a new_forward hook should leave only the +1 (negate bypassed)")
    ctx.fact("hooks left", len(registry.hooks))


@scenario("group-offload", "tiny Flux group offload: leaf level in memory, block level on disk; use_stream on CPU refused, streams on CUDA")
def run_group_offload(ctx: ScenarioContext) -> None:
    """Group offloading of the tiny Flux transformer: leaf level in memory, block level through safetensors files."""
    from diffusers.hooks import apply_group_offloading

    from infralens.tiny import tiny_flux_transformer

    device = ctx.device
    inputs = flux_inputs(device)
    reference = flux_run(tiny_flux_transformer(seed=17).to(device), inputs)

    leaves = tiny_flux_transformer(seed=17)
    apply_group_offloading(leaves, onload_device=device, offload_device="cpu", offload_type="leaf_level")
    ctx.check(leaves.transformer_blocks[0].attn.to_q.weight.device.type == "cpu", "leaf weights should wait on the CPU")
    error = float((flux_run(leaves, inputs) - reference).abs().max())
    ctx.fact("leaf-level max error", error)
    ctx.check(error < 1e-5, f"leaf-level offloading changed the output by {error}")

    with tempfile.TemporaryDirectory() as folder:
        blocks = tiny_flux_transformer(seed=17)
        blocks.enable_group_offload(onload_device=device, offload_type="block_level", num_blocks_per_group=1, offload_to_disk_path=folder)
        files = len(os.listdir(folder))
        ctx.fact("safetensors files (block level, 1 block per group)", files)
        ctx.check(files == 5, f"4 block groups and the root's group should write 5 files, found {files}")
        error = float((flux_run(blocks, inputs) - reference).abs().max())
        ctx.fact("disk round-trip max error", error)
        ctx.check(error < 1e-5, f"the disk round trip changed the output by {error}")

    try:  # on any machine: a CPU onload device has no streams
        apply_group_offloading(torch.nn.Sequential(torch.nn.Linear(2, 2)), onload_device="cpu", num_blocks_per_group=1, use_stream=True)
        ctx.check(False, "use_stream=True with a CPU onload device should raise ValueError")
    except ValueError:
        pass
    if device == "cuda":
        streamed = tiny_flux_transformer(seed=17)
        apply_group_offloading(streamed, onload_device=device, offload_type="block_level", num_blocks_per_group=1, use_stream=True, record_stream=True)
        error = float((flux_run(streamed, inputs) - reference).abs().max())
        ctx.check(error < 1e-5, f"streamed offloading changed the output by {error}")


@scenario("block-caching", "First Block Cache (threshold 0.5) on tiny Flux: 4 then 1 block bodies; disable_cache is exact")
def run_block_caching(ctx: ScenarioContext) -> None:
    """First Block Cache on the tiny Flux transformer: the second call skips every block after the first; disable_cache restores it."""
    from diffusers.hooks import FirstBlockCacheConfig

    from infralens.tiny import tiny_flux_transformer

    device = ctx.device
    model = tiny_flux_transformer(seed=17).to(device)
    calls = count_block_bodies(model)
    first, second = flux_inputs(device, 0.9), flux_inputs(device, 0.85)
    reference, reference_second = flux_run(model, first), flux_run(model, second)
    ctx.check(len(calls) == 8, f"two plain calls should run 4 block bodies each, ran {len(calls)}")
    calls.clear()

    model.enable_cache(FirstBlockCacheConfig(threshold=0.5))
    try:
        flux_run(model, first)
        ctx.check(False, "a cached model called outside cache_context should raise ValueError")
    except ValueError:
        pass
    calls.clear()
    with model.cache_context("cond"):
        cached_first = flux_run(model, first)
    ran_first = list(calls)
    calls.clear()
    with model.cache_context("cond"):
        cached_second = flux_run(model, second)
    ran_second = list(calls)
    calls.clear()
    ctx.fact("blocks run, call 1 / call 2", f"{len(ran_first)} / {len(ran_second)}")
    ctx.check(len(ran_first) == 4 and ran_second == ["transformer_blocks.0"], f"expected 4 then 1 block bodies, got {ran_first} / {ran_second}")
    ctx.check(torch.equal(cached_first, reference), "the first cached call computes every block and should equal the plain run")
    skipped_error = float((cached_second - reference_second).abs().max())
    ctx.fact("skipped call max error", skipped_error)
    ctx.check(skipped_error > 1e-4, "the skipped call reuses old residuals, so it should differ from the full computation")

    model.disable_cache()
    ctx.check(torch.equal(flux_run(model, second), reference_second), "after disable_cache the output should equal the uncached run exactly")
