"""DiffSynth's quantization counterparts, loaded path-based: QuantizeConfig with torchao, and the fp8 AutoWrappedLinear.

Runs in the ``diffsynth-path`` worker process (see :mod:`infralens.tiny.diffsynth_loader`).
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import io
import sys

import torch

from infralens.scenarios import scenario
from infralens.tiny import ds_tiny_unet, load_diffsynth_module
from infralens.verify import ScenarioContext

PROCESS = "diffsynth-path"
IMPORTS = ("torch", "einops", "diffusers", "torchao.quantization", "infralens.tiny")


def _diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.float() - b.float()).abs().max())


def _unet_inputs(device: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(161)
    latents = torch.randn(1, 4, 6, 10, generator=generator).to(device)
    text = torch.randn(1, 8, 32, generator=generator).to(device)
    return latents, torch.tensor([10], device=device), text


def _unet_output(unet: torch.nn.Module, device: str) -> torch.Tensor:
    with torch.no_grad():
        output = unet(*_unet_inputs(device))
    return (output.sample if hasattr(output, "sample") else output).float()


def _quant_config_module():
    """``core/quant/config.py`` plus the real ``core/quant/backends`` package, whose lazy loader it calls.

    Loading ``backends/torchao.py`` path-based first (as the tracer does for an annotated target) leaves an empty
    ``diffsynth.core.quant.backends`` package in ``sys.modules``; the real one's ``__init__`` is needed.
    """
    config_module = load_diffsynth_module("diffsynth.core.quant.config")
    name = "diffsynth.core.quant.backends"
    if name in sys.modules and not hasattr(sys.modules[name], "load_backend_for_method"):
        del sys.modules[name]
    importlib.import_module(name)
    return config_module


@scenario("diffsynth-quantize", "QuantizeConfig.quantize_model torchao int8/fp8 on DiffSynth's tiny SD UNet")
def run_diffsynth_quantize(ctx: ScenarioContext) -> None:
    """QuantizeConfig.quantize_model on DiffSynth's tiny SD UNet: torchao int8 and fp8 weight-only, attention output excluded."""
    config_module = _quant_config_module()
    unet_module = load_diffsynth_module("diffsynth.models.stable_diffusion_unet")
    device = ctx.device
    unet = ds_tiny_unet(unet_module, seed=16, layers_per_block=1).to(device).eval()
    reference = _unet_output(unet, device)
    linears = sum(isinstance(m, torch.nn.Linear) for m in unet.modules())
    ctx.fact("nn.Linear layers", linears)
    excluded = sum(isinstance(m, torch.nn.Linear) and name.endswith(".to_out.0") for name, m in unet.named_modules())
    ctx.check(excluded == 8, f"the tiny UNet should have 8 attention output Linears, found {excluded}")
    for method, bound in (("torchao_int8_w8a16", 0.05), ("torchao_fp8_w8a16", 0.2)):
        model = copy.deepcopy(unet)
        with contextlib.redirect_stdout(io.StringIO()):
            config = config_module.QuantizeConfig(method=method, exclude_modules=["to_out.0"])
            config.quantize_model(model)
        error = _diff(_unet_output(model, device), reference)
        ctx.fact(f"{method} max error", error)
        ctx.check(0.0 < error < bound, f"{method} output differs from float by {error}")
        quantized = [name for name, m in model.named_modules() if config.is_quantized_linear(m)]
        ctx.check(len(quantized) == linears - excluded, f"{method}: {len(quantized)} of {linears} quantized, expected all but the {excluded} to_out.0")
        ctx.check(quantized and not any(name.endswith(".to_out.0") for name in quantized), f"{method} quantized {quantized}")


@scenario("diffsynth-fp8-linear", "AutoWrappedLinear, float8 storage and compute (torch._scaled_mm, float32 on CPU, bfloat16 on CUDA)")
def run_diffsynth_fp8_linear(ctx: ScenarioContext) -> None:
    """AutoWrappedLinear with float8 storage and float8 computation: torch._scaled_mm runs on CPU too."""
    layers = load_diffsynth_module("diffsynth.core.vram.layers")
    device = ctx.device
    # On CUDA, torch._scaled_mm refuses a bias with a float32 out_dtype, so there the layer runs in bfloat16
    # (DiffSynth's own compute dtype); on CPU it runs in float32.
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    torch.manual_seed(162)
    linear = torch.nn.Linear(64, 32).to(device, dtype)
    inputs = torch.randn(2, 3, 64, generator=torch.Generator().manual_seed(163)).to(device, dtype)
    with torch.no_grad():
        reference = linear(inputs)
    fp8 = torch.float8_e4m3fn
    placement = dict(
        offload_dtype=fp8,
        offload_device="cpu",
        onload_dtype=fp8,
        onload_device=device,
        preparing_dtype=fp8,
        preparing_device=device,
        computation_dtype=fp8,
        computation_device=device,
    )
    wrapped = layers.AutoWrappedLinear(linear, **placement)
    wrapped.offload()
    wrapped.onload()
    ctx.check(wrapped.enable_fp8 and wrapped.weight.dtype == fp8, "the wrapped weight should be stored in float8")
    with torch.no_grad():
        output = wrapped(inputs)
        large = wrapped(inputs * 1000.0)
    error = _diff(output, reference)
    ctx.fact("fp8 linear max error", error)
    ctx.check(output.dtype == dtype and output.shape == (2, 3, 32), f"fp8 output {output.dtype} {tuple(output.shape)}")
    ctx.check(0.0 < error < 0.2, f"fp8 linear differs from float by {error}")
    ctx.check(bool(torch.isfinite(large).all()), "scaled inputs above the float8 range should stay finite")
