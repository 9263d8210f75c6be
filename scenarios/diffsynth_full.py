"""DiffSynth's pipelines, which need the whole package: imported with stub modules in their own process.

:func:`infralens.tiny.diffsynth_loader.import_full_diffsynth` documents what is stubbed and why
(torchvision, imageio, pandas: data-loading helpers we never call; modelscope: downloads we never do).
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.tiny import import_full_diffsynth, vram_config
from infralens.verify import ScenarioContext

PROCESS = "diffsynth-full"
IMPORTS = ("torch", "transformers", "peft")


def _randn(*shape: int, seed: int, device: str) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(device)


def _diff(a, b) -> float:
    import numpy as np

    return float(np.abs(np.asarray(a, dtype=np.float32) - np.asarray(b, dtype=np.float32)).max())


class _UNetCalls:
    """Forward pre-hook recording the batch size and timestep of each UNet call."""

    def __init__(self, module: torch.nn.Module) -> None:
        self.calls: list[tuple[int, int]] = []
        self.handle = module.register_forward_pre_hook(self._hook)

    def _hook(self, module, args) -> None:
        self.calls.append((args[0].shape[0], int(torch.as_tensor(args[1]).flatten()[0])))

    def remove(self) -> None:
        self.handle.remove()


@scenario("diffsynth-pipeline", "SD pipeline __call__ (package with stubs), CFG two passes, load_lora, VRAM management")
def run_diffsynth_pipeline(ctx: ScenarioContext) -> None:
    """SD ``__call__`` with CFG (two batch-1 UNet passes per step) and without; LoRA fused, then
    hot-loaded under VRAM management (models offloaded/onloaded by ``load_models_to_device``), cleared."""
    import_full_diffsynth()
    from diffsynth.core.vram.layers import AutoWrappedLinear, AutoWrappedModule, enable_vram_management

    from infralens.tiny import diffsynth_sd_pipeline, lora_donor_state_dict, tiny_unet

    device = ctx.device
    pipe = diffsynth_sd_pipeline(device)  # the same tiny pipeline the lab 04/05 starters use
    quiet = dict(height=48, width=80, seed=0, num_inference_steps=3, progress_bar_cmd=lambda steps: steps)
    calls = _UNetCalls(pipe.unet)
    image = pipe("a cat", cfg_scale=7.5, **quiet)
    ctx.fact("unet calls with CFG (batch, t)", calls.calls)
    ctx.check(image.size == (80, 48), f"image size {image.size}, expected 80 wide, 48 high")
    ctx.check([batch for batch, _ in calls.calls] == [1] * 6, f"CFG 7.5 should call the UNet 6 times with batch 1, got {calls.calls}")
    calls.calls.clear()
    plain = pipe("a cat", cfg_scale=1.0, **quiet)
    ctx.check(len(calls.calls) == 3, f"CFG 1.0 should call the UNet once per step, got {calls.calls}")
    calls.remove()

    lora = lora_donor_state_dict(tiny_unet(seed=0), rank=4, prefix="")
    base_state = {k: v.clone() for k, v in pipe.unet.state_dict().items()}
    pipe.load_lora(pipe.unet, state_dict=lora, alpha=1.0)
    fused = pipe("a cat", cfg_scale=1.0, **quiet)
    ctx.fact("fused LoRA image change", _diff(fused, plain))
    ctx.check(_diff(fused, plain) > 0, "a fused LoRA did not change the image")
    pipe.unet.load_state_dict(base_state)

    module_map = {torch.nn.Linear: AutoWrappedLinear, torch.nn.Conv2d: AutoWrappedModule, torch.nn.GroupNorm: AutoWrappedModule}
    config = vram_config(device, torch.float32)
    pipe.unet = enable_vram_management(pipe.unet, module_map, config)
    pipe.vae = enable_vram_management(pipe.vae, module_map, config)
    pipe.vram_management_enabled = pipe.check_vram_management_state()
    ctx.check(pipe.vram_management_enabled, "the pipeline did not notice VRAM management")
    managed = pipe("a cat", cfg_scale=1.0, **quiet)
    ctx.fact("VRAM-managed image change", _diff(managed, plain))
    pipe.load_lora(pipe.unet, state_dict=lora, alpha=1.0)
    hot = pipe("a cat", cfg_scale=1.0, **quiet)
    ctx.fact("hot-loaded vs fused image", _diff(hot, fused))
    ctx.check(_diff(hot, fused) <= 2, f"hot-loaded LoRA image differs from the fused one by {_diff(hot, fused)} levels")
    pipe.clear_lora(verbose=0)
    cleared = pipe("a cat", cfg_scale=1.0, **quiet)
    ctx.check(_diff(cleared, managed) == 0, "clear_lora did not restore the image")


class _StandInControlNet(torch.nn.Module):
    """Returns fixed random residuals for every joint and single block (a real Flux ControlNet is 3072 wide)."""

    def __init__(self, tokens: int, width: int, blocks: int, single_blocks: int, seed: int) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.res = torch.nn.ParameterList([torch.randn(1, tokens, width, generator=generator) * 0.1 for _ in range(blocks)])
        self.single = torch.nn.ParameterList([torch.randn(1, tokens, width, generator=generator) * 0.1 for _ in range(single_blocks)])

    def forward(self, controlnet_conditioning=None, processor_id=None, **kwargs):
        return list(self.res), list(self.single)


def _tiny_flux_dit(device: str, width: int = 64, heads: int = 2):
    """A FluxDiT with the real classes at 64 wide, 1 joint + 1 single block (FluxDiT hard-codes 3072)."""
    from diffsynth.models.flux_dit import (
        AdaLayerNormContinuous,
        FluxDiT,
        FluxJointTransformerBlock,
        FluxSingleTransformerBlock,
        RoPEEmbedding,
    )
    from diffsynth.models.general_modules import TimestepEmbeddings

    torch.manual_seed(50)
    dit = FluxDiT.__new__(FluxDiT)
    torch.nn.Module.__init__(dit)
    head_dim = width // heads
    dit.pos_embedder = RoPEEmbedding(width, 10000, [head_dim // 4, 3 * head_dim // 8, 3 * head_dim // 8])
    dit.time_embedder = TimestepEmbeddings(256, width)
    dit.guidance_embedder = TimestepEmbeddings(256, width)
    dit.pooled_text_embedder = torch.nn.Sequential(torch.nn.Linear(32, width), torch.nn.SiLU(), torch.nn.Linear(width, width))
    dit.context_embedder = torch.nn.Linear(32, width)
    dit.x_embedder = torch.nn.Linear(16, width)
    dit.blocks = torch.nn.ModuleList([FluxJointTransformerBlock(width, heads)])
    dit.single_blocks = torch.nn.ModuleList([FluxSingleTransformerBlock(width, heads)])
    dit.final_norm_out = AdaLayerNormContinuous(width)
    dit.final_proj_out = torch.nn.Linear(width, 16)
    dit.input_dim = 16
    return dit.to(device).eval()


@scenario("diffsynth-flux", "model_fn_flux_image on a tiny FluxDiT; MultiControlNet of 2 stand-ins; IP-Adapter K/V")
def run_diffsynth_flux(ctx: ScenarioContext) -> None:
    """``model_fn_flux_image`` on a tiny FluxDiT: patchify, joint + single blocks, adaLN, unpatchify;
    two stand-in ControlNets summed by MultiControlNet; an IP-Adapter K/V through interact_with_ipadapter."""
    import_full_diffsynth()
    from diffsynth.pipelines.flux_image import MultiControlNet, model_fn_flux_image
    from diffsynth.utils.controlnet import ControlNetInput

    device = ctx.device
    dit = _tiny_flux_dit(device)
    latents = _randn(1, 4, 6, 10, seed=51, device=device)
    common = dict(
        timestep=torch.tensor([500.0], device=device),
        prompt_emb=_randn(1, 6, 32, seed=52, device=device),
        pooled_prompt_emb=_randn(1, 32, seed=53, device=device),
        guidance=torch.tensor([3.5], device=device),
        text_ids=torch.zeros(1, 6, 3, device=device),
    )
    with torch.no_grad():
        plain = model_fn_flux_image(dit, latents=latents, **common)
        ctx.check(plain.shape == latents.shape, f"model_fn_flux_image returned {tuple(plain.shape)}, expected {tuple(latents.shape)}")
        tokens = 15  # (6 / 2) * (10 / 2) image tokens
        controlnet = MultiControlNet([_StandInControlNet(tokens, 64, 1, 1, seed=s) for s in (54, 55)]).to(device)
        inputs = [ControlNetInput(controlnet_id=0), ControlNetInput(controlnet_id=1)]
        guided = model_fn_flux_image(
            dit,
            controlnet=controlnet,
            latents=latents,
            controlnet_inputs=inputs,
            controlnet_conditionings=[latents, latents],
            progress_id=0,
            num_inference_steps=2,
            **common,
        )
        head_dim = 32
        ip = dict(ip_k=_randn(1, 2, 4, head_dim, seed=56, device=device), ip_v=_randn(1, 2, 4, head_dim, seed=57, device=device), scale=1.0)
        adapted = model_fn_flux_image(dit, latents=latents, ipadapter_kwargs_list={0: ip}, **common)
    ctx.fact("ControlNet change", float((guided - plain).abs().max()))
    ctx.fact("IP-Adapter change", float((adapted - plain).abs().max()))
    ctx.check(float((guided - plain).abs().max()) > 1e-4, "two ControlNets' residuals did not change the DiT output")
    ctx.check(float((adapted - plain).abs().max()) > 1e-4, "the IP-Adapter K/V did not change the DiT output")
