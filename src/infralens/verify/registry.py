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
)

PROCESS_ORDER = ("diffusers", "diffsynth-path", "diffsynth-full")


_BY_NAME = {spec.name: spec for spec in SCENARIOS}


def scenario_names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def get_scenario(name: str) -> ScenarioSpec | None:
    return _BY_NAME.get(name)
