"""Variants of the DiffSynth scenarios whose data could not tell a claim apart (issue 39, group g5).

Each one runs the same upstream code as its parent scenario with inputs that make the note's claim
testable: a batch with mixed timesteps and out-of-range ones (DDIM ``add_noise`` reads element 0 and
clamps), an SD call with ``eta`` set and a size that is not a multiple of 8 (the grid ignores ``eta``,
the shape-check unit rounds up), a LoRA hot-loaded at ``alpha`` 0.5 (A is stored pre-multiplied), and
``MultiControlNet`` at several steps of a 4-step loop (progress runs from 1 down to 0).
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.tiny import import_full_diffsynth, load_diffsynth_module, vram_config
from infralens.verify import ScenarioContext

IMPORTS = ("torch",)


def _randn(*shape: int, seed: int, device: str) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(device)


@scenario("g5-ds-ddim-add-noise-edges", "DiffSynth DDIM add_noise: mixed-timestep batch, fractional, above and below the range", process="diffsynth-path")
def run_ddim_add_noise_edges(ctx: ScenarioContext) -> None:
    """``add_noise`` with a batch of two timesteps (500.7, 100), then 1200 and -5 (clamped to 999 and 0)."""
    ddim = load_diffsynth_module("diffsynth.diffusion.ddim_scheduler")
    scheduler = ddim.DDIMScheduler()
    x0 = _randn(2, 4, 8, 8, seed=60, device=ctx.device)
    eps = _randn(2, 4, 8, 8, seed=61, device=ctx.device)
    mixed = scheduler.add_noise(x0, eps, torch.tensor([500.7, 100.0]))
    abar = scheduler.alphas_cumprod[500]
    expected = abar**0.5 * x0 + (1 - abar) ** 0.5 * eps
    ctx.check(torch.allclose(mixed, expected, atol=1e-6), "a mixed-timestep batch was not noised at the first timestep (truncated to 500)")
    high = scheduler.add_noise(x0[:1], eps[:1], torch.tensor([1200]))
    low = scheduler.add_noise(x0[:1], eps[:1], torch.tensor([-5]))
    last, first = scheduler.alphas_cumprod[-1], scheduler.alphas_cumprod[0]
    ctx.check(torch.allclose(high, last**0.5 * x0[:1] + (1 - last) ** 0.5 * eps[:1], atol=1e-6), "t=1200 was not clamped to 999")
    ctx.check(torch.allclose(low, first**0.5 * x0[:1] + (1 - first) ** 0.5 * eps[:1], atol=1e-6), "t=-5 was not clamped to 0")


@scenario(
    "g5-ds-sd-pipeline-odd",
    "DiffSynth SD __call__ with eta=1.0 and a 60x60 request (rounded up to 64); a LoRA hot-loaded at alpha 0.5",
    process="diffsynth-full",
    imports=("torch", "transformers", "peft"),
)
def run_sd_pipeline_odd(ctx: ScenarioContext) -> None:
    """The grid and the image do not depend on ``eta``; 60x60 is rounded up to 64x64 by the shape-check unit;
    under VRAM management ``load_lora(alpha=0.5)`` hot-loads A already multiplied by 0.5."""
    import_full_diffsynth()
    from diffsynth.core.vram.layers import AutoWrappedLinear, AutoWrappedModule, LoRAHotLoadMixin, enable_vram_management

    from infralens.tiny import diffsynth_sd_pipeline, lora_donor_state_dict, tiny_unet

    device = ctx.device
    pipe = diffsynth_sd_pipeline(device)
    quiet = dict(seed=0, num_inference_steps=3, cfg_scale=7.5, progress_bar_cmd=lambda steps: steps)
    odd = pipe("a cat", eta=1.0, height=60, width=60, **quiet)
    ctx.check(odd.size == (64, 64), f"a 60x60 request gave {odd.size}, expected 64x64 (rounded up to a multiple of 8)")
    plain = pipe("a cat", eta=0.0, height=64, width=64, **quiet)
    import numpy as np

    difference = int(np.abs(np.asarray(odd, dtype=np.int16) - np.asarray(plain, dtype=np.int16)).max())
    ctx.fact("eta=1.0 vs eta=0.0 image difference", difference)
    ctx.check(difference == 0, f"eta changed the DiffSynth SD image by {difference} levels")

    lora = lora_donor_state_dict(tiny_unet(seed=0), rank=4, prefix="")
    module_map = {torch.nn.Linear: AutoWrappedLinear, torch.nn.Conv2d: AutoWrappedModule, torch.nn.GroupNorm: AutoWrappedModule}
    pipe.unet = enable_vram_management(pipe.unet, module_map, vram_config(device, torch.float32))
    pipe.vram_management_enabled = pipe.check_vram_management_state()
    pipe.load_lora(pipe.unet, state_dict=lora, alpha=0.5, verbose=0)
    patched = [m for m in pipe.unet.modules() if isinstance(m, LoRAHotLoadMixin) and getattr(m, "lora_A_weights", None)]
    ctx.fact("layers hot-loaded at alpha 0.5", len(patched))
    ctx.check(len(patched) == 48, f"expected 48 hot-loaded layers, got {len(patched)}")


class _Residuals(torch.nn.Module):
    """A stand-in ControlNet: one fixed residual per joint block and per single block."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.res = torch.nn.Parameter(torch.randn(1, 4, 8, generator=generator))
        self.single = torch.nn.Parameter(torch.randn(1, 4, 8, generator=generator))

    def forward(self, controlnet_conditioning=None, processor_id=None, **kwargs):
        return [self.res], [self.single]


@scenario(
    "g5-ds-multi-controlnet-steps",
    "MultiControlNet.forward at every step of a 4-step loop, one ControlNet active only in the first half",
    process="diffsynth-full",
    imports=("torch", "transformers"),
)
def run_multi_controlnet_steps(ctx: ScenarioContext) -> None:
    """Progress is 1, 2/3, 1/3, 0; the second ControlNet (start=1.0, end=0.5) is skipped once progress < 0.5."""
    import_full_diffsynth()
    from diffsynth.pipelines.flux_image import MultiControlNet
    from diffsynth.utils.controlnet import ControlNetInput

    models = MultiControlNet([_Residuals(70), _Residuals(71)]).to(ctx.device)
    inputs = [ControlNetInput(controlnet_id=0), ControlNetInput(controlnet_id=1, end=0.5)]
    hint = torch.zeros(1, 16, 2, 2, device=ctx.device)
    active = []
    with torch.no_grad():
        for progress_id in range(4):
            res, _ = models([hint, hint], inputs, progress_id=progress_id, num_inference_steps=4)
            both = torch.allclose(res[0], models.models[0].res + models.models[1].res)
            active.append(2 if both else 1)
    ctx.fact("ControlNets active per step", active)
    ctx.check(active == [2, 2, 1, 1], f"ControlNets active per step {active}, expected [2, 2, 1, 1]")
