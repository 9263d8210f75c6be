"""Lab 11 starter: what each memory option changes — attention slicing, model CPU offload,
layerwise casting in diffusers; VRAM management in DiffSynth.

Run:  .venv/bin/python labs/lab-11-memory-optimization/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Measures the largest attention-score tensor with classic and sliced attention (and CUDA peak
memory on a GPU), checks that SDPA, classic and sliced attention agree, counts the hooks model
CPU offload installs, compares weight bytes and outputs with float8 weight storage, and wraps
DiffSynth's SD UNet with its VRAM manager (bf16 storage, fp32 compute). ``--check``
recomputes the answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import copy
import sys

from infralens.tiny.labkit import finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "score_tensor_full_kib": None,  # (2 samples * 8 heads) x 256 x 256 float32
    "score_tensor_sliced_kib": None,  # one (sample, head) row at a time
    "attention_variants_agree_1e-4": None,
    "offload_hooks": None,  # text_encoder, unet, vae (image_encoder is None)
    "fp8_weight_bytes_below_half": None,
    "fp8_output_changed": None,
    "diffsynth_wrapped_modules": None,  # Linear + Conv2d + GroupNorm + LayerNorm layers of the tiny UNet
    "diffsynth_state_after_offload": None,
    "diffsynth_state_after_onload": None,
    "cost_sd15_batch5_decode_peak_gib": None,
    "cost_sd15_sequential_offload_s_20_steps": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION: dict = {}


class ScoreRecorder:
    """Wraps ``Attention.get_attention_scores`` (used by the classic and sliced processors) and
    remembers the largest score tensor it returned."""

    def __init__(self):
        from diffusers.models.attention_processor import Attention

        self.largest, self._cls, self._original = 0, Attention, Attention.get_attention_scores

    def __enter__(self):
        original = self._original

        def recording(attn, *args, **kwargs):
            scores = original(attn, *args, **kwargs)
            self.largest = max(self.largest, scores.numel() * scores.element_size())
            return scores

        self._cls.get_attention_scores = recording
        return self

    def __exit__(self, *exc):
        self._cls.get_attention_scores = self._original


def unet_inputs(device):
    import torch

    generator = torch.Generator().manual_seed(0)
    return (torch.randn(2, 4, 32, 32, generator=generator).to(device), torch.randn(2, 77, 32, generator=generator).to(device))


def run_unet(unet, inputs):
    import torch

    with torch.no_grad():
        return unet(inputs[0], 10, encoder_hidden_states=inputs[1]).sample


def cuda_peak(fn, device):
    import torch

    if device != "cuda":
        return fn(), None
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    out = fn()
    return out, torch.cuda.max_memory_allocated()


def show_attention(pipe, device) -> dict:
    from diffusers.models.attention_processor import AttnProcessor, AttnProcessor2_0

    print("== 1. Attention memory: the (batch*heads, N_q, N_kv) score matrix (batch 2 = CFG)")
    unet, inputs = pipe.unet, unet_inputs(device)
    sdpa, sdpa_peak = cuda_peak(lambda: run_unet(unet, inputs), device)
    unet.set_attn_processor(AttnProcessor())
    with ScoreRecorder() as full:
        classic, classic_peak = cuda_peak(lambda: run_unet(unet, inputs), device)
    pipe.enable_attention_slicing(1)
    with ScoreRecorder() as sliced_rec:
        sliced, sliced_peak = cuda_peak(lambda: run_unet(unet, inputs), device)
    pipe.disable_attention_slicing()
    unet.set_attn_processor(AttnProcessor2_0())
    agree = max(float((classic - sdpa).abs().max()), float((sliced - sdpa).abs().max()))
    print(
        f"  largest score tensor: classic {reveal(full.largest // 1024)} KiB, sliced(1) {reveal(sliced_rec.largest // 1024)} KiB; "
        "SDPA never returns one (fused kernel)"
    )
    print(f"  max |difference| between SDPA, classic and sliced outputs: {reveal(agree, '.1e')}")
    if device == "cuda":
        print(f"  CUDA peak allocated: SDPA {sdpa_peak // 1024} KiB, classic {classic_peak // 1024} KiB, sliced {sliced_peak // 1024} KiB")
    return {"score_tensor_full_kib": full.largest // 1024, "score_tensor_sliced_kib": sliced_rec.largest // 1024, "attention_variants_agree_1e-4": agree < 1e-4}


def show_layerwise_casting(unet, device) -> dict:
    import torch

    print("== 2. Layerwise casting: store weights in float8, compute in float32")
    inputs = unet_inputs(device)
    base = run_unet(unet, inputs)
    casted = copy.deepcopy(unet)
    before = sum(p.numel() * p.element_size() for p in casted.parameters())
    casted.enable_layerwise_casting(storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.float32)
    after = sum(p.numel() * p.element_size() for p in casted.parameters())
    kept = sum(p.numel() for p in casted.parameters() if p.dtype == torch.float32)
    kept_kinds = sorted({type(m).__name__ for m in casted.modules() if any(p.dtype == torch.float32 for p in m.parameters(recurse=False))})
    change = float((run_unet(casted, inputs) - base).abs().max())
    print(
        f"  weight bytes {before // 1024} KiB -> {reveal(after // 1024)} KiB ({reveal(after / before, '.2f')}x); "
        f"{kept} parameters stay float32, all in {', '.join(kept_kinds)} layers "
        "(the time embedding and the nested proj_in/proj_out are cast)"
    )
    print(f"  output max |change| = {reveal(change, '.3f')} (every weight was rounded once to float8)")
    return {"fp8_weight_bytes_below_half": after < before / 2, "fp8_output_changed": change > 0}


def show_offload(pipe, steps: int, device) -> dict:
    import torch

    print("== 3. Model CPU offload: accelerate hooks in model_cpu_offload_seq order")
    pipe.enable_model_cpu_offload(device=device)
    hooked = [type(hook.model).__name__ if hasattr(hook, "model") else type(hook).__name__ for hook in pipe._all_hooks]
    embeds = torch.randn(1, 77, 32, generator=torch.Generator().manual_seed(1))
    image = pipe(
        prompt_embeds=embeds,
        negative_prompt_embeds=torch.zeros_like(embeds),
        num_inference_steps=steps,
        output_type="np",
        generator=torch.Generator(device).manual_seed(0),
    ).images
    print(f"  order {pipe.model_cpu_offload_seq!r}: {reveal(len(pipe._all_hooks))} hooks {reveal(hooked)}; {steps}-step image {image.shape}")
    print("  (on a GPU each model moves to the device when it runs and back when the next one starts; on CPU the moves are no-ops)")
    return {"offload_hooks": len(pipe._all_hooks)}


def show_diffsynth(unet) -> dict:
    import torch

    from infralens.tiny import ds_tiny_unet, load_diffsynth_module

    print("== 4. DiffSynth VRAM management: every Linear/Conv/Norm wrapped with offload/onload states")
    layers = load_diffsynth_module("diffsynth.core.vram.layers")
    managed = ds_tiny_unet(load_diffsynth_module("diffsynth.models.stable_diffusion_unet"))
    managed.load_state_dict(unet.cpu().state_dict())
    module_map = {
        torch.nn.Linear: layers.AutoWrappedLinear,
        torch.nn.Conv2d: layers.AutoWrappedModule,
        torch.nn.GroupNorm: layers.AutoWrappedModule,
        torch.nn.LayerNorm: layers.AutoWrappedModule,
    }
    config = dict(
        offload_dtype=torch.bfloat16,
        offload_device="cpu",
        onload_dtype=torch.bfloat16,
        onload_device="cpu",
        preparing_dtype=torch.float32,
        preparing_device="cpu",
        computation_dtype=torch.float32,
        computation_device="cpu",
    )
    inputs = unet_inputs("cpu")
    with torch.no_grad():
        base = managed(inputs[0][:1], torch.tensor([10]), inputs[1][:1])
    managed = layers.enable_vram_management(managed, module_map, config)
    wrapped = [m for m in managed.modules() if isinstance(m, (layers.AutoWrappedLinear, layers.AutoWrappedModule))]
    fresh = {p.dtype for m in wrapped for p in m.parameters(recurse=True)}
    for module in wrapped:
        module.onload()
    onloaded_state = wrapped[0].state
    stored = {p.dtype for m in wrapped for p in m.parameters(recurse=True)}
    for module in wrapped:
        module.offload()
    offloaded_state = wrapped[0].state
    for module in wrapped:
        module.onload()
    with torch.no_grad():
        out = managed(inputs[0][:1], torch.tensor([10]), inputs[1][:1])
    print(
        f"  {reveal(len(wrapped))} wrapped modules; weight dtypes when wrapped {sorted(str(d) for d in fresh)}, "
        f"after onload() {sorted(str(d) for d in stored)} (the onload dtype)"
    )
    print(
        f"  state after offload() {reveal(offloaded_state)}, after onload() {reveal(onloaded_state)}; first forward moves Linear layers to "
        f"state {wrapped[0].state if isinstance(wrapped[0], layers.AutoWrappedLinear) else 'n/a'}"
    )
    print(f"  output max |change| vs the fp32 UNet: {float((out - base).abs().max()):.4f} (bf16 storage, fp32 compute)")
    return {"diffsynth_wrapped_modules": len(wrapped), "diffsynth_state_after_offload": offloaded_state, "diffsynth_state_after_onload": onloaded_state}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="steps of the offloaded pipeline run").parse_args(argv)
    from infralens.tiny import tiny_sd_components

    device = setup_torch(args.device)
    from diffusers import StableDiffusionPipeline

    pipe = StableDiffusionPipeline(**tiny_sd_components(seed=0), requires_safety_checker=False).to(device)
    pipe.set_progress_bar_config(disable=True)
    answers = show_attention(pipe, device)
    answers.update(show_layerwise_casting(pipe.unet, device))
    ds_source = copy.deepcopy(pipe.unet)
    answers.update(show_offload(pipe, args.steps, device))
    answers.update(show_diffsynth(ds_source))
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("11", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("11")})


if __name__ == "__main__":
    sys.exit(main())
