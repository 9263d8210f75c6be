"""Lab 15 starter: attention backends and compile — dispatch_attention_fn, set_attention_backend, regional compilation.

Run:  .venv/bin/python labs/lab-15-attention-backends-compile/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal] [--inductor]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Calls diffusers' attention dispatcher directly with the SDPA backends that run on CPU, asks for the kernels that
are not installed (flash-attn, SageAttention, xformers) three ways, switches the backend on a tiny Flux transformer
and on a classic attention module, then compiles the Flux blocks regionally (``backend="aot_eager"``; ``--inductor``
uses the default backend, about 40 s on two cores) and counts graphs and recompiles with ``torch._dynamo``'s
counters. Ends with DiffSynth's import-time kernel choice. ``--check`` recomputes the answers to the exercises in
index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time

from infralens.tiny.labkit import finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "default_active_backend": None,
    "explicit_flash_error": None,
    "context_flash_error": None,
    "native_flash_float32_checked_error": None,
    "flux_processors_with_backend": None,
    "active_after_reset": None,
    "classic_processor_has_backend": None,
    "graphs_for_two_blocks": None,
    "new_shape_recompiles": None,
    "diffsynth_implementation": None,
    "diffsynth_torch_support_gqa": None,
    "cost_flux_attention_tflop_2048": None,
    "cost_flux_attention_share_2048": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION: dict = {}


@contextlib.contextmanager
def recompile_log():
    """Collect torch._dynamo's recompile messages (why a guard failed) into a list instead of stderr."""
    import torch

    reasons: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: reasons.extend(line.strip() for line in record.getMessage().splitlines() if line.strip())  # type: ignore[method-assign]
    logger = logging.getLogger("torch._dynamo.guards.__recompiles")
    torch._logging.set_logs(recompiles=True)
    logger.propagate = False
    logger.addHandler(handler)
    try:
        yield reasons
    finally:
        logger.removeHandler(handler)
        torch._logging.set_logs(recompiles=False)


def error_name(call) -> str:
    try:
        call()
    except Exception as caught:  # the exercise asks which exception each path raises
        print(f"    {reveal(f'{type(caught).__name__}: {str(caught)[:110]}')}")
        return type(caught).__name__
    return "none"


def flux_inputs(device: str, tokens: int = 16):
    import torch

    generator = torch.Generator().manual_seed(150)
    return dict(
        hidden_states=torch.randn(1, tokens, 4, generator=generator).to(device),
        encoder_hidden_states=torch.randn(1, 8, 32, generator=generator).to(device),
        pooled_projections=torch.randn(1, 32, generator=generator).to(device),
        timestep=torch.tensor([0.5], device=device),
        guidance=torch.tensor([3.5], device=device),
        img_ids=torch.zeros(tokens, 3, device=device),
        txt_ids=torch.zeros(8, 3, device=device),
    )


def run_flux(model, device: str, tokens: int = 16):
    import torch

    with torch.no_grad():
        return model(**flux_inputs(device, tokens)).sample


def show_dispatch(device: str) -> dict:
    import torch
    from diffusers.models import attention_dispatch as ad

    registry, names = ad._AttentionBackendRegistry, ad.AttentionBackendName
    print("== 1. The registry and dispatch_attention_fn")
    print(f"  active backend: {reveal(registry._active_backend.value)}; {len(registry._backends)} backends registered; checks on: {registry._checks_enabled}")
    generator = torch.Generator().manual_seed(151)
    query, key, value = (torch.randn(1, 6, 2, 16, generator=generator).to(device) for _ in range(3))  # (batch, seq, heads, dim)
    native = ad.dispatch_attention_fn(query, key, value)
    for name in ("_native_math", "_native_flash"):
        # CUDA's flash kernel takes only half types (float32 finds no kernel there); CPU's runs float32.
        halves = name == "_native_flash" and device == "cuda"
        q, k, v = (t.to(torch.bfloat16) if halves else t for t in (query, key, value))
        out = ad.dispatch_attention_fn(q, k, v, backend=names(name)).float()
        print(f"  {name:14s} vs native: max |diff| = {float((out - native).abs().max()):.1e}{' (bfloat16 on CUDA)' if halves else ''}")
    answers = {"default_active_backend": registry._active_backend.value}
    print("  backend='flash' passed explicitly:")
    answers["explicit_flash_error"] = error_name(lambda: ad.dispatch_attention_fn(query, key, value, backend="flash"))
    print("  with attention_backend('flash'):")

    def enter_flash() -> None:
        with ad.attention_backend("flash"):
            pass

    answers["context_flash_error"] = error_name(enter_flash)
    print("  _native_flash on float32 with the checks on:")
    registry._checks_enabled = True
    try:
        answers["native_flash_float32_checked_error"] = error_name(lambda: ad.dispatch_attention_fn(query, key, value, backend=names._NATIVE_FLASH))
    finally:
        registry._checks_enabled = False
    return answers


def classic_model(device: str):
    import torch
    from diffusers import ModelMixin
    from diffusers.models.attention_processor import Attention, AttnProcessor2_0

    class Classic(ModelMixin):
        def __init__(self) -> None:
            super().__init__()
            self.attn = Attention(query_dim=32, heads=2, dim_head=16, processor=AttnProcessor2_0())

        def forward(self, hidden_states):
            return self.attn(hidden_states)

    torch.manual_seed(152)
    return Classic().to(device).eval()


def show_models(device: str) -> dict:
    from diffusers.models import attention_dispatch as ad

    from infralens.tiny.flux import tiny_flux_transformer

    registry = ad._AttentionBackendRegistry
    print("== 2. set_attention_backend / reset_attention_backend")
    flux = tiny_flux_transformer(seed=153).to(device)
    before = run_flux(flux, device)
    flux.set_attention_backend("_native_math")
    processors = [m.processor for m in flux.modules() if hasattr(m, "processor")]
    with_backend = sum(getattr(p, "_attention_backend", None) is not None for p in processors)
    print(f"  Flux: {reveal(with_backend)} of {len(processors)} processors ({type(processors[0]).__name__}) hold a backend")
    print(f"  active backend after set_attention_backend: {reveal(registry._active_backend.value)}")
    print(f"  Flux output change under _native_math: {float((run_flux(flux, device) - before).abs().max()):.1e}")
    flux.reset_attention_backend()
    after_reset = registry._active_backend.value
    print(f"  after reset_attention_backend: processors {[p._attention_backend for p in processors]}, active backend {reveal(after_reset)}")
    classic = classic_model(device)
    classic.set_attention_backend("_native_math")
    has_backend = hasattr(classic.attn.processor, "_attention_backend")
    print(f"  classic Attention with {type(classic.attn.processor).__name__}: has _attention_backend = {reveal(has_backend)}")
    registry.set_active_backend(ad.AttentionBackendName.NATIVE)
    return {"flux_processors_with_backend": with_backend, "active_after_reset": after_reset, "classic_processor_has_backend": has_backend}


def show_compile(device: str, steps: int, inductor: bool) -> dict:
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    from infralens.tiny.flux import tiny_flux_transformer

    backend = "inductor" if inductor else "aot_eager"
    print(f"== 3. compile_repeated_blocks(backend={backend!r}) on a Flux with 2 double-stream blocks")
    model = tiny_flux_transformer(seed=154, num_layers=2, num_single_layers=0).to(device)
    eager = run_flux(model, device)
    torch._dynamo.reset()
    counters.clear()
    model.compile_repeated_blocks(backend=backend, fullgraph=True)
    started = time.perf_counter()
    compiled = run_flux(model, device)
    first = time.perf_counter() - started
    graphs = counters["stats"]["unique_graphs"]
    print(f"  first call {first:.2f} s, {reveal(graphs)} graph(s) for 2 blocks, max |diff| vs eager {float((compiled - eager).abs().max()):.1e}")
    for step in range(steps):
        started = time.perf_counter()
        run_flux(model, device)
        print(f"  call {step + 2}: {1000 * (time.perf_counter() - started):.1f} ms, graphs {reveal(counters['stats']['unique_graphs'])}")
    started = time.perf_counter()
    # Without this flag the shape that failed the guard is made symbolic (a slower, dynamic recompile).
    with torch._dynamo.config.patch(automatic_dynamic_shapes=False), recompile_log() as reasons:
        run_flux(model, device, tokens=36)
    new_graphs = counters["stats"]["unique_graphs"]
    print(f"  36 image tokens instead of 16: {time.perf_counter() - started:.2f} s, graphs {reveal(graphs)} -> {reveal(new_graphs)}")
    for reason in reasons:
        print(f"    dynamo recompile log: {reveal(reason)}")
    torch._dynamo.reset()
    return {"graphs_for_two_blocks": graphs, "new_shape_recompiles": new_graphs > graphs}


def show_diffsynth() -> dict:
    from infralens.tiny.diffsynth_loader import load_diffsynth_module

    print("== 4. DiffSynth core/attention/attention.py")
    module = load_diffsynth_module("diffsynth.core.attention.attention")
    print(
        f"  ATTENTION_IMPLEMENTATION = {reveal(repr(module.ATTENTION_IMPLEMENTATION))} (chosen at import), "
        f"TORCH_SUPPORT_GQA = {reveal(module.TORCH_SUPPORT_GQA)}"
    )
    return {"diffsynth_implementation": module.ATTENTION_IMPLEMENTATION, "diffsynth_torch_support_gqa": module.TORCH_SUPPORT_GQA}


def main(argv: list[str] | None = None) -> int:
    parser = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="how many compiled calls to time after the first")
    parser.add_argument("--inductor", action="store_true", help="compile with the default inductor backend (slow on CPU)")
    args = parser.parse_args(argv)
    device = setup_torch(args.device)
    from diffusers.utils import logging as diffusers_logging

    diffusers_logging.get_logger("diffusers.models.modeling_utils").setLevel(logging.ERROR)
    answers = show_dispatch(device)
    answers.update(show_models(device))
    answers.update(show_compile(device, args.steps, args.inductor))
    answers.update(show_diffsynth())
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("15", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("15")})


if __name__ == "__main__":
    sys.exit(main())
