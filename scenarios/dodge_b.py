"""Branches that were marked static although they run offline on CPU (issue 39, items 5/6, helper b).

Each scenario drives one branch of installed diffusers for real, with no weights and no download: model CPU offload
asked for without a device, the SDXL img2img pipeline with ``requires_aesthetics_score=False``, the FA3 and hub
attention-backend refusals, a bitsandbytes config with neither bit flag, a GGUF load with a skip list, and a merge of
two AutoRound configs.
"""

from __future__ import annotations

import contextlib
import tempfile
import warnings
from pathlib import Path
from typing import Any
from unittest import mock

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = (
    "torch",
    "transformers",
    "diffusers",
    "diffusers.pipelines.stable_diffusion_xl.pipeline_stable_diffusion_xl_img2img",
    "diffusers.quantizers.auto",
    "gguf",
    "infralens.tiny",
)


@scenario("dodge-b-cpu-offload-no-device", "enable_model_cpu_offload() with no device= on a machine without an accelerator")
def run_cpu_offload_no_device(ctx: ScenarioContext) -> None:
    """Tiny SD pipeline, ``enable_model_cpu_offload()`` without ``device=``: ``get_device()`` answers ``"cpu"``, so it raises.

    On a CUDA machine ``get_device`` is patched to answer ``"cpu"``, which is what it returns on a machine without an
    accelerator; on CPU nothing is patched.
    """
    from diffusers import StableDiffusionPipeline
    from diffusers.pipelines import pipeline_utils

    from infralens.tiny import tiny_sd_components

    pipe: Any = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False)
    ctx.check(pipeline_utils.get_device() == "cpu" or ctx.device != "cpu", "get_device() should answer 'cpu' on the CPU runner")
    patch = mock.patch.object(pipeline_utils, "get_device", lambda: "cpu") if ctx.device != "cpu" else contextlib.nullcontext()
    with patch:
        try:
            pipe.enable_model_cpu_offload()
            ctx.check(False, "enable_model_cpu_offload() with no accelerator and no device= should raise RuntimeError")
        except RuntimeError as error:
            ctx.fact("enable_model_cpu_offload() without device", str(error))
            ctx.check("requires accelerator" in str(error), f"unexpected message: {error}")
    ctx.check(not getattr(pipe, "_all_hooks", []), "the refused call should leave no offload hook behind")


@scenario("dodge-b-sdxl-img2img-no-score", "StableDiffusionXLImg2ImgPipeline on the base components with requires_aesthetics_score=False, 28x44")
def run_sdxl_img2img_no_score(ctx: ScenarioContext) -> None:
    """The img2img pipeline without the aesthetic-score flag: six time ids, and the negative row takes the positive crop.

    The base model's components (a UNet that expects six ids), strength 0.5 of 2 steps (one UNet call under CFG), and
    negative sizes and crop that differ from the positive ones, so each id can be told apart.
    """
    from diffusers import StableDiffusionXLImg2ImgPipeline

    from infralens.tiny import tiny_sdxl_components

    pipe: Any = StableDiffusionXLImg2ImgPipeline(**tiny_sdxl_components(seed=0), requires_aesthetics_score=False)
    pipe.to(ctx.device)
    pipe.set_progress_bar_config(disable=True)
    seen: list[torch.Tensor] = []
    handle = pipe.unet.register_forward_pre_hook(lambda module, args, kwargs: seen.append(kwargs["added_cond_kwargs"]["time_ids"]), with_kwargs=True)
    init = torch.rand(1, 3, 28, 44, generator=torch.Generator().manual_seed(2)).to(ctx.device)
    image = pipe(
        "a cat",
        image=init,
        strength=0.5,
        num_inference_steps=2,
        guidance_scale=5.0,
        output_type="np",
        generator=ctx.generator(0),
        original_size=(24, 20),
        crops_coords_top_left=(2, 3),
        target_size=(16, 28),
        negative_original_size=(10, 14),
        negative_crops_coords_top_left=(5, 7),
        negative_target_size=(12, 18),
    ).images
    handle.remove()
    ctx.check(image.shape == (1, 28, 44, 3), f"image shape {image.shape}")
    ctx.check(len(seen) == 1, f"strength 0.5 of 2 steps should run 1 UNet call, got {len(seen)}")
    ids = seen[0].tolist()
    ctx.fact("time_ids without the aesthetic score", ids)
    ctx.check(ids == [[10.0, 14.0, 2.0, 3.0, 12.0, 18.0], [24.0, 20.0, 2.0, 3.0, 16.0, 28.0]], f"time ids {ids}")


@scenario("dodge-b-backend-requirements", "_check_attention_backend_requirements for _flash_3 and flash_hub without FA3 or kernels")
def run_backend_requirements(ctx: ScenarioContext) -> None:
    """The FA3 and hub refusals: both are reached wherever the package is missing, GPU or not."""
    from diffusers.models import attention_dispatch as ad
    from diffusers.utils import is_kernels_available

    names = ad.AttentionBackendName
    cases = (
        (names._FLASH_3, not ad._CAN_USE_FLASH_ATTN_3, "build FA3 beta release from source"),
        (names.FLASH_HUB, not is_kernels_available(), "`kernels` package isn't available"),
    )
    for backend, missing, words in cases:
        try:
            ad._check_attention_backend_requirements(backend)
            ctx.check(not missing, f"{backend.value}: the package is missing, the check should raise")
            ctx.fact(f"requirements of {backend.value}", "met")
        except RuntimeError as error:
            ctx.fact(f"requirements of {backend.value}", str(error))
            ctx.check(missing and words in str(error), f"{backend.value}: unexpected refusal {error}")


@scenario(
    "dodge-b-bnb-neither-flag", "BitsAndBytesConfig() with neither bit flag: from_config picks the 4-bit quantizer, which refuses a machine without a GPU"
)
def run_bnb_neither_flag(ctx: ScenarioContext) -> None:
    """``BitsAndBytesConfig()`` builds without bitsandbytes (only ``load_in_4bit=True`` reads its version); the quantizer
    chosen for it is the 4-bit one, whose ``validate_environment`` stops at the GPU check on CPU."""
    from diffusers.quantizers.auto import DiffusersAutoQuantizer
    from diffusers.quantizers.quantization_config import BitsAndBytesConfig

    config = BitsAndBytesConfig()
    ctx.check(config.load_in_4bit is False and config.load_in_8bit is False, "the config should have neither flag set")
    quantizer = DiffusersAutoQuantizer.from_config(config)
    ctx.fact("quantizer for neither flag", type(quantizer).__name__)
    ctx.check(type(quantizer).__name__ == "BnB4BitDiffusersQuantizer", f"neither flag selected {type(quantizer).__name__}")
    has_accelerator = torch.cuda.is_available() or torch.xpu.is_available() or torch.mps.is_available()
    try:
        quantizer.validate_environment()
        ctx.check(False, "validate_environment should raise without a GPU or without bitsandbytes")
    except RuntimeError as error:
        ctx.fact("4-bit validate_environment", str(error))
        ctx.check(not has_accelerator and str(error).startswith("No GPU found"), f"unexpected RuntimeError {error}")
    except ImportError as error:
        ctx.fact("4-bit validate_environment", str(error))
        ctx.check(has_accelerator, f"without an accelerator the GPU check should come first, got ImportError {error}")


@scenario("dodge-b-gguf-skip", "tiny Flux Q8_0 GGUF loaded with from_single_file, compute dtype bfloat16 and modules_to_not_convert=['proj_out']")
def run_gguf_skip(ctx: ScenarioContext) -> None:
    """A GGUF config whose skip list names ``proj_out`` (set on the config: it is not a constructor argument).

    ``_replace_with_gguf_linear`` matches leaf names, so the top-level ``proj_out`` and each single block's
    ``proj_out`` stay ``nn.Linear``; the quantized bytes of those layers are decoded once at load time, to the
    compute dtype (bfloat16 here, so it cannot be mistaken for the float32 of keep-in-fp32 modules). No forward runs.
    """
    from diffusers import FluxTransformer2DModel, GGUFQuantizationConfig

    from infralens.tiny import tiny_flux_transformer, write_q8_0_gguf

    device = ctx.device
    model = tiny_flux_transformer(seed=16).eval()
    with tempfile.TemporaryDirectory() as folder:
        model.save_config(folder)
        path = Path(folder) / "tiny-flux-Q8_0.gguf"
        write_q8_0_gguf(model, path)
        config: Any = GGUFQuantizationConfig(compute_dtype=torch.bfloat16)
        config.modules_to_not_convert = ["proj_out"]
        quantized = FluxTransformer2DModel.from_single_file(str(path), config=folder, quantization_config=config).to(device).eval()
    names = [name for name, module in quantized.named_modules() if name.rpartition(".")[2] == "proj_out"]
    ctx.fact("modules named proj_out", names)
    ctx.check(len(names) >= 2, f"expected the top-level and the single blocks' proj_out, got {names}")
    for name in names:
        layer = quantized.get_submodule(name)
        ctx.check(type(layer) is torch.nn.Linear and layer.weight.dtype == torch.bfloat16, f"{name} is {type(layer).__name__} {layer.weight.dtype}")
        original = model.get_submodule(name).weight.detach()
        error = float((layer.weight.detach().float().cpu() - original).abs().max())
        ctx.check(error <= float(original.abs().max()) / 100, f"{name} should hold the Q8_0 weight decoded at load, off by {error}")
    ctx.check(type(quantized.transformer_blocks[0].ff.net[2]).__name__ == "GGUFLinear", "layers not named in the list are still converted")


@scenario("dodge-b-autoround-merge", "merge_quantization_configs of a saved AutoRoundConfig dict and an AutoRoundConfig argument")
def run_autoround_merge(ctx: ScenarioContext) -> None:
    """The saved config (group_size 128, backend "auto") and an argument with group_size 32 and backend "torch":
    both differing fields are copied over, each with its own warning; the argument's extra field is not."""
    from diffusers.quantizers.auto import DiffusersAutoQuantizer
    from diffusers.quantizers.quantization_config import AutoRoundConfig

    saved = AutoRoundConfig(bits=4, group_size=128, backend="auto").to_dict()
    argument = AutoRoundConfig(bits=4, group_size=32, backend="torch", iters=5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        merged = DiffusersAutoQuantizer.merge_quantization_configs(saved, argument)
    messages = [str(w.message) for w in caught]
    ctx.fact("merge warnings", len(messages))
    ctx.check(isinstance(merged, AutoRoundConfig) and merged is not argument, "the merge should return the saved config, rebuilt")
    ctx.check((merged.bits, merged.group_size, merged.backend) == (4, 32, "torch"), f"merged fields {merged.bits, merged.group_size, merged.backend}")
    ctx.check(not hasattr(merged, "iters"), "a field the saved config lacks should not be copied")
    overrides = [m for m in messages if m.startswith("Overriding")]
    ctx.check(
        len(overrides) == 2 and any("`group_size`" in m for m in overrides) and any("`backend`" in m for m in overrides), f"override warnings {overrides}"
    )
    ctx.check(any("The `quantization_config` from the model will be used." in m for m in messages), "the general warning should still come")


@scenario("dodge-b-hook-remove-nested", "HookRegistry.remove_hook on a 4-deep module chain, each level holding a hook of the same name")
def run_hook_remove_nested(ctx: ScenarioContext) -> None:
    """A hook named ``halve`` on every level of Sequential(Sequential(Sequential(Linear(4, 6)), Linear(6, 5))), and
    a hook named ``shift`` on the middle level only; one ``remove_hook("halve")`` on the top registry removes every
    ``halve`` and leaves ``shift`` in place."""
    from diffusers.hooks import HookRegistry, ModelHook

    class Scale(ModelHook):
        def __init__(self, factor: float) -> None:
            super().__init__()
            self.factor = factor

        def post_forward(self, module: torch.nn.Module, output: torch.Tensor) -> torch.Tensor:
            return output * self.factor

    torch.manual_seed(173)
    leaf = torch.nn.Linear(4, 6)
    inner = torch.nn.Sequential(leaf)
    middle = torch.nn.Sequential(inner, torch.nn.Linear(6, 5))
    top = torch.nn.Sequential(middle).to(ctx.device).eval()
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(174)).to(ctx.device)
    with torch.no_grad():
        plain = top(x)
        levels = (top, middle, inner, leaf)
        for module in levels:
            HookRegistry.check_if_exists_or_initialize(module).register_hook(Scale(0.5), "halve")
        HookRegistry.check_if_exists_or_initialize(middle).register_hook(Scale(3.0), "shift")
        hooked = top(x)
        ctx.check(not torch.allclose(hooked, plain * 3.0, atol=1e-3), "the halving hooks should change the output")
        registry: Any = top._diffusers_hook
        registry.remove_hook("halve")
        registries: list[Any] = [module._diffusers_hook for module in levels]
        ctx.check(all(each.get_hook("halve") is None for each in registries), "every level should have lost 'halve'")
        ctx.check(registries[1].get_hook("shift") is not None, "the other hook should stay")
        ctx.check(torch.allclose(top(x), plain * 3.0, atol=1e-6), "after the removal only the middle level's x3 should remain")
