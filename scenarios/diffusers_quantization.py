"""diffusers quantization on a tiny Flux transformer: configs, auto selection, torchao, GGUF, quanto, layerwise casting.

Every model is built from a config, saved into a temporary folder and loaded back with a quantization config,
so ``from_pretrained`` runs the real quantizer hooks; nothing is downloaded. Outputs are compared with the float
model on one fixed input.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path
from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = (
    "torch",
    "transformers",
    "diffusers",
    "torchao.quantization",
    "gguf",
    "optimum.quanto",
    "diffusers.quantizers.auto",
    "diffusers.loaders.single_file_model",
    "diffusers.hooks.layerwise_casting",
    "infralens.tiny",
)


def _flux_inputs(device: str) -> dict[str, torch.Tensor]:
    """A 4x4 latent grid (16 image tokens), 8 text tokens, timestep 0.5, guidance 3.5."""
    generator = torch.Generator().manual_seed(160)
    return dict(
        hidden_states=torch.randn(1, 16, 4, generator=generator).to(device),
        encoder_hidden_states=torch.randn(1, 8, 32, generator=generator).to(device),
        pooled_projections=torch.randn(1, 32, generator=generator).to(device),
        timestep=torch.tensor([0.5], device=device),
        guidance=torch.tensor([3.5], device=device),
        img_ids=torch.zeros(16, 3, device=device),
        txt_ids=torch.zeros(8, 3, device=device),
    )


def _run(model: Any, device: str) -> torch.Tensor:
    with torch.no_grad():
        return model(**_flux_inputs(device)).sample.float()


def _float_model(device: str) -> tuple[Any, torch.Tensor]:
    from infralens.tiny import tiny_flux_transformer

    model = tiny_flux_transformer(seed=16).to(device).eval()
    return model, _run(model, device)


def _diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.float() - b.float()).abs().max())


@scenario("quant-config", "quantization configs, DiffusersAutoQuantizer selection and merge")
def run_quant_config(ctx: ScenarioContext) -> None:
    """The config classes, DiffusersAutoQuantizer's selection from a config or a dict, and the merge with a saved config."""
    from diffusers.quantizers.auto import DiffusersAutoQuantizer
    from diffusers.quantizers.quantization_config import BitsAndBytesConfig, GGUFQuantizationConfig, QuantoConfig, TorchAoConfig
    from torchao.quantization import Int8WeightOnlyConfig  # type: ignore[import-untyped]

    torchao_config = TorchAoConfig(Int8WeightOnlyConfig(), modules_to_not_convert=["proj_out"])
    try:
        TorchAoConfig("int8wo")
        ctx.check(False, "a string quant_type should raise TypeError in diffusers 0.42.1")
    except TypeError as error:
        ctx.fact("TorchAoConfig('int8wo')", str(error))

    quantizer = DiffusersAutoQuantizer.from_config(torchao_config.to_dict(), pre_quantized=False)
    ctx.check(type(quantizer).__name__ == "TorchAoHfQuantizer", f"a torchao dict selected {type(quantizer).__name__}")
    ctx.check(isinstance(quantizer.quantization_config.quant_type, Int8WeightOnlyConfig), "the dict round trip lost the AOBaseConfig")
    ctx.check(quantizer.update_torch_dtype(None) is torch.bfloat16, "torchao should default the model dtype to bfloat16")
    gguf_quantizer = DiffusersAutoQuantizer.from_config(GGUFQuantizationConfig())
    ctx.check(gguf_quantizer.compute_dtype == torch.float32, "GGUF compute dtype should default to float32")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        quanto_quantizer = DiffusersAutoQuantizer.from_config(QuantoConfig(weights_dtype="float8"))
    ctx.fact("quanto quantizer", type(quanto_quantizer).__name__)

    bnb_config = BitsAndBytesConfig(load_in_8bit=True, llm_int8_skip_modules=["proj_out"], bnb_4bit_compute_dtype="bfloat16")
    bnb_quantizer = DiffusersAutoQuantizer.from_config(bnb_config)
    ctx.check(type(bnb_quantizer).__name__ == "BnB8BitDiffusersQuantizer", f"load_in_8bit selected {type(bnb_quantizer).__name__}")
    if not torch.cuda.is_available():
        try:
            bnb_quantizer.validate_environment()
            ctx.check(False, "bitsandbytes validate_environment should refuse a machine without a GPU")
        except RuntimeError as error:
            ctx.fact("bitsandbytes on CPU", str(error))
    try:
        DiffusersAutoQuantizer.from_pretrained("unused")
        ctx.check(False, "DiffusersAutoQuantizer.from_pretrained has no load_config in 0.42.1 and should fail")
    except AttributeError as error:
        ctx.fact("DiffusersAutoQuantizer.from_pretrained", str(error))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        merged = DiffusersAutoQuantizer.merge_quantization_configs(torchao_config.to_dict(), GGUFQuantizationConfig())
    ctx.check(isinstance(merged, TorchAoConfig), "the saved (model) config should win the merge")
    ctx.check(any("already has a `quantization_config`" in str(w.message) for w in caught), "the merge should warn")


@scenario("quant-torchao", "tiny Flux from_pretrained with TorchAoConfig(Int8WeightOnlyConfig()) vs float")
def run_quant_torchao(ctx: ScenarioContext) -> None:
    """torchao int8 weight-only through from_pretrained; every Linear but the skipped one holds an Int8Tensor."""
    from diffusers import FluxTransformer2DModel, TorchAoConfig
    from torchao.quantization import Int8WeightOnlyConfig

    device = ctx.device
    model, reference = _float_model(device)
    with tempfile.TemporaryDirectory() as folder:
        model.save_pretrained(folder)
        config = TorchAoConfig(Int8WeightOnlyConfig(), modules_to_not_convert=["proj_out"])
        quantized = FluxTransformer2DModel.from_pretrained(folder, quantization_config=config, torch_dtype=torch.float32).to(device).eval()
    output = _run(quantized, device)
    error = _diff(output, reference)
    ctx.fact("int8 weight-only max error", error)
    ctx.fact("output max abs", float(reference.abs().max()))
    ctx.check(0.0 < error < 0.05, f"int8 weight-only output differs from float by {error}")
    weight = quantized.transformer_blocks[0].ff.net[2].weight
    ctx.check(type(weight).__name__ == "Int8Tensor", f"ff weight is {type(weight).__name__}")
    ctx.check(type(quantized.proj_out.weight) is torch.nn.Parameter, "proj_out was listed in modules_to_not_convert")
    single = quantized.single_transformer_blocks[0].proj_out
    ctx.check(type(single.weight) is torch.nn.Parameter, "the substring test should also skip single_transformer_blocks.0.proj_out")
    ctx.check(type(quantized.transformer_blocks[0].ff.net[2].bias) is torch.nn.Parameter, "biases are not quantized")
    try:
        quantized.to(torch.float16)
        ctx.check(False, "casting a quantized model to a dtype should raise")
    except ValueError as error:
        ctx.fact("quantized .to(float16)", str(error).split(".")[0])


@scenario("quant-gguf", "tiny Flux Q8_0 GGUF written with GGUFWriter, from_single_file vs float")
def run_quant_gguf(ctx: ScenarioContext) -> None:
    """A Q8_0 GGUF file written here, loaded with from_single_file; GGUFLinear dequantizes per forward."""
    from diffusers import FluxTransformer2DModel, GGUFQuantizationConfig

    from infralens.tiny import write_q8_0_gguf

    device = ctx.device
    model, reference = _float_model(device)
    with tempfile.TemporaryDirectory() as folder:
        model.save_config(folder)
        path = Path(folder) / "tiny-flux-Q8_0.gguf"
        count = write_q8_0_gguf(model, path)
        ctx.fact("Q8_0 tensors", count)
        config = GGUFQuantizationConfig(compute_dtype=torch.float32)
        quantized = FluxTransformer2DModel.from_single_file(str(path), config=folder, quantization_config=config).to(device).eval()
    output = _run(quantized, device)
    error = _diff(output, reference)
    ctx.fact("Q8_0 max error", error)
    ctx.check(0.0 < error < 0.05, f"Q8_0 output differs from float by {error}")
    layer = quantized.transformer_blocks[0].ff.net[2]
    ctx.check(type(layer).__name__ == "GGUFLinear" and layer.weight.dtype == torch.uint8, f"ff layer is {type(layer).__name__}")
    ctx.check(type(quantized.x_embedder) is torch.nn.Linear, "x_embedder (4 inputs) was written as F32 and stays nn.Linear")
    ctx.check(tuple(layer.weight.shape) == (32, 128 // 32 * 34), f"Q8_0 bytes shape {tuple(layer.weight.shape)}")


@scenario("quant-quanto", "tiny Flux from_pretrained with QuantoConfig int8 (deprecated) vs float")
def run_quant_quanto(ctx: ScenarioContext) -> None:
    """optimum-quanto int8 weights (deprecated in 0.42.1, still runs): nn.Linear becomes a frozen QLinear."""
    from diffusers import FluxTransformer2DModel, QuantoConfig

    device = ctx.device
    model, reference = _float_model(device)
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        model.save_pretrained(folder)
        config = QuantoConfig(weights_dtype="int8", modules_to_not_convert=["proj_out"])
        quantized = FluxTransformer2DModel.from_pretrained(folder, quantization_config=config, torch_dtype=torch.float32).to(device).eval()
    output = _run(quantized, device)
    error = _diff(output, reference)
    ctx.fact("quanto int8 max error", error)
    ctx.check(0.0 < error < 0.05, f"quanto int8 output differs from float by {error}")
    layer = quantized.transformer_blocks[0].ff.net[2]
    ctx.check(type(layer).__name__ == "QLinear" and layer.frozen, f"ff layer is {type(layer).__name__}")
    ctx.check(type(quantized.proj_out).__name__ == "Linear", "proj_out was listed in modules_to_not_convert")


@scenario("quant-layerwise-casting", "apply_layerwise_casting float8 storage, float32 compute on tiny Flux")
def run_quant_layerwise_casting(ctx: ScenarioContext) -> None:
    """float8 storage, float32 compute via apply_layerwise_casting; the default skip patterns keep norms in float32."""
    from diffusers.hooks.layerwise_casting import apply_layerwise_casting

    device = ctx.device
    model, reference = _float_model(device)
    apply_layerwise_casting(model, storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.float32)
    ctx.check(model.x_embedder.weight.dtype == torch.float8_e4m3fn, "x_embedder should be stored in float8")
    output = _run(model, device)
    error = _diff(output, reference)
    ctx.fact("float8 storage max error", error)
    ctx.check(0.0 < error < 0.5, f"float8 storage output differs from float by {error}")
    ctx.check(model.x_embedder.weight.dtype == torch.float8_e4m3fn, "after forward the weight should be back in float8")
    ctx.check(torch.equal(_run(model, device), output), "a second forward should repeat the first exactly")

    torch.manual_seed(17)
    pair = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)).to(device)
    apply_layerwise_casting(pair, storage_dtype=torch.bfloat16, compute_dtype=torch.float32, skip_modules_pattern=None)
    ctx.check(all(p.dtype == torch.bfloat16 for p in pair.parameters()), "with no patterns the whole module is stored in bfloat16")
    with torch.no_grad():
        out = pair(torch.ones(2, 8, device=device))
    ctx.check(out.dtype == torch.float32 and pair[0].weight.dtype == torch.bfloat16, "one hook on the whole module casts around its forward")
