"""DiffSynth modules loaded path-based (no package ``__init__``, nothing stubbed): schedulers, SD models, LoRA.

Runs in its own worker process (see :mod:`infralens.tiny.diffsynth_loader`).
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.tiny import ds_tiny_unet, ds_tiny_vae, load_diffsynth_module, vram_config
from infralens.verify import ScenarioContext

PROCESS = "diffsynth-path"
IMPORTS = ("torch", "einops", "diffusers", "peft")


def _randn(*shape: int, seed: int, device: str) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(device)


def _diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.float() - b.float()).abs().max())


@scenario("diffsynth-flow-match", "FlowMatchScheduler templates, set_timesteps, add_noise, step loop")
def run_diffsynth_flow_match(ctx: ScenarioContext) -> None:
    """FLUX.1 and Wan templates; the exact velocity (eps - x0) integrates back to x0."""
    flow_match = load_diffsynth_module("diffsynth.diffusion.flow_match")
    x0 = _randn(1, 16, 6, 10, seed=30, device=ctx.device)
    eps = _randn(1, 16, 6, 10, seed=31, device=ctx.device)
    scheduler = flow_match.FlowMatchScheduler("FLUX.1")
    scheduler.set_timesteps(4)
    ctx.fact("FLUX.1 sigmas", [round(float(s), 4) for s in scheduler.sigmas])
    sample = scheduler.add_noise(x0, eps, scheduler.timesteps[0])
    target = scheduler.training_target(x0, eps, scheduler.timesteps[0])
    ctx.check(_diff(target, eps - x0) == 0.0, "training_target is not eps - x0")
    for timestep in scheduler.timesteps:
        sample = scheduler.step(target, timestep, sample)
    error = _diff(sample, x0)
    ctx.fact("x0 recovery error", error)
    ctx.check(error < 1e-4, f"FLUX.1 flow matching with the exact velocity missed x0 by {error}")

    wan = flow_match.FlowMatchScheduler("Wan")
    wan.set_timesteps(4, denoising_strength=0.5)
    ctx.fact("Wan strength 0.5 timesteps", [round(float(t), 1) for t in wan.timesteps])
    ctx.check(float(wan.timesteps[0]) < 1000.0, "denoising_strength 0.5 should start below t=1000")
    training = flow_match.FlowMatchScheduler("FLUX.1")
    training.set_timesteps(1000, training=True)
    ctx.check(len(training.timesteps) == 1000, "a training grid should have 1000 timesteps")


@scenario("diffsynth-ddim", "DiffSynth DDIMScheduler add_noise and step loop")
def run_diffsynth_ddim(ctx: ScenarioContext) -> None:
    """DiffSynth DDIM against diffusers' DDPM forward process; an oracle loop lands on x0."""
    from diffusers.schedulers.scheduling_ddpm import DDPMScheduler

    ddim = load_diffsynth_module("diffsynth.diffusion.ddim_scheduler")
    scheduler = ddim.DDIMScheduler()
    scheduler.set_timesteps(4)
    grid = [int(t) for t in scheduler.timesteps]
    ctx.fact("timesteps", grid)
    ctx.check(grid == [999, 666, 333, 0], f"DiffSynth DDIM 4-step grid is {grid}, expected 999, 666, 333, 0")
    x0 = _randn(1, 4, 6, 10, seed=32, device=ctx.device)
    eps = _randn(1, 4, 6, 10, seed=33, device=ctx.device)
    start = scheduler.timesteps[:1]
    sample = scheduler.add_noise(x0, eps, start)
    reference = DDPMScheduler(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012)
    expected = reference.add_noise(x0, eps, start.long().to(ctx.device))
    ctx.fact("add_noise vs diffusers", _diff(sample, expected))
    ctx.check(_diff(sample, expected) < 1e-5, f"add_noise differs from diffusers DDPM by {_diff(sample, expected)}")
    for timestep in scheduler.timesteps:  # oracle: the true noise of the current sample
        t = timestep.unsqueeze(0)
        abar = scheduler.alphas_cumprod[int(timestep)]
        noise = (sample - abar**0.5 * x0) / (1 - abar) ** 0.5
        sample = scheduler.step(noise, t, sample)
    error = _diff(sample, x0)
    ctx.fact("oracle x0 error", error)
    ctx.check(error < 1e-3, f"DDIM with the exact noise missed x0 by {error}")


@scenario("diffsynth-models", "SD UNet/VAE from tiny configs with diffusers weights, timestep embedding, TileWorker")
def run_diffsynth_models(ctx: ScenarioContext) -> None:
    """SD UNet and VAE built from tiny configs load diffusers weights strictly and match them;
    timestep embeddings agree; TileWorker tiles exactly for a pointwise model; the Flux VAE decoder tiles."""
    from diffusers.models.embeddings import get_timestep_embedding as diffusers_embedding

    from infralens.tiny import tiny_unet, tiny_vae

    device = ctx.device
    unet_module = load_diffsynth_module("diffsynth.models.stable_diffusion_unet")
    vae_module = load_diffsynth_module("diffsynth.models.stable_diffusion_vae")
    general = load_diffsynth_module("diffsynth.models.general_modules")
    flux_vae = load_diffsynth_module("diffsynth.models.flux_vae")

    reference_unet = tiny_unet(seed=0).to(device).eval()
    unet = ds_tiny_unet(unet_module, seed=1).to(device)
    keys = unet.load_state_dict(reference_unet.state_dict(), strict=True)
    ctx.check(not keys.missing_keys and not keys.unexpected_keys, f"UNet keys differ: {keys}")
    latents = _randn(1, 4, 24, 40, seed=34, device=device)
    text = _randn(1, 77, 32, seed=35, device=device)
    timestep = torch.tensor([10], device=device)
    with torch.no_grad():
        ours = unet(latents, timestep, text)
        ours = ours.sample if hasattr(ours, "sample") else ours
        theirs = reference_unet(latents, timestep, encoder_hidden_states=text).sample
    ctx.fact("UNet vs diffusers", _diff(ours, theirs))
    ctx.check(_diff(ours, theirs) < 1e-4, f"DiffSynth UNet differs from diffusers by {_diff(ours, theirs)}")

    reference_vae = tiny_vae(seed=0).to(device).eval()
    vae = ds_tiny_vae(vae_module, seed=1).to(device)
    keys = vae.load_state_dict(reference_vae.state_dict(), strict=True)
    images = _randn(1, 3, 48, 80, seed=36, device=device).clamp(-1, 1)
    with torch.no_grad():
        mean = vae.encode(images).mean
        reference_mean = reference_vae.encode(images).latent_dist.mean
    ctx.fact("VAE encode vs diffusers", _diff(mean, reference_mean))
    ctx.check(_diff(mean, reference_mean) < 1e-4, f"DiffSynth VAE encode differs from diffusers by {_diff(mean, reference_mean)}")

    steps = torch.tensor([1, 250, 999], device=device)
    embedding = general.get_timestep_embedding(steps, 32)
    reference = diffusers_embedding(steps, 32)
    ctx.fact("timestep embedding vs diffusers", _diff(embedding, reference))
    ctx.check(_diff(embedding, reference) < 1e-6, "timestep embeddings differ from diffusers")

    pointwise = torch.nn.Conv2d(4, 4, 1).to(device)
    grid = _randn(1, 4, 16, 24, seed=37, device=device)
    with torch.no_grad():
        tiled = flux_vae.TileWorker().tiled_forward(pointwise, grid, 8, 4, tile_device=device)
        plain = pointwise(grid)
    ctx.fact("TileWorker pointwise error", _diff(tiled, plain))
    ctx.check(_diff(tiled, plain) < 1e-5, f"tiling a pointwise model changed it by {_diff(tiled, plain)}")

    torch.manual_seed(2)
    decoder = flux_vae.FluxVAEDecoder().to(device).eval()
    latent = _randn(1, 16, 6, 8, seed=38, device=device)
    with torch.no_grad():
        full = decoder(latent)
        tiles = decoder(latent, tiled=True, tile_size=4, tile_stride=2)  # 4 overlapping tiles
    ctx.fact("Flux VAE decode shape", tuple(full.shape))
    ctx.check(full.shape == (1, 3, 48, 64) and tiles.shape == full.shape, f"Flux VAE decode shapes {tuple(full.shape)} / {tuple(tiles.shape)}")
    ctx.check(bool(torch.isfinite(tiles).all()), "tiled Flux VAE decode produced non-finite values")


def _diffusers_lora(unet_reference, with_alpha: bool) -> dict:
    from infralens.tiny import lora_donor_state_dict

    state = lora_donor_state_dict(unet_reference, rank=4, prefix="")
    if with_alpha:  # kohya-style files carry alpha per layer; alpha == rank keeps the same scale
        for key in list(state):
            if key.endswith("lora_B.weight"):
                state[key.replace("lora_B.weight", "alpha")] = torch.tensor(4.0)
    return state


@scenario("diffsynth-lora", "GeneralLoRALoader fuse; VRAM-managed hot-load")
def run_diffsynth_lora(ctx: ScenarioContext) -> None:
    """GeneralLoRALoader fuses a peft LoRA into the DiffSynth UNet exactly like diffusers+peft applies it;
    VRAM management (bf16 storage, fp32 compute) with the LoRA hot-loaded gives nearly the same output."""
    import warnings

    from infralens.tiny import LORA_TARGETS, tiny_unet

    device = ctx.device
    unet_module = load_diffsynth_module("diffsynth.models.stable_diffusion_unet")
    lora_module = load_diffsynth_module("diffsynth.utils.lora.general")
    layers = load_diffsynth_module("diffsynth.core.vram.layers")

    reference = tiny_unet(seed=0).to(device).eval()
    lora = _diffusers_lora(reference, with_alpha=False)
    latents = _randn(1, 4, 24, 40, seed=40, device=device)
    text = _randn(1, 77, 32, seed=41, device=device)
    timestep = torch.tensor([10], device=device)

    def run(model) -> torch.Tensor:
        with torch.no_grad():
            out = model(latents, timestep, text)
        return out.sample if hasattr(out, "sample") else out

    from peft import LoraConfig

    reference.add_adapter(LoraConfig(r=4, lora_alpha=4, target_modules=list(LORA_TARGETS)))
    from peft.utils import set_peft_model_state_dict

    set_peft_model_state_dict(reference, lora)
    with torch.no_grad():
        expected = reference(latents, timestep, encoder_hidden_states=text).sample
    base_state = {k: v for k, v in tiny_unet(seed=0).state_dict().items()}

    fused = ds_tiny_unet(unet_module).to(device)
    fused.load_state_dict(base_state)
    base = run(fused)
    loader = lora_module.GeneralLoRALoader(device=device, torch_dtype=torch.float32)
    loader.fuse_lora_to_base_model(fused, lora, alpha=1.0)
    got = run(fused)
    ctx.fact("fused vs diffusers+peft", _diff(got, expected))
    ctx.check(_diff(got, base) > 1e-4, "fusing the LoRA did not change the UNet")
    ctx.check(_diff(got, expected) < 1e-4, f"DiffSynth-fused LoRA differs from diffusers+peft by {_diff(got, expected)}")

    kohya = ds_tiny_unet(unet_module).to(device)
    kohya.load_state_dict(base_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loader.fuse_lora_to_base_model(kohya, _diffusers_lora(tiny_unet(seed=0), with_alpha=True), alpha=1.0)
    ctx.check(_diff(run(kohya), got) < 1e-5, "a LoRA with alpha == rank keys fused differently")

    managed = ds_tiny_unet(unet_module).to(device)
    managed.load_state_dict(base_state)
    module_map = {
        torch.nn.Linear: layers.AutoWrappedLinear,
        torch.nn.Conv2d: layers.AutoWrappedModule,
        torch.nn.GroupNorm: layers.AutoWrappedModule,
        torch.nn.LayerNorm: layers.AutoWrappedModule,
    }
    config = vram_config(device, torch.bfloat16)
    managed = layers.enable_vram_management(managed, module_map, config)
    wrapped = [m for m in managed.modules() if isinstance(m, (layers.AutoWrappedLinear, layers.AutoWrappedModule))]
    ctx.fact("wrapped modules", len(wrapped))
    for module in wrapped:
        module.offload()
    ctx.check(all(m.state == 0 for m in wrapped), "offload() did not move every wrapped module to state 0")
    for module in wrapped:
        module.onload()
    plain = run(managed)
    converted = loader.convert_state_dict(lora)
    patched = 0
    for module in managed.modules():
        if isinstance(module, layers.LoRAHotLoadMixin) and f"{module.name}.lora_A.weight" in converted:
            module.lora_A_weights.append(converted[f"{module.name}.lora_A.weight"])
            module.lora_B_weights.append(converted[f"{module.name}.lora_B.weight"])
            patched += 1
    hot = run(managed)
    ctx.fact("hot-loaded layers", patched)
    ctx.fact("bf16 storage change", _diff(plain, base))
    ctx.fact("hot-load vs fused", _diff(hot, got))
    ctx.check(patched == 48, f"expected 48 LoRA layers hot-loaded, patched {patched}")
    ctx.check(_diff(plain, base) < 0.1, f"bf16 storage changed the UNet by {_diff(plain, base)}")
    ctx.check(_diff(hot, got) < 0.1 and _diff(hot, plain) > 1e-4, "the hot-loaded LoRA does not act like the fused one")
