"""Lab 10 starter: ControlNet residuals (zero at init) and IP-Adapter's decoupled attention.

Run:  .venv/bin/python labs/lab-10-controlnet-conditioning/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds a ControlNet from the tiny UNet (``ControlNetModel.from_unet``) and prints: the residuals
it returns (one per skip connection plus the mid block) and that they are exactly zero at
initialisation; what happens to the UNet once the zero convolutions are "trained" (here: set to
random values); how ``conditioning_scale`` scales the residuals; how often the ControlNet
pipeline calls each network per step; and IP-Adapter's extra attention switched off and on.
``--check`` recomputes the answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import inspect
import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "down_residuals": None,
    "total_residual_tensors": None,  # 6 skip connections + the mid block
    "fresh_residual_max": None,
    "unet_change_with_fresh_controlnet": None,
    "residual_ratio_at_scale_half": None,
    "controlnet_calls_per_step": None,
    "controlnet_batch_under_cfg": None,
    "ip_adapter_scale_0_change": None,
    "diffsynth_sd_unet_takes_residuals": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {
    "fresh_residual_max": Decimals(6),
    "unet_change_with_fresh_controlnet": Decimals(6),
    "residual_ratio_at_scale_half": Decimals(3),
    "ip_adapter_scale_0_change": Decimals(6),
}


class Inputs:
    def __init__(self, device):
        import torch

        generator = torch.Generator().manual_seed(0)
        self.latents = torch.randn(1, 4, 32, 32, generator=generator).to(device)
        self.text = torch.randn(1, 77, 32, generator=generator).to(device)
        self.hint = torch.rand(1, 3, 64, 64, generator=generator).to(device)  # e.g. an edge map, pixels in [0, 1]


def residuals(controlnet, inputs, scale: float = 1.0):
    import torch

    with torch.no_grad():
        return controlnet(inputs.latents, 10, encoder_hidden_states=inputs.text, controlnet_cond=inputs.hint, conditioning_scale=scale, return_dict=False)


def unet_out(unet, inputs, down=None, mid=None):
    import torch

    with torch.no_grad():
        return unet(inputs.latents, 10, encoder_hidden_states=inputs.text, down_block_additional_residuals=down, mid_block_additional_residual=mid).sample


def show_fresh(unet, controlnet, inputs) -> dict:
    print("== 1. A fresh ControlNet: the residuals it returns, and what they do to the UNet")
    down, mid = residuals(controlnet, inputs)
    print(f"  down residuals: {reveal([tuple(tensor.shape) for tensor in down])}")
    print(f"  mid residual:   {tuple(mid.shape)}")
    largest = max(float(t.abs().max()) for t in [*down, mid])
    change = float((unet_out(unet, inputs, list(down), mid) - unet_out(unet, inputs)).abs().max())
    print(f"  max |residual| = {reveal(largest)}; UNet output change when they are added = {reveal(change)}")
    params = sum(p.numel() for p in controlnet.parameters())
    print(f"  ControlNet parameters {params} vs UNet {sum(p.numel() for p in unet.parameters())} (a copy of the encoder half)")
    total = len(down) + (1 if hasattr(mid, "shape") else len(mid))
    return {"down_residuals": len(down), "total_residual_tensors": total, "fresh_residual_max": largest, "unet_change_with_fresh_controlnet": change}


def show_trained(unet, controlnet, inputs) -> dict:
    import torch

    print("== 2. After 'training' (zero convs set to random values): the residuals steer the UNet")
    torch.manual_seed(1)
    for block in [*controlnet.controlnet_down_blocks, controlnet.controlnet_mid_block]:
        torch.nn.init.normal_(block.weight, std=0.02)
    base = unet_out(unet, inputs)
    down, mid = residuals(controlnet, inputs, 1.0)
    half_down, _ = residuals(controlnet, inputs, 0.5)
    off_down, off_mid = residuals(controlnet, inputs, 0.0)
    ratio = float(half_down[0].norm() / down[0].norm())
    print(f"  UNet output change with residuals: {float((unet_out(unet, inputs, list(down), mid) - base).abs().max()):.4f}")
    print(
        f"  conditioning_scale 0.5: first residual norm ratio {reveal(ratio, '.6f')}; scale 0: output change "
        f"{reveal(float((unet_out(unet, inputs, list(off_down), off_mid) - base).abs().max()))}"
    )
    return {"residual_ratio_at_scale_half": round(ratio, 6)}


def show_pipeline(components, controlnet, inputs, steps: int, device) -> dict:
    import torch
    from diffusers import StableDiffusionControlNetPipeline

    print(f"== 3. StableDiffusionControlNetPipeline, {steps} steps, CFG 6.0")
    pipe = StableDiffusionControlNetPipeline(**components, controlnet=controlnet, requires_safety_checker=False).to(device)
    pipe.set_progress_bar_config(disable=True)
    calls = {"controlnet": [], "unet": []}
    handles = [getattr(pipe, name).register_forward_pre_hook(lambda m, args, name=name: calls[name].append(args[0].shape[0])) for name in calls]
    image = pipe(
        prompt_embeds=inputs.text,
        negative_prompt_embeds=torch.zeros_like(inputs.text),
        image=inputs.hint,
        num_inference_steps=steps,
        guidance_scale=6.0,
        output_type="np",
        generator=torch.Generator(device).manual_seed(0),
    ).images
    for handle in handles:
        handle.remove()
    print(
        f"  image {image.shape}; ControlNet calls {reveal(len(calls['controlnet']))} (batch {reveal(calls['controlnet'])}), "
        f"UNet calls {len(calls['unet'])} (batch {calls['unet']})"
    )
    return {"controlnet_calls_per_step": len(calls["controlnet"]) // steps, "controlnet_batch_under_cfg": calls["controlnet"][0]}


def show_ip_adapter(device) -> dict:
    import torch
    from diffusers.models.attention_processor import Attention, AttnProcessor2_0, IPAdapterAttnProcessor2_0

    print("== 4. IP-Adapter: a second cross-attention over image tokens, added with a scale")
    torch.manual_seed(2)
    attention = Attention(query_dim=32, cross_attention_dim=32, heads=2, dim_head=16).to(device)
    processor = IPAdapterAttnProcessor2_0(hidden_size=32, cross_attention_dim=32, num_tokens=(4,), scale=0.0).to(device)
    generator = torch.Generator().manual_seed(3)
    hidden = torch.randn(1, 16, 32, generator=generator).to(device)
    text = torch.randn(1, 77, 32, generator=generator).to(device)
    image_tokens = torch.randn(1, 4, 32, generator=generator).to(device)
    with torch.no_grad():
        attention.set_processor(AttnProcessor2_0())
        plain = attention(hidden, encoder_hidden_states=text)
        attention.set_processor(processor)
        changes = {}
        for scale in (0.0, 0.5, 1.0):
            processor.scale = [scale]
            changes[scale] = float((attention(hidden, encoder_hidden_states=(text, [image_tokens])) - plain).abs().max())
    new_params = sum(p.numel() for p in processor.parameters())
    print(f"  16 image-latent tokens attend to 77 text tokens + 4 image-prompt tokens; new K/V parameters: {new_params}")
    print("  output change vs plain attention: " + ", ".join(f"scale {s}: {reveal(d, '.4f') if s == 0 else format(d, '.4f')}" for s, d in changes.items()))
    return {"ip_adapter_scale_0_change": changes[0.0]}


def show_diffsynth() -> dict:
    from infralens.tiny import load_diffsynth_module

    print("== 5. DiffSynth: no SD ControlNet (its SD UNet takes no residuals); ControlNets live on Flux/Qwen DiTs")
    unet_class = load_diffsynth_module("diffsynth.models.stable_diffusion_unet").UNet2DConditionModel
    parameters = list(inspect.signature(unet_class.forward).parameters)
    takes = "down_block_additional_residuals" in parameters
    print(f"  DiffSynth SD UNet.forward parameters: {reveal(parameters)}")
    return {"diffsynth_sd_unet_takes_residuals": takes}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="steps of the ControlNet pipeline run").parse_args(argv)
    from infralens.tiny import tiny_controlnet, tiny_sd_components

    device = setup_torch(args.device)
    components = tiny_sd_components(seed=0)
    unet = components["unet"].to(device).eval()
    controlnet = tiny_controlnet(unet).to(device).eval()
    inputs = Inputs(device)
    answers = show_fresh(unet, controlnet, inputs)
    answers.update(show_trained(unet, controlnet, inputs))
    answers.update(show_pipeline(components, controlnet, inputs, args.steps, device))
    answers.update(show_ip_adapter(device))
    answers.update(show_diffsynth())
    return finish(args, ANSWERS, answers, tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
