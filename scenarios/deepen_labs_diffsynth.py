"""DiffSynth scenarios added when labs 07-11 were deepened: the ModelPool that ``from_pretrained`` fills and
reads, and the Flux pipeline unit that turns ControlNet hint images into latents.

Runs in the ``diffsynth-full`` worker process (``models/model_loader.py`` and ``pipelines/flux_image.py`` need
the whole package, imported with stubs). No weights: the pool is filled by hand with tiny stand-in modules, the
way ``auto_load_model`` appends what it loaded, and the VAE encoder keeps its random initial weights.
"""

from __future__ import annotations

import contextlib
import io

import torch

from infralens.scenarios import scenario
from infralens.tiny import import_full_diffsynth
from infralens.verify import ScenarioContext

PROCESS = "diffsynth-full"
IMPORTS = ("torch", "transformers", "peft")


@scenario("diffsynth-model-pool", "ModelPool.import_model_class and fetch_model: one, none, two models of a name")
def run_diffsynth_model_pool(ctx: ScenarioContext) -> None:
    """ModelPool.import_model_class on a config's dotted class path; fetch_model for one, none, and two models of a name."""
    import_full_diffsynth()
    from diffsynth.models.model_loader import ModelPool

    pool = ModelPool()
    unet_class = pool.import_model_class("diffsynth.models.stable_diffusion_unet.UNet2DConditionModel")
    ctx.check(unet_class.__name__ == "UNet2DConditionModel", f"import_model_class gave {unet_class}")
    torch.manual_seed(180)
    unet = torch.nn.Linear(4, 4).eval()
    encoders = [torch.nn.Linear(2, 2).eval(), torch.nn.Linear(2, 2).eval()]
    for model, name, path in (
        (unet, "stable_diffusion_unet", "unet.safetensors"),
        (encoders[0], "stable_diffusion_text_encoder", "te_a.safetensors"),
        (encoders[1], "stable_diffusion_text_encoder", "te_b.safetensors"),
    ):
        pool.model.append(model)
        pool.model_name.append(name)
        pool.model_path.append(path)
    with contextlib.redirect_stdout(io.StringIO()):  # fetch_model prints which file it uses
        single = pool.fetch_model("stable_diffusion_unet")
        missing = pool.fetch_model("stable_diffusion_vae")
        first = pool.fetch_model("stable_diffusion_text_encoder")
        head = pool.fetch_model("stable_diffusion_text_encoder", index=1)
        every = pool.fetch_model("stable_diffusion_text_encoder", index="all")
    ctx.check(single is unet and missing is None and first is encoders[0], "fetch_model picked the wrong model")
    ctx.check(head == [encoders[0]], f"index=1 should give a list holding the first model, got {head}")
    ctx.check(every == encoders, "a non-integer index should give every model of the name")
    ctx.fact("index=1 result", type(head).__name__ + f" of {len(head)}")


@scenario("diffsynth-controlnet-unit", "FluxImageUnit_ControlNet.process: two 16x16 hints, random VAE encoder")
def run_diffsynth_controlnet_unit(ctx: ScenarioContext) -> None:
    """FluxImageUnit_ControlNet.process on two 16x16 hints with DiffSynth's real (random-weight) FluxVAEEncoder."""
    import numpy as np
    from PIL import Image

    import_full_diffsynth()
    from diffsynth.models.flux_vae import FluxVAEEncoder
    from diffsynth.pipelines.flux_image import FluxImagePipeline, FluxImageUnit_ControlNet
    from diffsynth.utils.controlnet import ControlNetInput

    device = ctx.device
    pipe = FluxImagePipeline(device=device, torch_dtype=torch.float32)
    torch.manual_seed(181)
    pipe.vae_encoder = FluxVAEEncoder().to(device).eval()
    pixels = np.random.default_rng(182).integers(0, 256, size=(2, 16, 16, 3), dtype=np.uint8)
    inputs = [ControlNetInput(controlnet_id=i, image=Image.fromarray(pixels[i])) for i in range(2)]
    with torch.no_grad():
        out = FluxImageUnit_ControlNet().process(pipe, inputs, tiled=False, tile_size=64, tile_stride=32)
        reference = pipe.vae_encoder(torch.from_numpy(pixels[1]).permute(2, 0, 1)[None].float().to(device) / 127.5 - 1)
    conditionings = out["controlnet_conditionings"]
    ctx.check(len(conditionings) == 2 and conditionings[0].shape == (1, 16, 2, 2), f"conditionings {[tuple(c.shape) for c in conditionings]}")
    ctx.check(torch.allclose(conditionings[1], reference, atol=1e-5), "the second hint was not encoded like a [-1, 1] image")
    ctx.fact("conditioning shape", tuple(conditionings[0].shape))
