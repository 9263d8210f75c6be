"""Tiny random-weight models built from configs: no downloads, a few MB, CPU-friendly.

Lab starter scripts and the verifier's scenarios build their models here. Names are
loaded lazily, so ``from infralens.tiny import pick_device`` does not import diffusers.

Usage::

    from infralens.tiny import pick_device, tiny_sd_components
    device = pick_device("auto")                   # "cuda" if present, else "cpu" (torch threads -> 1)
    from diffusers import StableDiffusionPipeline
    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False).to(device)

Functions:

- ``pick_device(name="auto") -> str`` (the one device chooser, :func:`choose_device`, plus one torch thread)
  and ``generator(device, seed)`` (:mod:`.device`).
- ``tiny_clip_tokenizer(max_length=77)``: an offline character-level CLIP tokenizer (:mod:`.tokenizer`).
- :mod:`.diffusers_models`: ``tiny_unet(seed)``, ``tiny_vae(seed)``, ``tiny_text_encoder(seed)``,
  ``tiny_ddim_scheduler()``, ``tiny_sd_components(seed, scheduler=None)`` (the keyword arguments of
  ``StableDiffusionPipeline``), ``tiny_controlnet(unet)``, ``tiny_dit(seed)``, ``tiny_pixart(seed)``,
  ``tiny_sd3(seed)``, ``lora_donor_state_dict(unet, rank=4, prefix="unet.", seed=0)``.
- :mod:`.flux`: ``tiny_flux_transformer(seed)``, ``tiny_flux_vae(seed)``, ``tiny_clip_text_encoder(seed, hidden_size,
  projection_dim)``, ``tiny_t5_encoder(seed)``, ``tiny_t5_tokenizer(max_length)``, ``tiny_flux_components(seed, scheduler)``
  (the keyword arguments of ``FluxPipeline``).
- :mod:`.flux_convert`: ``tiny_ds_flux_dit(module, transformer)`` (DiffSynth's FluxDiT around blocks converted from a
  tiny diffusers Flux transformer), ``joint_block_from_diffusers``, ``single_block_from_diffusers``.
- :mod:`.sdxl`: ``tiny_sdxl_unet(seed)``, ``tiny_sdxl_components(seed, refiner=False)`` (two text encoders, micro-
  conditioning sizes that fit the UNet's add-embedding), ``ds_tiny_sdxl_unet``, ``ds_tiny_sdxl_text_encoder_2``, ``ds_tiny_sdxl_pipeline(device)`` (DiffSynth's
  SDXL pipeline on those models, full-package mode), ``SDXL_TOKENS``.
- :mod:`.gaussian_ode`: ``GaussianODE`` (Gaussian data: the ideal ε/v prediction and the exact ODE end point in closed
  form), ``solve``, ``solver_error``, ``SD_BETAS`` — schedulers measured against an exact answer.
- :mod:`.gguf_file`: ``write_q8_0_gguf(model, path)`` (a tiny GGUF checkpoint, Q8_0 where the shape allows).
- :mod:`.ip_adapter`: ``sd_adapter_state_dict``, ``flux_adapter_state_dict``, ``write_adapter`` (tiny IP-Adapter files in the
  original key layout), ``StandInImageEncoder``, ``IMAGE_EMBED_DIM``.
- :mod:`.diffsynth_loader`: ``diffsynth_root()``, ``load_diffsynth_module(dotted)`` (path-based: runs
  one module file without the package ``__init__``; the name must be dotted identifiers under ``diffsynth`` and its
  file, links followed, inside the package folder: ``diffsynth_name_problem``, ``diffsynth_module_file``), ``import_full_diffsynth()`` (the whole package
  with stub modules for torchvision/imageio/pandas/modelscope). Use one mode per process.
- :mod:`.diffsynth_models`: ``ds_tiny_unet(module, seed)``, ``ds_tiny_vae(module, seed)``,
  ``ds_tiny_text_encoder(module, seed)`` — DiffSynth's own SD classes from tiny configs;
  ``vram_config(device, stored_dtype)`` for ``enable_vram_management``.
- :mod:`.labkit` (the lab starters' shared plumbing): ``lab_arguments(doc, steps=, steps_help=)``
  (``--device/--steps/--check`` parser), ``setup_torch(device) -> str``,
  ``report_answers(expected, computed, style="count"|"verdict", tolerance=0.0) -> int`` (number wrong),
  ``diffsynth_sd_pipeline(device)`` (DiffSynth's SD pipeline with tiny models; full-package mode), and the answer
  precisions ``Decimals``, ``Significant``, ``Tolerance`` (``Precision`` is any of them).

May import: only :mod:`infralens._exports`, :mod:`infralens.cachedir` and :mod:`infralens.atomic` from InfraLens
(lab starters use it on its own); torch, diffusers and DiffSynth only inside the functions that build models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .device import choose_device as choose_device, generator as generator, pick_device as pick_device
    from .diffsynth_loader import (
        diffsynth_module_file as diffsynth_module_file,
        diffsynth_name_problem as diffsynth_name_problem,
        diffsynth_root as diffsynth_root,
        import_full_diffsynth as import_full_diffsynth,
        load_diffsynth_module as load_diffsynth_module,
    )
    from .diffsynth_models import (
        ds_tiny_text_encoder as ds_tiny_text_encoder,
        ds_tiny_unet as ds_tiny_unet,
        ds_tiny_vae as ds_tiny_vae,
        vram_config as vram_config,
    )
    from .diffusers_models import (
        LORA_TARGETS as LORA_TARGETS,
        lora_donor_state_dict as lora_donor_state_dict,
        tiny_controlnet as tiny_controlnet,
        tiny_ddim_scheduler as tiny_ddim_scheduler,
        tiny_dit as tiny_dit,
        tiny_pixart as tiny_pixart,
        tiny_sd3 as tiny_sd3,
        tiny_sd_components as tiny_sd_components,
        tiny_text_encoder as tiny_text_encoder,
        tiny_unet as tiny_unet,
        tiny_vae as tiny_vae,
    )
    from .flux import (
        tiny_clip_text_encoder as tiny_clip_text_encoder,
        tiny_flux_components as tiny_flux_components,
        tiny_flux_transformer as tiny_flux_transformer,
        tiny_flux_vae as tiny_flux_vae,
        tiny_t5_encoder as tiny_t5_encoder,
        tiny_t5_tokenizer as tiny_t5_tokenizer,
    )
    from .flux_convert import (
        joint_block_from_diffusers as joint_block_from_diffusers,
        single_block_from_diffusers as single_block_from_diffusers,
        tiny_ds_flux_dit as tiny_ds_flux_dit,
    )
    from .gaussian_ode import SD_BETAS as SD_BETAS, GaussianODE as GaussianODE, solve as solve, solver_error as solver_error
    from .gguf_file import write_q8_0_gguf as write_q8_0_gguf
    from .ip_adapter import (
        IMAGE_EMBED_DIM as IMAGE_EMBED_DIM,
        StandInImageEncoder as StandInImageEncoder,
        flux_adapter_state_dict as flux_adapter_state_dict,
        sd_adapter_state_dict as sd_adapter_state_dict,
        write_adapter as write_adapter,
    )
    from .labkit import (
        Decimals as Decimals,
        Precision as Precision,
        Significant as Significant,
        Tolerance as Tolerance,
        diffsynth_sd_pipeline as diffsynth_sd_pipeline,
        lab_arguments as lab_arguments,
        report_answers as report_answers,
        setup_torch as setup_torch,
    )
    from .sdxl import (
        SDXL_TOKENS as SDXL_TOKENS,
        ds_tiny_sdxl_pipeline as ds_tiny_sdxl_pipeline,
        ds_tiny_sdxl_text_encoder_2 as ds_tiny_sdxl_text_encoder_2,
        ds_tiny_sdxl_unet as ds_tiny_sdxl_unet,
        tiny_sdxl_components as tiny_sdxl_components,
        tiny_sdxl_unet as tiny_sdxl_unet,
    )
    from .tokenizer import tiny_clip_tokenizer as tiny_clip_tokenizer

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "GaussianODE": "gaussian_ode",
        "IMAGE_EMBED_DIM": "ip_adapter",
        "LORA_TARGETS": "diffusers_models",
        "SDXL_TOKENS": "sdxl",
        "SD_BETAS": "gaussian_ode",
        "StandInImageEncoder": "ip_adapter",
        "ds_tiny_sdxl_pipeline": "sdxl",
        "ds_tiny_sdxl_text_encoder_2": "sdxl",
        "ds_tiny_sdxl_unet": "sdxl",
        "flux_adapter_state_dict": "ip_adapter",
        "joint_block_from_diffusers": "flux_convert",
        "sd_adapter_state_dict": "ip_adapter",
        "single_block_from_diffusers": "flux_convert",
        "solve": "gaussian_ode",
        "solver_error": "gaussian_ode",
        "tiny_ds_flux_dit": "flux_convert",
        "tiny_sdxl_components": "sdxl",
        "tiny_sdxl_unet": "sdxl",
        "write_adapter": "ip_adapter",
        "write_q8_0_gguf": "gguf_file",
        "choose_device": "device",
        "diffsynth_module_file": "diffsynth_loader",
        "diffsynth_name_problem": "diffsynth_loader",
        "diffsynth_root": "diffsynth_loader",
        "diffsynth_sd_pipeline": "labkit",
        **dict.fromkeys(("Decimals", "Precision", "Significant", "Tolerance"), "labkit"),
        "ds_tiny_text_encoder": "diffsynth_models",
        "ds_tiny_unet": "diffsynth_models",
        "ds_tiny_vae": "diffsynth_models",
        "generator": "device",
        "import_full_diffsynth": "diffsynth_loader",
        "lab_arguments": "labkit",
        "load_diffsynth_module": "diffsynth_loader",
        "lora_donor_state_dict": "diffusers_models",
        "pick_device": "device",
        "report_answers": "labkit",
        "setup_torch": "labkit",
        "tiny_clip_text_encoder": "flux",
        "tiny_clip_tokenizer": "tokenizer",
        "tiny_flux_components": "flux",
        "tiny_flux_transformer": "flux",
        "tiny_flux_vae": "flux",
        "tiny_t5_encoder": "flux",
        "tiny_t5_tokenizer": "flux",
        "tiny_controlnet": "diffusers_models",
        "tiny_ddim_scheduler": "diffusers_models",
        "tiny_dit": "diffusers_models",
        "tiny_pixart": "diffusers_models",
        "tiny_sd3": "diffusers_models",
        "tiny_sd_components": "diffusers_models",
        "tiny_text_encoder": "diffusers_models",
        "tiny_unet": "diffusers_models",
        "tiny_vae": "diffusers_models",
        "vram_config": "diffsynth_models",
    },
)
