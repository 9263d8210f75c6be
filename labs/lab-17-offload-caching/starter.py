"""Lab 17 starter: offload and caching hooks — HookRegistry, group offloading, First Block Cache; DiffSynth's AutoWrappedModule.

Run:  .venv/bin/python labs/lab-17-offload-caching/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Chains three diffusers hooks on one Linear and removes them, group-offloads a tiny Flux transformer (leaf level in
memory, block level through safetensors files), turns First Block Cache on with a high threshold and counts which
blocks really run, then wraps a LayerNorm in DiffSynth's AutoWrappedModule. ``--check`` recomputes the answers to
the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import os
import sys
import tempfile

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "negate_bypassed": None,
    "use_stream_cpu_error": None,
    "disk_files_block_level": None,
    "fbc_default_threshold": None,
    "fbc_blocks_second_call": None,
    "outside_context_error": None,
    "disable_cache_exact": None,
    "diffsynth_default_preparing_dtype": None,
    "cost_flux_model_offload_s_per_image_batch4": None,
    "cost_flux_fbc_speedup_60pct": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"fbc_default_threshold": Decimals(2)}


def flux_inputs(device: str, timestep: float):
    import torch

    generator = torch.Generator().manual_seed(170)
    return dict(
        hidden_states=torch.randn(1, 16, 4, generator=generator).to(device),
        encoder_hidden_states=torch.randn(1, 8, 32, generator=generator).to(device),
        pooled_projections=torch.randn(1, 32, generator=generator).to(device),
        timestep=torch.tensor([timestep], device=device),
        guidance=torch.tensor([3.5], device=device),
        img_ids=torch.zeros(16, 3, device=device),
        txt_ids=torch.zeros(8, 3, device=device),
    )


def run(model, inputs):
    import torch

    with torch.no_grad():
        return model(**inputs).sample


def show_registry(device: str) -> dict:
    import torch
    from diffusers.hooks import HookRegistry, ModelHook

    class Affine(ModelHook):
        def __init__(self, scale, shift):
            super().__init__()
            self.scale, self.shift = scale, shift

        def pre_forward(self, module, *args, **kwargs):
            return (args[0] * self.scale,), kwargs

        def post_forward(self, module, output):
            return output + self.shift

    class Negate(ModelHook):
        def new_forward(self, module, *args, **kwargs):
            return -self.fn_ref.original_forward(*args, **kwargs)

    torch.manual_seed(171)
    layer = torch.nn.Linear(4, 4).to(device)
    x = torch.randn(2, 4, device=device)
    with torch.no_grad():
        plain = layer(x)
        registry = HookRegistry.check_if_exists_or_initialize(layer)
        registry.register_hook(Affine(2.0, 0.0), "double")
        registry.register_hook(Negate(), "negate")
        registry.register_hook(Affine(1.0, 1.0), "shift")
        print("hooks, innermost first:", registry._hook_order)
        registry.remove_hook("double")
        bypassed = bool(torch.allclose(layer(x), plain + 1, atol=1e-6))
    print(f"after removing 'double' the output is layer(x) + 1, negate bypassed: {reveal(bypassed)}")
    return {"negate_bypassed": bypassed}


def show_group_offload(device: str) -> dict:
    import torch
    from diffusers.hooks import apply_group_offloading

    from infralens.tiny import tiny_flux_transformer

    inputs = flux_inputs(device, 0.9)
    reference = run(tiny_flux_transformer(seed=17).to(device), inputs)
    leaves = tiny_flux_transformer(seed=17)
    apply_group_offloading(leaves, onload_device=device, offload_type="leaf_level")
    print(f"leaf level in memory: max error {float((run(leaves, inputs) - reference).abs().max()):.3g}")
    with tempfile.TemporaryDirectory() as folder:
        blocks = tiny_flux_transformer(seed=17)
        blocks.enable_group_offload(onload_device=device, offload_type="block_level", num_blocks_per_group=1, offload_to_disk_path=folder)
        files = len(os.listdir(folder))
        error = float((run(blocks, inputs) - reference).abs().max())
    print(f"block level on disk: {reveal(files)} safetensors files, max error {error:.3g}")
    try:
        apply_group_offloading(torch.nn.Sequential(torch.nn.Linear(2, 2)), onload_device="cpu", num_blocks_per_group=1, use_stream=True)
        stream_error = "none"
    except Exception as error_:
        stream_error = type(error_).__name__
    print(f"use_stream=True with a CPU onload device -> {reveal(stream_error)}")
    return {"use_stream_cpu_error": stream_error, "disk_files_block_level": files}


def show_first_block_cache(device: str, steps: int) -> dict:
    import torch
    from diffusers.hooks import FirstBlockCacheConfig

    from infralens.tiny import tiny_flux_transformer

    model = tiny_flux_transformer(seed=17).to(device)
    calls: list[str] = []
    for prefix in ("transformer_blocks", "single_transformer_blocks"):
        for index, block in enumerate(getattr(model, prefix)):
            block.attn.register_forward_pre_hook(lambda module, args, name=f"{prefix}.{index}": calls.append(name))
    timesteps = [0.9 - 0.05 * i for i in range(max(steps, 2))]
    plain = [run(model, flux_inputs(device, t)) for t in timesteps]
    model.enable_cache(FirstBlockCacheConfig(threshold=0.5))
    try:
        run(model, flux_inputs(device, timesteps[0]))
        outside = "none"
    except Exception as error:
        outside = type(error).__name__
    print(f"cached model called outside cache_context -> {reveal(outside)}")
    counts = []
    for t, reference in zip(timesteps, plain, strict=True):
        calls.clear()
        with model.cache_context("cond"):
            output = run(model, flux_inputs(device, t))
        counts.append(len(calls))
        ran = reveal(len(calls)) if len(counts) == 2 else len(calls)  # the exercise asks about the second call
        print(f"t={t:.2f}: {ran} block bodies ran, max difference from the uncached call {float((output - reference).abs().max()):.3g}")
    model.disable_cache()
    exact = bool(torch.equal(run(model, flux_inputs(device, timesteps[1])), plain[1]))
    print(f"after disable_cache the output equals the uncached run exactly: {reveal(exact)}")
    return {
        "fbc_default_threshold": FirstBlockCacheConfig().threshold,
        "fbc_blocks_second_call": counts[1],
        "outside_context_error": outside,
        "disable_cache_exact": exact,
    }


def show_diffsynth(device: str) -> dict:
    import torch

    from infralens.tiny import load_diffsynth_module

    layers = load_diffsynth_module("diffsynth.core.vram.layers")
    wrapped = layers.AutoWrappedModule(
        torch.nn.LayerNorm(8).to(device), offload_dtype=torch.bfloat16, onload_dtype=torch.bfloat16, computation_dtype=torch.float32, computation_device=device
    )
    wrapped.state = 1
    wrapped.offload()
    stored = wrapped.module.weight.dtype
    wrapped.onload()
    with torch.no_grad():
        wrapped(torch.randn(2, 8, device=device))
    after = str(wrapped.module.weight.dtype).replace("torch.", "")
    print(f"AutoWrappedModule: offloaded as {stored}, state {wrapped.state} after one call, stored dtype now {reveal(after)}")
    return {"diffsynth_default_preparing_dtype": after}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="how many cached denoiser calls to make (at least 2 are made)").parse_args(argv)
    device = setup_torch(args.device)
    answers: dict = {}
    answers.update(show_registry(device))
    answers.update(show_group_offload(device))
    answers.update(show_first_block_cache(device, args.steps))
    answers.update(show_diffsynth(device))
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("17", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("17")})


if __name__ == "__main__":
    sys.exit(main())
