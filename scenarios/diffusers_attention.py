"""Attention backends and regional compilation in diffusers 0.42.1, on a tiny Flux transformer and a tiny UNet.

``attention-dispatch`` drives ``dispatch_attention_fn`` directly and through models; ``regional-compile`` compiles
the Flux blocks once with ``backend="aot_eager"``. Both restore the process-wide active backend and the checks flag,
which other scenarios of the same worker process share.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "transformers", "diffusers", "diffusers.models.transformers.transformer_flux", "torch._dynamo")


@contextlib.contextmanager
def _registry_restored() -> Iterator[Any]:
    """Yield the dispatch module; put back the active backend and the checks flag afterwards."""
    from diffusers.models import attention_dispatch
    from diffusers.utils import logging as diffusers_logging

    registry = attention_dispatch._AttentionBackendRegistry
    saved = (registry._active_backend, registry._checks_enabled)
    logger = diffusers_logging.get_logger("diffusers.models.modeling_utils")
    level = logger.level
    logger.setLevel(logging.ERROR)  # set/reset_attention_backend warn "experimental" on every call
    try:
        yield attention_dispatch
    finally:
        registry._active_backend, registry._checks_enabled = saved
        logger.setLevel(level)


def _qkv(device: str, batch: int = 1) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(150)
    return tuple(torch.randn(batch, 6, 2, 16, generator=generator).to(device) for _ in range(3))  # type: ignore[return-value]


def flux_inputs(device: str, seed: int = 151) -> dict[str, torch.Tensor]:
    """Inputs for the tiny Flux transformer: 16 image tokens (4x4 latents packed), 8 text tokens."""
    generator = torch.Generator().manual_seed(seed)
    return {
        "hidden_states": torch.randn(1, 16, 4, generator=generator).to(device),
        "encoder_hidden_states": torch.randn(1, 8, 32, generator=generator).to(device),
        "pooled_projections": torch.randn(1, 32, generator=generator).to(device),
        "timestep": torch.tensor([0.5], device=device),
        "img_ids": torch.zeros(16, 3, device=device),
        "txt_ids": torch.zeros(8, 3, device=device),
        "guidance": torch.tensor([3.5], device=device),
    }


def _classic_attention_model_class() -> type:
    from diffusers import ModelMixin
    from diffusers.models.attention_processor import Attention, AttnProcessor2_0

    class ClassicAttentionModel(ModelMixin):
        """One classic ``Attention`` with ``AttnProcessor2_0``, the processor the UNets use."""

        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(153)
            processor: Any = AttnProcessor2_0()
            self.attn = Attention(query_dim=32, heads=2, dim_head=16, processor=processor)

        def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
            return self.attn(hidden_states)

    return ClassicAttentionModel


def _classic_attention_model() -> Any:
    return _classic_attention_model_class()()


def _flux(model: Any, device: str) -> torch.Tensor:
    with torch.no_grad():
        return model(**flux_inputs(device)).sample


def _direct_calls(ctx: ScenarioContext, ad: Any) -> None:
    registry, names = ad._AttentionBackendRegistry, ad.AttentionBackendName
    device = ctx.device
    query, key, value = _qkv(device)
    mask = torch.ones(1, 6, dtype=torch.bool, device=device)
    mask[:, -1] = False  # the last key is padding
    registry._checks_enabled = True
    registry.set_active_backend(names.NATIVE)
    native = ad.dispatch_attention_fn(query, key, value, attn_mask=mask)
    reference = torch.softmax((query.transpose(1, 2) @ key.transpose(1, 2).transpose(-1, -2)) / 4.0 + torch.where(mask, 0.0, float("-inf"))[:, None, None], -1)
    reference = (reference @ value.transpose(1, 2)).transpose(1, 2)
    ctx.check(torch.allclose(native, reference, atol=1e-5), "native backend should equal softmax(QK^T/sqrt(d) + mask) V")
    with ad.attention_backend("_native_math"):
        ctx.check(registry._active_backend is names._NATIVE_MATH, "the context manager should switch the active backend")
        math = ad.dispatch_attention_fn(query, key, value)
    ctx.check(registry._active_backend is names.NATIVE, "leaving attention_backend should restore the previous backend")
    plain = ad.dispatch_attention_fn(query, key, value)
    ctx.fact("native vs _native_math max diff", float((plain - math).abs().max()))
    ctx.check(torch.allclose(plain, math, atol=1e-5), "native and _native_math should agree")
    try:
        ad.dispatch_attention_fn(query, key, value, backend=names._NATIVE_FLASH)
        ctx.check(False, "with checks on, _native_flash should refuse float32")
    except ValueError as error:
        ctx.fact("_native_flash float32, checks on", str(error))
    registry._checks_enabled = False
    if device == "cuda":  # CUDA's flash kernel takes only half types: float32 finds no SDPA kernel there
        halves = [tensor.to(torch.bfloat16) for tensor in (query, key, value)]
        flash = ad.dispatch_attention_fn(*halves, backend=names._NATIVE_FLASH).float()
        ctx.check(torch.allclose(flash, plain, atol=3e-2), "in bfloat16, SDPA's CUDA flash kernel agrees with native float32")
    else:
        flash = ad.dispatch_attention_fn(query, key, value, backend=names._NATIVE_FLASH)
        ctx.check(torch.allclose(flash, plain, atol=1e-5), "with checks off, SDPA's flash kernel runs float32 on CPU")
    try:
        ad.dispatch_attention_fn(query, key, value, backend="flash")
        ctx.check(device == "cuda", "flash-attn is not installed: an explicit backend='flash' should fail")
    except TypeError as error:
        ctx.fact("explicit backend='flash' without flash-attn", str(error))
    for name in ("flash", "sage", "xformers", "native"):
        try:
            ad._check_attention_backend_requirements(names(name))
            ctx.fact(f"requirements of {name}", "met")
        except RuntimeError as error:
            ctx.fact(f"requirements of {name}", str(error).split(".")[0])
    try:
        with ad.attention_backend("flash"):
            pass
        ctx.check(device == "cuda", "attention_backend('flash') should check requirements before switching")
    except RuntimeError:
        ctx.check(registry._active_backend is names.NATIVE, "a refused context manager leaves the backend alone")


def _models(ctx: ScenarioContext, ad: Any) -> None:
    from infralens.tiny import tiny_flux_transformer

    registry, names = ad._AttentionBackendRegistry, ad.AttentionBackendName
    device = ctx.device
    flux = tiny_flux_transformer(seed=152).to(device)
    registry.set_active_backend(names.NATIVE)
    baseline = _flux(flux, device)
    flux.set_attention_backend("_native_math")
    processors = [module.processor for module in flux.modules() if hasattr(module, "processor")]
    ctx.check(len(processors) == 4 and all(p._attention_backend is names._NATIVE_MATH for p in processors), "each Flux processor stores the backend")
    ctx.check(registry._active_backend is names._NATIVE_MATH, "set_attention_backend also sets the global active backend")
    ctx.check(torch.allclose(_flux(flux, device), baseline, atol=1e-5), "_native_math gives the same Flux output")
    flux.reset_attention_backend()
    ctx.check(all(p._attention_backend is None for p in processors), "reset clears the processors")
    ctx.fact("active backend after reset_attention_backend", registry._active_backend.value)
    ctx.check(registry._active_backend is names._NATIVE_MATH, "reset does not restore the global active backend in 0.42.1")

    classic = _classic_attention_model().to(device).eval()
    classic.set_attention_backend("_native_flash")
    ctx.fact("classic processor", type(classic.attn.processor).__name__)
    ctx.check(not hasattr(classic.attn.processor, "_attention_backend"), "AttnProcessor2_0 has no _attention_backend")
    registry._checks_enabled = True  # now any dispatch through _native_flash refuses float32
    tokens = torch.randn(1, 5, 32, generator=torch.Generator().manual_seed(154)).to(device)
    with torch.no_grad():
        out = classic(tokens)
    ctx.check(out.shape == tokens.shape, "AttnProcessor2_0 (every UNet's) calls SDPA itself and never dispatches")
    classic.reset_attention_backend()
    try:
        _flux(flux, device)
        ctx.check(device == "cuda", "Flux dispatches through the active backend and should hit the float32 check")
    except ValueError as error:
        ctx.fact("Flux forward with active _native_flash and checks on", str(error))


@scenario("attention-dispatch", "dispatch_attention_fn native/math/flash, checks; Flux honours, UNet ignores")
def run_attention_dispatch(ctx: ScenarioContext) -> None:
    """dispatch_attention_fn with native/_native_math/_native_flash, attention_backend, requirement checks, Flux vs UNet."""
    with _registry_restored() as ad:
        _direct_calls(ctx, ad)
        _models(ctx, ad)


@scenario("regional-compile", "compile_repeated_blocks (aot_eager) on a tiny Flux: one graph, reused")
def run_regional_compile(ctx: ScenarioContext) -> None:
    """compile_repeated_blocks(backend='aot_eager') on a tiny Flux with 2 double-stream blocks: 2 blocks, 1 graph."""
    import torch._dynamo
    from torch._dynamo.utils import counters

    from infralens.tiny import tiny_flux_transformer

    device = ctx.device
    model = tiny_flux_transformer(seed=155, num_layers=2, num_single_layers=0).to(device)
    with _registry_restored():
        eager = _flux(model, device)
        torch._dynamo.reset()
        counters.clear()
        model.compile_repeated_blocks(backend="aot_eager", fullgraph=True)
        ctx.check(model.transformer_blocks[1]._compiled_call_impl is not None and model._compiled_call_impl is None, "only the blocks are compiled")
        compiled = _flux(model, device)
        graphs = counters["stats"]["unique_graphs"]
        ctx.fact("unique graphs for 2 compiled blocks", graphs)
        ctx.check(graphs == 1, f"two blocks of one class should share one graph, got {graphs}")
        ctx.check(torch.allclose(compiled, eager, atol=1e-5), "aot_eager gives the eager output")
        _flux(model, device)
        ctx.check(counters["stats"]["unique_graphs"] == graphs, "a second call with the same shapes reuses the graphs")
        torch._dynamo.reset()
