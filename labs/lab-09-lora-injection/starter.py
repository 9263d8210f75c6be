"""Lab 09 starter: LoRA injection — load, scale, fuse, unfuse, unload; and DiffSynth's fuse.

Run:  .venv/bin/python labs/lab-09-lora-injection/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds the tiny SD pipeline, makes a random (non-zero) rank-4 peft LoRA for its attention
projections, loads it with ``pipe.load_lora_weights``, and prints: which layers were wrapped,
the A/B shapes and the alpha/r scaling, how the UNet output moves with the LoRA scale, that
fusing equals the unfused adapter and unfusing restores the base, the parameter cost, and
DiffSynth's GeneralLoRALoader fusing the same file into its own UNet. ``--check`` recomputes
the answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import contextlib
import io
import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "lora_tensors": None,
    "wrapped_layers": None,
    "rank": None,
    "scaling_alpha_over_r": None,
    "delta_at_scale_0": None,
    "layer_delta_ratio_scale_half": None,
    "lora_params_one_64x64_layer": None,  # r * (d_in + d_out) = 4 * (64 + 64)
    "fused_matches_adapter_1e-4": None,
    "unfuse_restores_base_1e-4": None,
    "diffsynth_fused_matches_1e-4": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"scaling_alpha_over_r": Decimals(2), "delta_at_scale_0": Decimals(6), "layer_delta_ratio_scale_half": Decimals(3)}


class UNetProbe:
    """One fixed (latent, timestep, text) input; ``run(scale)`` returns the UNet's prediction."""

    def __init__(self, unet, device):
        import torch

        generator = torch.Generator().manual_seed(0)
        self.unet = unet
        self.x = torch.randn(1, 4, 32, 32, generator=generator).to(device)
        self.text = torch.randn(1, 77, 32, generator=generator).to(device)

    def run(self, scale: float | None = None):
        import torch

        kwargs = {} if scale is None else {"cross_attention_kwargs": {"scale": scale}}
        with torch.no_grad():
            return self.unet(self.x, 10, encoder_hidden_states=self.text, **kwargs).sample


def diff(a, b) -> float:
    return float((a - b).abs().max())


def show_load(pipe, state_dict) -> dict:
    print("== 1. pipe.load_lora_weights: peft wraps the target layers")
    pipe.load_lora_weights(state_dict, adapter_name="tiny")
    wrapped = [(name, m) for name, m in pipe.unet.named_modules() if hasattr(m, "lora_A") and "tiny" in m.lora_A]
    name, layer = wrapped[0]
    a, b = layer.lora_A["tiny"].weight, layer.lora_B["tiny"].weight
    print(f"  {reveal(len(state_dict))} tensors in the file -> {reveal(len(wrapped))} wrapped layers, e.g. {name}")
    print(
        f"  base W {tuple(layer.base_layer.weight.shape)}, A {reveal(tuple(a.shape))}, B {reveal(tuple(b.shape))}, "
        f"scaling = lora_alpha / r = {reveal(layer.scaling['tiny'])}"
    )
    params = a.numel() + b.numel()
    print(
        f"  this layer: {reveal(params)} LoRA parameters vs {layer.base_layer.weight.numel()} in W "
        f"({reveal(100 * params / layer.base_layer.weight.numel(), '.1f')}%)"
    )
    return {
        "lora_tensors": len(state_dict),
        "wrapped_layers": len(wrapped),
        "rank": a.shape[0],
        "scaling_alpha_over_r": float(layer.scaling["tiny"]),
        "lora_params_one_64x64_layer": params,
        "layer": layer,
    }


def show_scales(probe, base, steps: int) -> dict:
    import torch

    print("== 2. The LoRA scale per call: cross_attention_kwargs={'scale': s}")
    result = {}
    for scale in torch.linspace(0, 1, max(steps, 2)).tolist():
        delta = diff(probe.run(scale), base)
        print(f"  scale {scale:.2f}: max |output - base| = {reveal(delta, '.4f') if scale == 0 else format(delta, '.4f')}")
        if scale == 0.0:
            result["delta_at_scale_0"] = delta
    return result


def show_layer_linearity(layer, unet, device) -> dict:
    import torch
    from diffusers.utils.peft_utils import scale_lora_layers, unscale_lora_layers

    print("== 3. One layer: y = W x + s * (alpha / r) * B A x")
    x = torch.randn(2, layer.in_features, generator=torch.Generator().manual_seed(1)).to(device)
    with torch.no_grad():
        base = layer.base_layer(x)
        full = layer(x) - base
        scale_lora_layers(unet, 0.5)
        half = layer(x) - base
        unscale_lora_layers(unet, 0.5)
    ratio = float(half.norm() / full.norm())
    print(f"  |delta at s=0.5| / |delta at s=1| = {reveal(ratio, '.6f')} (linear in s for one layer; the full UNet is not linear)")
    return {"layer_delta_ratio_scale_half": round(ratio, 6)}


def show_fuse(pipe, probe, base) -> dict:
    print("== 4. fuse_lora / unfuse_lora / unload_lora_weights")
    adapter = probe.run()
    half = probe.run(0.5)
    pipe.fuse_lora()
    fused = probe.run()
    pipe.unfuse_lora()
    unfused = probe.run(0.0)
    pipe.fuse_lora(lora_scale=0.5)
    fused_half = probe.run()
    pipe.unfuse_lora()
    pipe.unload_lora_weights()
    unloaded = probe.run()
    print(f"  fused vs adapter: {reveal(diff(fused, adapter), '.1e')}; fuse(lora_scale=0.5) vs scale 0.5: {diff(fused_half, half):.1e}")
    print(f"  after unfuse (scale 0) vs base: {reveal(diff(unfused, base), '.1e')}; after unload vs base: {diff(unloaded, base):.1e}")
    wrapped = sum(1 for m in pipe.unet.modules() if hasattr(m, "lora_A"))
    print(f"  layers still wrapped after unload: {wrapped}")
    return {"fused_matches_adapter_1e-4": diff(fused, adapter) < 1e-4, "unfuse_restores_base_1e-4": diff(unfused, base) < 1e-4, "adapter": adapter}


def show_diffsynth(base_state, state_dict, probe, adapter) -> dict:
    import warnings

    import torch

    from infralens.tiny import ds_tiny_unet, load_diffsynth_module

    print("== 5. DiffSynth (loaded from source): GeneralLoRALoader fuses W + alpha * B A for good")
    ds_unet = ds_tiny_unet(load_diffsynth_module("diffsynth.models.stable_diffusion_unet")).to(probe.x.device)
    ds_unet.load_state_dict(base_state)
    loader = load_diffsynth_module("diffsynth.utils.lora.general").GeneralLoRALoader(device=str(probe.x.device))
    lora = {key.removeprefix("unet."): value for key, value in state_dict.items()}
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()) as said:
        warnings.simplefilter("ignore")
        loader.fuse_lora_to_base_model(ds_unet, lora, alpha=1.0)
    count = said.getvalue().split(" tensors are fused", 1)[0].strip() or "?"
    print(f"  GeneralLoRALoader says: {reveal(count)} tensors are fused by LoRA (they cannot be cleared afterwards)")
    with torch.no_grad():
        got = ds_unet(probe.x, torch.tensor([10], device=probe.x.device), probe.text)
    print(f"  DiffSynth fused UNet vs diffusers + peft adapter: max |diff| = {reveal(diff(got, adapter), '.1e')}")
    return {"diffsynth_fused_matches_1e-4": diff(got, adapter) < 1e-4}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=3, steps_help="how many LoRA scales to sweep between 0 and 1").parse_args(argv)
    from infralens.tiny import lora_donor_state_dict, tiny_sd_components

    device = setup_torch(args.device)
    from diffusers import StableDiffusionPipeline

    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False).to(device)
    base_state = {key: value.clone() for key, value in pipe.unet.state_dict().items()}
    state_dict = lora_donor_state_dict(pipe.unet, rank=4)
    probe = UNetProbe(pipe.unet, device)
    base = probe.run()
    answers = show_load(pipe, state_dict)
    answers.update(show_scales(probe, base, args.steps))
    answers.update(show_layer_linearity(answers.pop("layer"), pipe.unet, device))
    answers.update(show_fuse(pipe, probe, base))
    answers.update(show_diffsynth(base_state, state_dict, probe, answers.pop("adapter")))
    return finish(args, ANSWERS, answers, tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
