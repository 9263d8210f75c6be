"""The scenario catalog: names annotations may use, and where each scenario's code lives.

Importing this module imports nothing heavy; a scenario's module is imported by the worker
process that runs it. Scenarios of one *process* group share a Python process; DiffSynth's two
loading modes each need a process of their own (they put different ``diffsynth`` packages into
``sys.modules``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ScenarioSpec:
    """One named scenario."""

    name: str
    process: str
    """Worker process group: ``diffusers``, ``diffsynth-path`` or ``diffsynth-full``."""
    module: str
    """Module under ``infralens.verify.scenarios`` holding the function."""
    function: str
    summary: str
    imports: tuple[str, ...] = ()
    """Modules imported before the scenario is timed (so its seconds exclude import cost)."""

    def load(self) -> Callable:
        module = importlib.import_module(f"infralens.verify.scenarios.{self.module}")
        return getattr(module, self.function)


_IMPORTS = {
    "diffusers_schedulers": ("torch", "diffusers"),
    "diffusers_pipelines": ("torch", "transformers", "diffusers"),
    "diffusers_models": ("torch", "transformers", "diffusers", "peft"),
    "diffsynth_path": ("torch", "einops", "diffusers", "peft"),
    "diffsynth_full": ("torch", "transformers", "peft"),
    "diffusers_solvers": ("torch", "diffusers", "scipy.stats"),
    "diffsynth_sigma_templates": ("torch", "einops", "diffusers"),
    "diffusers_flux": ("torch", "transformers", "diffusers", "diffusers.pipelines.flux.pipeline_flux", "infralens.tiny"),
    "diffsynth_flux_modern": ("torch", "einops", "diffusers", "diffusers.pipelines.flux.pipeline_flux", "infralens.tiny"),
    "diffusers_sdxl": (
        "torch",
        "transformers",
        "diffusers",
        "diffusers.pipelines.stable_diffusion_xl.pipeline_stable_diffusion_xl",
        "diffusers.pipelines.stable_diffusion_xl.pipeline_stable_diffusion_xl_img2img",
    ),
    "diffsynth_sdxl": ("torch", "transformers", "peft", "diffusers", "diffusers.models.unets", "diffusers.models.unets.unet_2d_condition"),
    "diffusers_attention": ("torch", "transformers", "diffusers", "diffusers.models.transformers.transformer_flux", "torch._dynamo"),
    "diffsynth_attention": ("torch", "einops", "torch._dynamo", "torch.nn.attention.flex_attention"),
    "diffusers_quantization": (
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
    ),
    "diffsynth_quantization": ("torch", "einops", "diffusers", "torchao.quantization", "infralens.tiny"),
    "diffusers_hooks": ("torch", "transformers", "diffusers", "diffusers.hooks", "diffusers.models.transformers.transformer_flux", "safetensors.torch"),
    "diffsynth_caching": ("torch", "transformers", "peft", "numpy"),
    "diffusers_ip_adapter": (
        "torch",
        "transformers",
        "diffusers",
        "diffusers.pipelines.stable_diffusion.pipeline_stable_diffusion",
        "diffusers.pipelines.flux.pipeline_flux",
        "safetensors.torch",
    ),
    "diffsynth_ip_adapter": ("torch", "transformers", "peft", "PIL.Image"),
    "deepen_labs_diffsynth": ("torch", "transformers", "peft"),
}


def _spec(name: str, process: str, module: str, summary: str) -> ScenarioSpec:
    return ScenarioSpec(name, process, module, "run_" + name.replace("-", "_"), summary, _IMPORTS[module])


SCENARIOS: tuple[ScenarioSpec, ...] = (
    _spec("forward-noise", "diffusers", "diffusers_schedulers", "DDPMScheduler init/add_noise/get_velocity, FlowMatchEuler scale_noise"),
    _spec("scheduler-spacing", "diffusers", "diffusers_schedulers", "DDIM set_timesteps linspace/leading/trailing; Euler scale_model_input"),
    _spec("flow-match-euler", "diffusers", "diffusers_schedulers", "FlowMatchEulerDiscreteScheduler loop with an exact-velocity denoiser"),
    _spec("guider", "diffusers", "diffusers_schedulers", "diffusers.guiders ClassifierFreeGuidance.forward"),
    _spec("tiny-sd-ddim", "diffusers", "diffusers_pipelines", "tiny StableDiffusionPipeline, DDIM, CFG 6.0, 3 steps; guidance_rescale 0.7"),
    _spec("tiny-sd-euler", "diffusers", "diffusers_pipelines", "tiny StableDiffusionPipeline, Euler, guidance 1.0 (no CFG), 3 steps"),
    _spec("img2img", "diffusers", "diffusers_pipelines", "StableDiffusionImg2ImgPipeline, strength 0.5"),
    _spec("pipeline-save-load", "diffusers", "diffusers_pipelines", "save_pretrained / from_pretrained(local_files_only) round trip"),
    _spec("controlnet", "diffusers", "diffusers_pipelines", "ControlNetModel.from_unet + StableDiffusionControlNetPipeline"),
    _spec("vae-tiling", "diffusers", "diffusers_models", "AutoencoderKL encode/decode, slicing and tiling"),
    _spec("ip-adapter", "diffusers", "diffusers_models", "Attention with IPAdapterAttnProcessor2_0, scale 0 and 1"),
    _spec("lora", "diffusers", "diffusers_models", "peft LoRA: load_lora_weights, scale, fuse, unfuse, unload"),
    _spec("dit-forward", "diffusers", "diffusers_models", "DiT, PixArt and SD3 transformer forwards"),
    _spec("memory-options", "diffusers", "diffusers_models", "attention slicing, processors, layerwise casting, model CPU offload, attention backend"),
    _spec("diffsynth-flow-match", "diffsynth-path", "diffsynth_path", "FlowMatchScheduler templates, set_timesteps, add_noise, step loop"),
    _spec("diffsynth-ddim", "diffsynth-path", "diffsynth_path", "DiffSynth DDIMScheduler add_noise and step loop"),
    _spec("diffsynth-models", "diffsynth-path", "diffsynth_path", "SD UNet/VAE from tiny configs with diffusers weights, timestep embedding, TileWorker"),
    _spec("diffsynth-lora", "diffsynth-path", "diffsynth_path", "GeneralLoRALoader fuse; VRAM-managed hot-load"),
    _spec("diffsynth-pipeline", "diffsynth-full", "diffsynth_full", "SD pipeline __call__ (package with stubs), CFG two passes, load_lora, VRAM management"),
    # Added for annotations/diffsynth/{08-conditioning,10-controlnet}.yaml (not in the first catalog):
    _spec("diffsynth-flux", "diffsynth-full", "diffsynth_full", "model_fn_flux_image on a tiny FluxDiT; MultiControlNet of 2 stand-ins; IP-Adapter K/V"),
    _spec("dpm-solver", "diffusers", "diffusers_solvers", "DPM-Solver++ 2M/3M vs DDIM on an exact Gaussian eps-model; Karras/exponential/beta sigmas"),
    _spec("unipc", "diffusers", "diffusers_solvers", "UniPC bh2 orders 2 and 3; bh1 with final_sigmas_type zero gives NaN"),
    _spec("heun-vs-euler", "diffusers", "diffusers_solvers", "HeunDiscreteScheduler vs Euler at the same number of model calls"),
    _spec("diffsynth-sigma-templates", "diffsynth-path", "diffsynth_sigma_templates", "Qwen-Image, FLUX.2, Z-Image sigma templates; compute_empirical_mu"),
    _spec("tiny-flux", "diffusers", "diffusers_flux", "tiny FluxPipeline 16x16, 2 steps, guidance 3.5; then negative_prompt with true_cfg_scale 4.0"),
    _spec("diffsynth-flux-dit", "diffsynth-path", "diffsynth_flux_modern", "DiffSynth flux_dit with diffusers Flux weights: patchify, ids, RoPE, blocks match"),
    _spec("tiny-sdxl", "diffusers", "diffusers_sdxl", "tiny StableDiffusionXLPipeline, CFG 5.0, 2 steps, fp32 then fp16 VAE (force_upcast)"),
    _spec("tiny-sdxl-refiner", "diffusers", "diffusers_sdxl", "StableDiffusionXLImg2ImgPipeline refiner: text_encoder_2 only, aesthetic-score time ids"),
    _spec("diffsynth-sdxl", "diffsynth-full", "diffsynth_sdxl", "DiffSynth StableDiffusionXLPipeline __call__ on tiny models; SDXL UNet vs diffusers"),
    _spec("attention-dispatch", "diffusers", "diffusers_attention", "dispatch_attention_fn native/math/flash, checks; Flux honours, UNet ignores"),
    _spec("regional-compile", "diffusers", "diffusers_attention", "compile_repeated_blocks (aot_eager) on a tiny Flux: one graph, reused"),
    _spec("diffsynth-attention", "diffsynth-path", "diffsynth_attention", "DiffSynth attention_forward: SDPA, GQA, sliding window, fallbacks"),
    _spec("quant-config", "diffusers", "diffusers_quantization", "quantization configs, DiffusersAutoQuantizer selection and merge"),
    _spec("quant-torchao", "diffusers", "diffusers_quantization", "tiny Flux from_pretrained with TorchAoConfig(Int8WeightOnlyConfig()) vs float"),
    _spec("quant-gguf", "diffusers", "diffusers_quantization", "tiny Flux Q8_0 GGUF written with GGUFWriter, from_single_file vs float"),
    _spec("quant-quanto", "diffusers", "diffusers_quantization", "tiny Flux from_pretrained with QuantoConfig int8 (deprecated) vs float"),
    _spec("quant-layerwise-casting", "diffusers", "diffusers_quantization", "apply_layerwise_casting float8 storage, float32 compute on tiny Flux"),
    _spec("diffsynth-quantize", "diffsynth-path", "diffsynth_quantization", "QuantizeConfig.quantize_model torchao int8/fp8 on DiffSynth's tiny SD UNet"),
    _spec("diffsynth-fp8-linear", "diffsynth-path", "diffsynth_quantization", "AutoWrappedLinear, float8 storage and compute (torch._scaled_mm on CPU)"),
    _spec("model-hooks", "diffusers", "diffusers_hooks", "HookRegistry on a Linear: 3 chained hooks (one new_forward) removed; the new_forward bypass trap"),
    _spec("group-offload", "diffusers", "diffusers_hooks", "tiny Flux group offload: leaf level in memory, block level on disk; use_stream on CPU refused"),
    _spec("block-caching", "diffusers", "diffusers_hooks", "First Block Cache (threshold 0.5) on tiny Flux: 4 then 1 block bodies; disable_cache is exact"),
    _spec("diffsynth-teacache", "diffsynth-full", "diffsynth_caching", "TeaCache in model_fn_flux_image on a tiny FluxDiT: 3 steps, the middle one skipped"),
    _spec("diffsynth-vram-module", "diffsynth-full", "diffsynth_caching", "AutoWrappedModule on a LayerNorm: bf16 offload/onload, float32 computation copy"),
    _spec("ip-adapter-load", "diffusers", "diffusers_ip_adapter", "tiny SD: load_ip_adapter from a temp file, scale 0 = no adapter, per-block scales, unload"),
    _spec("flux-ip-adapter-load", "diffusers", "diffusers_ip_adapter", "tiny FluxPipeline: load_ip_adapter into the double blocks, per-layer scales, scale 0"),
    _spec("diffsynth-ip-adapter", "diffsynth-full", "diffsynth_ip_adapter", "FluxIpAdapter on a tiny FluxDiT through FluxImageUnit_IPAdapter.process"),
    _spec("diffsynth-model-pool", "diffsynth-full", "deepen_labs_diffsynth", "ModelPool.import_model_class and fetch_model: one, none, two models of a name"),
    _spec("diffsynth-controlnet-unit", "diffsynth-full", "deepen_labs_diffsynth", "FluxImageUnit_ControlNet.process: two 16x16 hints, random VAE encoder"),
)

PROCESS_ORDER = ("diffusers", "diffsynth-path", "diffsynth-full")


_BY_NAME = {spec.name: spec for spec in SCENARIOS}


def scenario_names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def get_scenario(name: str) -> ScenarioSpec | None:
    return _BY_NAME.get(name)
