"""Lab 16 starter: quantization and precision — torchao, GGUF, quanto, layerwise casting; DiffSynth's QuantizeConfig and fp8 linear.

Run:  .venv/bin/python labs/lab-16-quantization/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds a tiny Flux transformer from a config, saves it into a temporary folder and loads it back through
diffusers' quantizers (torchao int8 weight-only, a Q8_0 GGUF file written here, optimum-quanto int8), then
applies layerwise casting with float8 storage. Each output is compared with the float model's. It shows
which config DiffusersAutoQuantizer picks, which layers each back end leaves in float, what a Q8_0 block
holds, and DiffSynth's QuantizeConfig and float8 AutoWrappedLinear on the same footing. ``--check``
recomputes the answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "string_quant_type_error": None,
    "bnb_8bit_quantizer_class": None,
    "torchao_float_linears": None,
    "int8_weight_class": None,
    "q8_0_block_bytes": None,
    "q8_0_weight_bytes_shape": None,
    "gguf_dequant_dtype": None,
    "quanto_float_linears": None,
    "layerwise_float32_linears": None,
    "layerwise_repeat_exact": None,
    "int8_error_below_fp8_storage": None,
    "diffsynth_quantized_linears": None,
    "fp8_activation_scale_small_rows": None,
    "cost_flux_fp8_t5_bf16_peak_gib": None,
    "cost_flux_fp8_layerwise_bits_per_param": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"fp8_activation_scale_small_rows": Decimals(2)}


def diff(a, b) -> float:
    return float((a.float() - b.float()).abs().max())


class FluxProbe:
    """One fixed input for the tiny Flux transformer; ``run(model)`` returns its prediction."""

    def __init__(self, device: str):
        import torch

        generator = torch.Generator().manual_seed(160)
        self.inputs = dict(
            hidden_states=torch.randn(1, 16, 4, generator=generator).to(device),
            encoder_hidden_states=torch.randn(1, 8, 32, generator=generator).to(device),
            pooled_projections=torch.randn(1, 32, generator=generator).to(device),
            timestep=torch.tensor([0.5], device=device),
            guidance=torch.tensor([3.5], device=device),
            img_ids=torch.zeros(16, 3, device=device),
            txt_ids=torch.zeros(8, 3, device=device),
        )

    def run(self, model):
        import torch

        with torch.no_grad():
            return model(**self.inputs).sample.float()


def float_linears(model) -> list[str]:
    import torch

    return [name for name, m in model.named_modules() if type(m) is torch.nn.Linear and type(m.weight) is torch.nn.Parameter]


def show_configs() -> dict:
    from diffusers import BitsAndBytesConfig, TorchAoConfig
    from diffusers.quantizers.auto import DiffusersAutoQuantizer

    print("== 1. Configs and DiffusersAutoQuantizer.from_config")
    try:
        TorchAoConfig("int8wo")  # type: ignore[arg-type]
        error = "none"
    except TypeError as caught:
        error = type(caught).__name__
        print(f"  TorchAoConfig('int8wo') -> {reveal(f'{error}: {caught}')}")
    quantizer = DiffusersAutoQuantizer.from_config(BitsAndBytesConfig(load_in_8bit=True))
    print(f"  BitsAndBytesConfig(load_in_8bit=True) -> {reveal(type(quantizer).__name__)}")
    try:
        quantizer.validate_environment()
        print("  validate_environment passed (an accelerator is present)")
    except (RuntimeError, ImportError) as caught:
        print(f"  validate_environment: {caught}")
    return {"string_quant_type_error": error, "bnb_8bit_quantizer_class": type(quantizer).__name__}


def show_torchao(folder: str, probe: FluxProbe, reference, device: str) -> dict:
    import torch
    from diffusers import FluxTransformer2DModel, TorchAoConfig
    from torchao.quantization import Int8WeightOnlyConfig

    print("== 2. torchao int8 weight-only, modules_to_not_convert=['proj_out']")
    config = TorchAoConfig(Int8WeightOnlyConfig(), modules_to_not_convert=["proj_out"])
    model = FluxTransformer2DModel.from_pretrained(folder, quantization_config=config, torch_dtype=torch.float32).to(device).eval()
    error = diff(probe.run(model), reference)
    kept = float_linears(model)
    weight = model.transformer_blocks[0].ff.net[2].weight
    print(f"  Linear weights still float: {reveal(len(kept))} {reveal(kept)}")
    print(f"  transformer_blocks.0.ff.net.2.weight is {reveal(type(weight).__name__)}; output max |diff| vs float = {reveal(error, '.2e')}")
    return {"torchao_float_linears": len(kept), "int8_weight_class": type(weight).__name__, "int8_error": error}


def show_gguf(folder: str, float_model, probe: FluxProbe, reference, device: str) -> dict:
    import gguf
    import torch
    from diffusers import FluxTransformer2DModel, GGUFQuantizationConfig
    from diffusers.quantizers.gguf.utils import dequantize_gguf_tensor

    from infralens.tiny import write_q8_0_gguf

    print("== 3. GGUF Q8_0 written with gguf.GGUFWriter, loaded with from_single_file")
    path = Path(folder) / "tiny-flux-Q8_0.gguf"
    count = write_q8_0_gguf(float_model, path)
    config = GGUFQuantizationConfig(compute_dtype=torch.float32)
    model = FluxTransformer2DModel.from_single_file(str(path), config=folder, quantization_config=config).to(device).eval()
    layer = model.transformer_blocks[0].ff.net[2]
    block_values, block_bytes = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType.Q8_0]
    dequant = dequantize_gguf_tensor(layer.weight)
    error = diff(probe.run(model), reference)
    print(f"  {count} tensors stored as Q8_0; a block = {block_values} values in {reveal(block_bytes)} bytes")
    print(
        f"  {type(layer).__name__} weight: {layer.weight.dtype} {reveal(tuple(layer.weight.shape))} "
        f"-> dequantized {reveal(dequant.dtype)} {tuple(dequant.shape)}"
    )
    print(f"  output max |diff| vs float = {error:.2e}")
    return {
        "q8_0_block_bytes": block_bytes,
        "q8_0_weight_bytes_shape": list(layer.weight.shape),
        "gguf_dequant_dtype": str(dequant.dtype).removeprefix("torch."),
    }


def show_quanto(folder: str, probe: FluxProbe, reference, device: str) -> dict:
    import torch
    from diffusers import FluxTransformer2DModel, QuantoConfig

    print("== 4. optimum-quanto int8 (deprecated in diffusers 0.42.1)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        config = QuantoConfig(weights_dtype="int8", modules_to_not_convert=["proj_out"])
        model = FluxTransformer2DModel.from_pretrained(folder, quantization_config=config, torch_dtype=torch.float32).to(device).eval()
    kept = [name for name, m in model.named_modules() if type(m) is torch.nn.Linear]
    print(f"  plain nn.Linear left: {reveal(len(kept))} {reveal(kept)}; output max |diff| vs float = {diff(probe.run(model), reference):.2e}")
    return {"quanto_float_linears": len(kept)}


def show_layerwise(probe: FluxProbe, reference, device: str, steps: int) -> dict:
    import torch
    from diffusers.hooks.layerwise_casting import apply_layerwise_casting

    from infralens.tiny.flux import tiny_flux_transformer

    print("== 5. apply_layerwise_casting: float8 storage, float32 compute")
    model = tiny_flux_transformer(seed=16).to(device).eval()
    apply_layerwise_casting(model, storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.float32)
    kept = [name for name, m in model.named_modules() if isinstance(m, torch.nn.Linear) and m.weight.dtype == torch.float32]
    outputs = [probe.run(model) for _ in range(max(steps, 2))]
    repeat = all(torch.equal(outputs[0], out) for out in outputs[1:])
    error = diff(outputs[0], reference)
    print(f"  Linears kept in float32 by the default patterns: {reveal(len(kept))}")
    print(f"  {len(outputs)} forwards identical: {reveal(repeat)}; output max |diff| vs float = {reveal(error, '.2e')}")
    return {"layerwise_float32_linears": len(kept), "layerwise_repeat_exact": repeat, "fp8_storage_error": error}


def show_diffsynth(device: str) -> dict:
    import contextlib
    import io

    import torch

    from infralens.tiny import ds_tiny_unet, load_diffsynth_module

    print("== 6. DiffSynth: QuantizeConfig.quantize_model and AutoWrappedLinear.fp8_linear")
    config_module = load_diffsynth_module("diffsynth.core.quant.config")
    unet = ds_tiny_unet(load_diffsynth_module("diffsynth.models.stable_diffusion_unet"), seed=16, layers_per_block=1).to(device).eval()
    total = sum(isinstance(m, torch.nn.Linear) for m in unet.modules())
    with contextlib.redirect_stdout(io.StringIO()):
        config = config_module.QuantizeConfig(method="torchao_int8_w8a16", exclude_modules=["to_out.0"])
        config.quantize_model(unet)
    quantized = sum(config.is_quantized_linear(m) for m in unet.modules())
    print(f"  tiny SD UNet (1 layer per block): {reveal(quantized)} of {total} nn.Linear quantized (exclude_modules=['to_out.0'])")

    layers = load_diffsynth_module("diffsynth.core.vram.layers")
    fp8 = torch.float8_e4m3fn
    placement = {f"{stage}_{kind}": (fp8 if kind == "dtype" else device) for stage in ("onload", "preparing", "computation") for kind in ("dtype", "device")}
    torch.manual_seed(162)
    # CUDA's torch._scaled_mm refuses a bias with a float32 out_dtype: there the layer runs in bfloat16.
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    wrapped = layers.AutoWrappedLinear(torch.nn.Linear(64, 32).to(device, dtype), offload_dtype=fp8, offload_device="cpu", **placement)
    wrapped.onload()
    seen = {}
    original = torch._scaled_mm

    def spy(*args, **kwargs):
        seen["scale_a"] = kwargs["scale_a"]
        return original(*args, **kwargs)

    torch._scaled_mm = spy
    try:
        with torch.no_grad():
            wrapped(torch.randn(2, 64, generator=torch.Generator().manual_seed(163)).to(device, dtype))
    finally:
        torch._scaled_mm = original
    scale = float(seen["scale_a"].max())
    print(f"  fp8_linear on inputs of size ~1: activation scale {reveal(f'{scale} (clamped at 1, never scaled up)')}")
    return {"diffsynth_quantized_linears": quantized, "fp8_activation_scale_small_rows": scale}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="how many forwards to repeat under layerwise casting").parse_args(argv)
    device = setup_torch(args.device)
    from infralens.tiny.flux import tiny_flux_transformer

    probe = FluxProbe(device)
    float_model = tiny_flux_transformer(seed=16).to(device).eval()
    reference = probe.run(float_model)
    answers = show_configs()
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        float_model.save_pretrained(folder)
        answers.update(show_torchao(folder, probe, reference, device))
        answers.update(show_gguf(folder, float_model, probe, reference, device))
        answers.update(show_quanto(folder, probe, reference, device))
    answers.update(show_layerwise(probe, reference, device, args.steps))
    answers["int8_error_below_fp8_storage"] = answers.pop("int8_error") < answers.pop("fp8_storage_error")
    answers.update(show_diffsynth(device))
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("16", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("16")})


if __name__ == "__main__":
    sys.exit(main())
