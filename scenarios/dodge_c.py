"""DiffSynth branches that no other scenario reaches, run offline on tiny inputs (issue 39, dodge c).

Each scenario calls the real upstream code directly: DDIM with v-prediction (also under zero-terminal-SNR
rescaling), a DDIM grid capped by a tiny strength, a FLUX.1 training grid of 8 steps, the img2img unit of the SD
pipeline, ``BasePipeline.step`` with an inpainting mask, ``compile_pipeline`` (wrapping only: nothing runs compiled),
TeaCache with a low threshold, ``initialize_attention_priority`` called again, SDPA's ``enable_gqa`` path, one
FlexAttention call, and ``from_pretrained`` on a tiny local checkpoint (no download).
"""

from __future__ import annotations

import os
from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.tiny import import_full_diffsynth, load_diffsynth_module
from infralens.verify import ScenarioContext

IMPORTS = ("torch",)

INPUT_IMAGE_SEED = 70
"""Global torch seed set right before ``SDUnit_InputImageEmbedder.process``: its ``.sample()`` draws from it."""


def _randn(*shape: int, seed: int, device: str) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(device)


@scenario("dodge-c-ddim-v", "DiffSynth DDIM with prediction_type='v_prediction': exact v lands on x0; zero-terminal-SNR rescale", process="diffsynth-path")
def run_ddim_v(ctx: ScenarioContext) -> None:
    """Four v-prediction steps with the exact velocity land on x0; with ``rescale_zero_terminal_snr=True``
    the first step (alpha_bar = 0) runs for v and divides by zero for epsilon."""
    ddim = load_diffsynth_module("diffsynth.diffusion.ddim_scheduler")
    x0 = _randn(1, 4, 6, 10, seed=80, device=ctx.device)
    eps = _randn(1, 4, 6, 10, seed=81, device=ctx.device)
    for rescale in (False, True):
        scheduler = ddim.DDIMScheduler(prediction_type="v_prediction", rescale_zero_terminal_snr=rescale)
        scheduler.set_timesteps(4)
        if rescale:
            ctx.check(scheduler.alphas_cumprod[-1] == 0.0, f"zero-terminal-SNR rescale should make alpha_bar_999 0, is {scheduler.alphas_cumprod[-1]}")
        sample = scheduler.add_noise(x0, eps, scheduler.timesteps[0])
        for timestep in scheduler.timesteps:
            a = scheduler.alphas_cumprod[int(timestep)]
            velocity = a**0.5 * eps - (1 - a) ** 0.5 * x0
            sample = scheduler.step(velocity, timestep, sample)
        error = float((sample - x0).abs().max())
        ctx.fact(f"x0 recovery error (rescale={rescale})", error)
        ctx.check(error < 1e-4, f"v-prediction DDIM with the exact velocity missed x0 by {error} (rescale={rescale})")
    epsilon = ddim.DDIMScheduler(prediction_type="epsilon", rescale_zero_terminal_snr=True)
    epsilon.set_timesteps(4)
    try:
        epsilon.step(eps, epsilon.timesteps[0], eps)
        ctx.check(False, "epsilon DDIM at alpha_bar = 0 should divide by zero")
    except ZeroDivisionError as error:
        ctx.fact("epsilon step at alpha_bar 0", repr(error))


@scenario("dodge-c-ddim-cap", "DiffSynth DDIM set_timesteps asking for more steps than a tiny strength leaves", process="diffsynth-path")
def run_ddim_cap(ctx: ScenarioContext) -> None:
    """``set_timesteps(10, denoising_strength=0.001)`` leaves one timestep (0), 0.002 leaves two (1, 0)."""
    ddim = load_diffsynth_module("diffsynth.diffusion.ddim_scheduler")
    scheduler = ddim.DDIMScheduler()
    for strength, grid in ((0.001, [0.0]), (0.002, [1.0, 0.0]), (0.003, [2.0, 1.0, 0.0])):
        scheduler.set_timesteps(10, denoising_strength=strength)
        ctx.check(scheduler.timesteps.tolist() == grid, f"strength {strength}: grid {scheduler.timesteps.tolist()}, expected {grid}")


@scenario("dodge-c-flow-training-grid", "DiffSynth FlowMatchScheduler('FLUX.1') training grids of 1000 and of 8 steps", process="diffsynth-path")
def run_flow_training_grid(ctx: ScenarioContext) -> None:
    """``set_timesteps(N, training=True)`` for N = 1000 and N = 8 (the short grid TrajectoryImitationLoss builds)."""
    flow_match = load_diffsynth_module("diffsynth.diffusion.flow_match")
    scheduler = flow_match.FlowMatchScheduler("FLUX.1")
    for steps in (1000, 8):
        scheduler.set_timesteps(steps, training=True)
        weights = scheduler.linear_timesteps_weights
        ctx.check(scheduler.training and len(weights) == steps, f"{steps}-step training grid: {len(weights)} weights")
        ctx.fact(f"{steps}-step weights sum, min", (round(float(weights.sum()), 4), round(float(weights.min()), 6)))
    ctx.check(float(weights.min()) > 0.0, "on a short grid no training weight should be 0")


@scenario(
    "dodge-c-sd-input-image",
    "DiffSynth SDUnit_InputImageEmbedder.process on an 80x48 picture (the img2img branch)",
    process="diffsynth-full",
    imports=("torch", "transformers"),
)
def run_sd_input_image(ctx: ScenarioContext) -> None:
    """The unit's image branch, called directly (SD ``__call__`` takes no ``input_image``): encode, scale,
    noise to the first timestep of a strength-0.6 grid; in training mode it also hands back the clean latents."""
    import numpy as np
    from PIL import Image

    from infralens.tiny import diffsynth_sd_pipeline

    import_full_diffsynth()
    from diffsynth.pipelines.stable_diffusion import SDUnit_InputImageEmbedder

    device = ctx.device
    pipe = diffsynth_sd_pipeline(device)
    pixels = np.random.default_rng(90).integers(0, 256, size=(48, 80, 3), dtype=np.uint8)
    picture = Image.fromarray(pixels)
    noise = _randn(1, 4, 6, 10, seed=91, device=device)
    unit = SDUnit_InputImageEmbedder()
    with torch.no_grad():
        pipe.scheduler.set_timesteps(3, denoising_strength=0.6)
        torch.manual_seed(INPUT_IMAGE_SEED)
        inference = unit.process(pipe, input_image=picture, noise=noise)
        pipe.scheduler.set_timesteps(3, denoising_strength=0.6, training=True)
        torch.manual_seed(INPUT_IMAGE_SEED)
        training = unit.process(pipe, input_image=picture, noise=noise)
        torch.manual_seed(INPUT_IMAGE_SEED)
        expected = pipe.vae.encode(pipe.preprocess_image(picture)).sample() * pipe.vae.scaling_factor
        torch.manual_seed(INPUT_IMAGE_SEED + 1)
        other = pipe.vae.encode(pipe.preprocess_image(picture)).sample() * pipe.vae.scaling_factor
    ctx.check(set(inference) == {"latents"} and set(training) == {"latents", "input_latents"}, "only training mode returns input_latents")
    ctx.check(torch.equal(inference["latents"], training["latents"]), "the training flag should not change the noised latents")
    ctx.check(training["input_latents"].shape == (1, 4, 6, 10), f"input latents {tuple(training['input_latents'].shape)}, expected (1, 4, 6, 10)")
    ctx.check(torch.equal(training["input_latents"], expected), "input_latents should be the seeded posterior sample times 0.18215")
    ctx.check(not torch.equal(other, expected), "the posterior sample should depend on the global seed")
    ctx.fact("first timestep at strength 0.6", float(pipe.scheduler.timesteps[0]))


@scenario(
    "dodge-c-inpaint",
    "DiffSynth BasePipeline.step with input_latents and an inpaint_mask, DDIM and FLUX.1 flow matching",
    process="diffsynth-full",
    imports=("torch", "transformers"),
)
def run_inpaint(ctx: ScenarioContext) -> None:
    """``pipe.step`` on (1, 4, 6, 10) latents with a mask that is 0 on the left 4 columns: every step keeps the
    model's prediction where the mask is 1, and the last step lands on the input latents where it is 0."""
    from infralens.tiny import diffsynth_sd_pipeline

    import_full_diffsynth()
    from diffsynth.diffusion.flow_match import FlowMatchScheduler

    device = ctx.device
    pipe = diffsynth_sd_pipeline(device)
    x0 = _randn(1, 4, 6, 10, seed=100, device=device)
    mask = torch.ones(1, 1, 6, 10, device=device)
    mask[..., :4] = 0.0
    flow = FlowMatchScheduler("FLUX.1")
    for scheduler in (pipe.scheduler, flow):
        scheduler.set_timesteps(4)
        latents = scheduler.add_noise(x0, _randn(1, 4, 6, 10, seed=101, device=device), scheduler.timesteps[0])
        for progress_id in range(4):
            prediction = _randn(1, 4, 6, 10, seed=110 + progress_id, device=device)
            nxt = pipe.step(scheduler, latents, progress_id, prediction, input_latents=x0, inpaint_mask=mask)
            plain = scheduler.step(prediction, scheduler.timesteps[progress_id], latents)
            ctx.check(
                torch.allclose(nxt[..., 4:], plain[..., 4:], atol=1e-6),
                f"{type(scheduler).__name__} step {progress_id}: the mask-1 region did not use the model's prediction",
            )
            latents = nxt
        error = float((latents[..., :4] - x0[..., :4]).abs().max())
        ctx.fact(f"{type(scheduler).__name__}: masked region vs input latents after the last step", error)
        ctx.check(error < 1e-4, f"{type(scheduler).__name__}: the mask-0 region ended {error} away from the input latents")


@scenario(
    "dodge-c-compile-pipeline",
    "DiffSynth compile_pipeline on the tiny SD pipeline (whole UNet) and a tiny FluxDiT (regional); nothing is run compiled",
    process="diffsynth-full",
    imports=("torch", "transformers", "torch._dynamo"),
)
def run_compile_pipeline(ctx: ScenarioContext) -> None:
    """``compile_pipeline()`` wraps the SD UNet whole (no ``_repeated_blocks``); ``compile_models=['dit']`` with a
    tiny FluxDiT attached wraps only its joint and single blocks; an empty ``_repeated_blocks`` wraps nothing.
    ``Module.compile`` only stores a compiled wrapper: no forward runs, so nothing is compiled."""
    from infralens.tiny import diffsynth_sd_pipeline

    from .diffsynth_full import _tiny_flux_dit

    device = ctx.device
    pipe = diffsynth_sd_pipeline(device)

    def wrapped(module: torch.nn.Module) -> list[str]:
        return [type(m).__name__ for m in module.modules() if getattr(m, "_compiled_call_impl", None) is not None]

    pipe.compile_pipeline()
    ctx.check(wrapped(pipe.unet) == ["UNet2DConditionModel"], f"the SD UNet should be wrapped whole, got {wrapped(pipe.unet)}")
    pipe.dit = _tiny_flux_dit(device)
    pipe.compile_pipeline(compile_models=["dit"])
    blocks = wrapped(pipe.dit)
    ctx.fact("FluxDiT modules wrapped", blocks)
    ctx.check(sorted(set(blocks)) == ["FluxJointTransformerBlock", "FluxSingleTransformerBlock"], f"regional compile wrapped {blocks}")
    pipe.vae._repeated_blocks = []
    pipe.compile_pipeline(compile_models=["vae"])
    ctx.check(wrapped(pipe.vae) == [], f"an empty _repeated_blocks should wrap nothing, wrapped {wrapped(pipe.vae)}")


@scenario(
    "dodge-c-teacache-reset",
    "TeaCache with rel_l1_thresh 0.1 over 4 steps: every middle step crosses it, computes and resets",
    process="diffsynth-full",
    imports=("torch", "transformers", "numpy"),
)
def run_teacache_reset(ctx: ScenarioContext) -> None:
    """Four ``model_fn_flux_image`` steps with a TeaCache threshold of 0.1: the rescaled change of each middle step
    exceeds it, so no step is skipped and each cached output equals the uncached one."""
    import_full_diffsynth()
    from diffsynth.pipelines.flux_image import TeaCache, model_fn_flux_image

    from .diffsynth_caching import _flux_step_inputs
    from .diffsynth_full import _tiny_flux_dit

    device = ctx.device
    dit = _tiny_flux_dit(device)
    inputs = _flux_step_inputs(device)
    timesteps = (1000.0, 980.0, 960.0, 940.0)
    cache = TeaCache(num_inference_steps=4, rel_l1_thresh=0.1)
    ran: list[int] = []
    handle = dit.blocks[0].register_forward_pre_hook(lambda module, args: ran.append(1))
    with torch.no_grad():
        cached = [
            model_fn_flux_image(dit, timestep=torch.tensor([t], device=device), tea_cache=cache, progress_id=step, num_inference_steps=4, **inputs)
            for step, t in enumerate(timesteps)
        ]
        handle.remove()
        plain = [model_fn_flux_image(dit, timestep=torch.tensor([t], device=device), **inputs) for t in timesteps]
    ctx.check(len(ran) == 4, f"with threshold 0.1 the blocks should run at all 4 steps, ran {len(ran)} times")
    ctx.check(all(torch.equal(a, b) for a, b in zip(cached, plain, strict=True)), "a step that computes should equal the uncached step")


@scenario(
    "dodge-c-attention",
    "DiffSynth initialize_attention_priority called again (variable set, unset) and SDPA's enable_gqa path",
    process="diffsynth-path",
    imports=("torch", "einops"),
)
def run_attention(ctx: ScenarioContext) -> None:
    """``initialize_attention_priority()`` with ``DIFFSYNTH_ATTENTION_IMPLEMENTATION=SAGE_Attention`` (lower-cased)
    and without it ("torch" here: no optional kernel is installed); the module global keeps its import-time value.
    Then ``TORCH_SUPPORT_GQA`` set to True for one call: SDPA's ``enable_gqa`` equals the repeat fallback."""
    module: Any = load_diffsynth_module("diffsynth.core.attention.attention")
    name = "DIFFSYNTH_ATTENTION_IMPLEMENTATION"
    saved_env = os.environ.get(name)
    at_import = module.ATTENTION_IMPLEMENTATION
    try:
        os.environ[name] = "SAGE_Attention"
        chosen = module.initialize_attention_priority()
        ctx.check(chosen == "sage_attention", f"the variable should be returned lower-cased, got {chosen!r}")
        os.environ.pop(name)
        fallback = module.initialize_attention_priority()
        ctx.check(fallback == "torch", f"with no variable and no optional kernel the choice should be 'torch', got {fallback!r}")
    finally:
        if saved_env is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved_env
    ctx.check(at_import == module.ATTENTION_IMPLEMENTATION, "calling the function again must not change the module global")

    generator = torch.Generator().manual_seed(157)
    q = torch.randn(1, 4, 6, 16, generator=generator).to(ctx.device)  # 4 query heads
    k, v = (torch.randn(1, 2, 10, 16, generator=generator).to(ctx.device) for _ in range(2))  # 2 key/value heads, 10 keys
    saved_gqa = module.TORCH_SUPPORT_GQA
    try:
        module.TORCH_SUPPORT_GQA = False
        repeated = module.attention_forward(q, k, v)
        module.TORCH_SUPPORT_GQA = True
        native = module.attention_forward(q, k, v)
    finally:
        module.TORCH_SUPPORT_GQA = saved_gqa
    difference = float((native - repeated).abs().max())
    ctx.fact("enable_gqa vs repeat fallback", difference)
    ctx.check(native.shape == q.shape and difference < 1e-6, f"enable_gqa differs from the repeat fallback by {difference}")


@scenario(
    "dodge-c-from-pretrained",
    "DiffSynth StableDiffusionPipeline.from_pretrained on a tiny local UNet checkpoint: no download, type detection refuses it",
    process="diffsynth-full",
    imports=("torch", "transformers", "safetensors"),
)
def run_from_pretrained(ctx: ScenarioContext) -> None:
    """``ModelConfig(path=...)`` needs no download; the pool hashes the tiny UNet's key names and shapes, finds
    no entry in ``MODEL_CONFIGS`` and raises ``ValueError: Cannot detect the model type``."""
    import tempfile

    from safetensors.torch import save_file

    from infralens.tiny import ds_tiny_unet

    import_full_diffsynth()
    from diffsynth.core.loader.config import ModelConfig
    from diffsynth.models import stable_diffusion_unet
    from diffsynth.pipelines.stable_diffusion import StableDiffusionPipeline

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "tiny_unet.safetensors")
        save_file({key: value.contiguous() for key, value in ds_tiny_unet(stable_diffusion_unet).state_dict().items()}, path)
        config = ModelConfig(path=path)
        ctx.check(not config.require_downloading(), "a config with a path should not download")
        try:
            StableDiffusionPipeline.from_pretrained(torch_dtype=torch.float32, device=ctx.device, model_configs=[config])
            ctx.check(False, "a tiny checkpoint should not be recognised")
        except ValueError as error:
            ctx.fact("from_pretrained error", str(error).split(" File:")[0])
            ctx.check("Cannot detect the model type" in str(error), f"unexpected error: {error}")
