"""DiffSynth's counterparts of diffusers' cache and offload hooks: TeaCache in ``model_fn_flux_image`` and AutoWrappedModule.

Runs in the ``diffsynth-full`` worker process (``flux_image.py`` needs the whole package, imported with stubs).
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.tiny import import_full_diffsynth
from infralens.verify import ScenarioContext

from .diffsynth_full import _tiny_flux_dit

PROCESS = "diffsynth-full"
IMPORTS = ("torch", "transformers", "peft", "numpy")


def _flux_step_inputs(device: str, seed: int = 175) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return dict(
        latents=torch.randn(1, 4, 6, 10, generator=generator).to(device),
        prompt_emb=torch.randn(1, 6, 32, generator=generator).to(device),
        pooled_prompt_emb=torch.randn(1, 32, generator=generator).to(device),
        guidance=torch.tensor([3.5], device=device),
        text_ids=torch.zeros(1, 6, 3, device=device),
    )


@scenario("diffsynth-teacache", "TeaCache in model_fn_flux_image on a tiny FluxDiT: 3 steps, the middle one skipped")
def run_diffsynth_teacache(ctx: ScenarioContext) -> None:
    """Three denoising steps of ``model_fn_flux_image`` with a TeaCache: steps 0 and 2 compute, step 1 reuses the residual."""
    import_full_diffsynth()
    from diffsynth.pipelines.flux_image import TeaCache, model_fn_flux_image

    device = ctx.device
    dit = _tiny_flux_dit(device)
    inputs = _flux_step_inputs(device)
    timesteps = (1000.0, 980.0, 960.0)
    cache = TeaCache(num_inference_steps=3, rel_l1_thresh=10.0)
    ran: list[int] = []
    handle = dit.blocks[0].register_forward_pre_hook(lambda module, args: ran.append(1))
    cached, plain = [], []
    with torch.no_grad():
        for step, t in enumerate(timesteps):
            before = len(ran)
            cached.append(
                model_fn_flux_image(dit, timestep=torch.tensor([t], device=device), tea_cache=cache, progress_id=step, num_inference_steps=3, **inputs)
            )
            ctx.fact(f"step {step} blocks ran", len(ran) > before)
        handle.remove()
        for t in timesteps:
            plain.append(model_fn_flux_image(dit, timestep=torch.tensor([t], device=device), **inputs))
    ctx.check(len(ran) == 2, f"the joint block should run at steps 0 and 2 only, ran {len(ran)} times")
    ctx.check(torch.equal(cached[0], plain[0]), "step 0 always computes, so it should equal the uncached step")
    error = float((cached[1] - plain[1]).abs().max())
    ctx.fact("skipped step max error", error)
    ctx.check(error > 0.0, "the skipped step reuses step 0's residual, so it should differ from the full computation")
    ctx.check(cache.step == 0, f"after num_inference_steps calls the step counter should wrap to 0, is {cache.step}")


@scenario("diffsynth-vram-module", "AutoWrappedModule on a LayerNorm: bf16 offload/onload, float32 computation copy")
def run_diffsynth_vram_module(ctx: ScenarioContext) -> None:
    """AutoWrappedModule around a LayerNorm: stored in bfloat16 when offloaded and onloaded, computed on a float32 copy."""
    import_full_diffsynth()
    from diffsynth.core.vram.layers import AutoWrappedModule

    device = ctx.device
    torch.manual_seed(176)
    norm = torch.nn.LayerNorm(8).to(device)
    with torch.no_grad():
        norm.weight.normal_()
        norm.bias.normal_()
    x = torch.randn(3, 8, generator=torch.Generator().manual_seed(177)).to(device)
    with torch.no_grad():
        expected = torch.nn.functional.layer_norm(x, (8,), norm.weight.to(torch.bfloat16).float(), norm.bias.to(torch.bfloat16).float())
    wrapped = AutoWrappedModule(
        norm,
        offload_dtype=torch.bfloat16,
        offload_device="cpu",
        onload_dtype=torch.bfloat16,
        onload_device=device,
        preparing_dtype=torch.bfloat16,
        preparing_device=device,
        computation_dtype=torch.float32,
        computation_device=device,
    )
    wrapped.state = 1  # as if loaded, so offload() has something to do
    wrapped.offload()
    ctx.check(wrapped.state == 0 and norm.weight.dtype == torch.bfloat16, "offload should store the LayerNorm in bfloat16")
    wrapped.onload()
    ctx.check(wrapped.state == 1, "onload should set state 1")
    with torch.no_grad():
        out = wrapped(x)
    ctx.check(wrapped.state == 2, "the first forward should move the module to its preparing placement (state 2)")
    ctx.check(out.dtype == torch.float32 and norm.weight.dtype == torch.bfloat16, "the computation runs on a float32 copy; storage stays bfloat16")
    error = float((out - expected).abs().max())
    ctx.fact("max error vs float32 LayerNorm of the bf16 weights", error)
    ctx.check(error < 1e-5, f"the wrapped LayerNorm differs by {error}")

    # Left unset, preparing_dtype falls back to computation_dtype: the first forward then converts the stored module itself.
    promoted = AutoWrappedModule(
        torch.nn.LayerNorm(8).to(device), offload_dtype=torch.bfloat16, onload_dtype=torch.bfloat16, computation_dtype=torch.float32, computation_device=device
    )
    promoted.state = 1
    promoted.offload()
    promoted.onload()
    with torch.no_grad():
        promoted(x)
    ctx.fact("default preparing dtype after one call", promoted.module.weight.dtype)
    ctx.check(promoted.module.weight.dtype == torch.float32, "with preparing_dtype unset the first forward should store the module in float32")
