"""Lab 23 starter: a quantized and an offloaded KV cache — what is stored, what is dequantized, what moves.

Run:  .venv/bin/python labs/lab-23-quantized-offloaded-cache/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds a 2-layer LLaMA with random weights in bfloat16 and generates with a quanto int4 QuantizedCache (residual 3,
groups of 8), printing after every forward layer 0's quantized and residual lengths; measures the bytes a token costs
in bf16, int4, int2 and fp8 on the stored tensors and the dequantization error; then drives an offloaded cache over a
config alternating full and sliding layers and prints which layer each prefetch picks and what each offload copies.
Last, the same byte counts at Llama-3.1-8B's published sizes. ``--check`` recomputes the answers to the exercises in
index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "first_quantized_forward": None,
    "residual_after_5_decodes": None,
    "quantized_after_5_decodes": None,
    "bf16_bytes_per_token_tiny": None,
    "int4_bytes_per_token_tiny": None,
    "int2_bytes_per_token_tiny": None,
    "dequantized_at_forward_5": None,
    "int2_step_over_int4_step": None,
    "fp8_residual_positions": None,
    "prefetched_for_1": None,
    "prefetched_for_4": None,
    "llama8b_int4_bytes_per_token": None,
    "llama8b_offload_gib_per_step_32k": None,
}

PRECISION = {"int2_step_over_int4_step": Decimals(1)}

SIZES = dict(
    hidden_size=64,
    intermediate_size=96,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=16,
    vocab_size=128,
    max_position_embeddings=256,
    bos_token_id=1,
    eos_token_id=2,
    pad_token_id=0,
)
PROMPT, NEW, RESIDUAL, GROUP = 5, 6, 3, 8


def quanto_unpack_in_python() -> None:
    """Unpack quanto's int4/int2 data on the CPU with quanto's own pure-PyTorch code, not the C++ extension it would
    compile at first use (which can take minutes); the integers are the same."""
    import torch
    from optimum.quanto.library.extensions import get_extension

    portable = torch._C.DispatchKeySet(torch._C.DispatchKey.CompositeExplicitAutograd)
    get_extension("quanto_cpp")._lib = SimpleNamespace(unpack=lambda packed, bits: torch.ops.quanto.unpack.default.redispatch(portable, packed, bits))


def quanto_config(nbits: int) -> dict:
    return {"backend": "quanto", "nbits": nbits, "residual_length": RESIDUAL, "q_group_size": GROUP}


def generate(model, prompt, **kwargs):
    import torch

    with torch.no_grad():
        return model.generate(prompt, max_new_tokens=NEW, do_sample=False, return_dict_in_generate=True, **kwargs)


def show_quantized(model, prompt, steps: int) -> dict:
    """Trace layer 0 of a quanto int4 cache after every forward: quantized and residual lengths."""
    seen: list[tuple[int, int]] = []

    def note(module, args, kwargs, output):
        layer = output.cache.layers[0]
        residual = layer.keys.shape[-2] if layer.keys.dim() == 4 else 0
        seen.append((int(layer._quantized_keys.shape[-2]), residual))

    handle = model.register_forward_hook(note, with_kwargs=True)
    generate(model, prompt, cache_implementation="quantized", cache_config=quanto_config(4))
    handle.remove()
    for index, (quantized, residual) in enumerate(seen[: steps + 1]):
        kind = "prefill" if index == 0 else "decode "
        print(f"forward {index} ({kind}): layer 0 holds {reveal(quantized)} quantized positions and {reveal(residual)} in the residual")
    # A decode step dequantizes what was quantized before it: the quantized length after the previous forward.
    last = len(seen) - 1
    print(f"forward {last} dequantizes {reveal(seen[last - 1][0])} positions of layer 0 (the whole quantized store)")
    first = next(index for index, (quantized, _) in enumerate(seen) if quantized)
    return {
        "first_quantized_forward": first,
        "residual_after_5_decodes": seen[5][1],
        "quantized_after_5_decodes": seen[5][0],
        "dequantized_at_forward_5": seen[4][0],
    }


def show_bytes(model, prompt) -> dict:
    """Bytes per token, measured on what each cache stores for its quantized (or only) part."""
    import torch
    from transformers import DynamicCache

    dynamic = DynamicCache(config=model.config)
    with torch.no_grad():
        model(input_ids=prompt, cache=dynamic)
    per_token = {"bf16": sum(layer.keys.nbytes + layer.values.nbytes for layer in dynamic.layers) // PROMPT}
    for nbits in (4, 2):
        cache = generate(model, prompt, cache_implementation="quantized", cache_config=quanto_config(nbits)).cache
        stored = positions = 0
        for layer in cache.layers:
            for qtensor in (layer._quantized_keys, layer._quantized_values):
                stored += qtensor._data._data.nbytes + qtensor._scale.nbytes + qtensor._shift.nbytes
            positions = layer._quantized_keys.shape[-2]
        per_token[f"int{nbits}"] = stored // positions
    fp8 = generate(model, prompt, cache_implementation="quantized", cache_config={"backend": "fp8"}).cache
    per_token["fp8"] = sum(layer._quantized_keys[0].nbytes + layer._quantized_values[0].nbytes for layer in fp8.layers) // fp8.get_seq_length()
    fp8_residual = fp8.layers[0].keys.numel()
    print("bytes per token: " + ", ".join(f"{name} {reveal(value)}" for name, value in per_token.items()))
    print(f"fp8 keeps {reveal(fp8_residual)} positions at full precision; its scale is one number per tensor")
    # The same group at 4 and at 2 bits: the step (scale) is (max - min) / 15 against (max - min) / 3.
    from transformers.cache_utils import QuantoQuantizedLayer

    keys = torch.randn(1, 2, PROMPT, 16, generator=torch.Generator().manual_seed(230)).to(model.dtype)
    steps, errors = {}, {}
    for nbits in (4, 2):
        layer = QuantoQuantizedLayer(nbits=nbits, q_group_size=GROUP, residual_length=RESIDUAL)
        qtensor = layer._quantize(keys, axis=0)
        steps[nbits] = qtensor._scale.float()
        errors[nbits] = float((qtensor.dequantize() - keys).abs().max())
    ratio = float((steps[2] / steps[4]).mean())
    print(f"max |dequantized - original| on random keys: int4 {errors[4]:.3f}, int2 {errors[2]:.3f}; int2 step / int4 step = {reveal(ratio, '.2f')}")
    return {
        "bf16_bytes_per_token_tiny": int(per_token["bf16"]),
        "int4_bytes_per_token_tiny": int(per_token["int4"]),
        "int2_bytes_per_token_tiny": int(per_token["int2"]),
        "int2_step_over_int4_step": ratio,
        "fp8_residual_positions": int(fp8_residual),
    }


def show_offloading(device: str) -> dict:
    """Drive an offloaded cache over full, sliding, full, sliding layers as Cache.update does, one decode step."""
    import torch
    from transformers import DynamicCache, MistralConfig
    from transformers.utils import logging

    logging.set_verbosity_error()
    config = MistralConfig(layer_types=["full_attention", "sliding_attention"] * 2, sliding_window=4, **dict(SIZES, num_hidden_layers=4))
    cache = DynamicCache(config=config, offloading=True, offload_only_non_sliding=True)
    picked: dict[int, int] = {}
    calls: list[int] = []
    for index, layer in enumerate(cache.layers):
        # Record which layer Cache.prefetch chose, then run the layer's own prefetch.
        layer.prefetch = lambda index=index, original=layer.prefetch: (calls.append(index), original())
    for length in (PROMPT, 1):
        for layer_idx in range(len(cache.layers)):
            states = torch.randn(1, 2, length, 16, device=device)
            if device == "cuda":
                cache.update(states, states, layer_idx)
                picked[layer_idx + 1] = calls[-1]
                continue
            # Cache.update's order without its two CUDA stream waits (which raise on a machine without CUDA).
            cache.prefetch(layer_idx + 1, cache.only_non_sliding)
            picked[layer_idx + 1] = calls[-1]
            cache.layers[layer_idx].update(states, states)
            updated = cache.layers[layer_idx].keys
            offloaded = not cache.is_sliding[layer_idx]
            copied = cache.layers[layer_idx].keys.nbytes + cache.layers[layer_idx].values.nbytes if offloaded else 0
            cache.offload(layer_idx, cache.only_non_sliding)
            if length == 1:
                copied_here = cache.layers[layer_idx].keys is not updated
                print(
                    f"decode, layer {layer_idx}: prefetch asked for {layer_idx + 1} copies back layer {reveal(picked[layer_idx + 1])}; "
                    f"offload sends the whole layer, {copied} bytes (on this CPU a copy was made: {copied_here})"
                )
    return {"prefetched_for_1": picked[1], "prefetched_for_4": picked[4]}


def show_llama(device: str) -> dict:
    import torch
    from transformers import LlamaConfig

    # Llama-3.1-8B's published sizes: 32 layers, 8 key/value heads of 128 dims; bf16 is 2 bytes, groups of 64.
    big = LlamaConfig(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8)
    values = 2 * big.num_hidden_layers * big.num_key_value_heads * (big.hidden_size // big.num_attention_heads)
    bf16 = torch.tensor([], dtype=torch.bfloat16).element_size()
    int4 = values * 4 // 8 + values // 64 * 2 * bf16
    print(f"Llama-3.1-8B bytes per token: bf16 {values * bf16}, int4 with groups of 64 {reveal(int4)}, int2 {values * 2 // 8 + values // 64 * 2 * bf16}")
    offload = 2 * 32768 * values * bf16 / 2**30
    print(f"an offloaded bf16 cache at 32k tokens copies {reveal(offload, '.0f')} GiB across the host link per decode step")
    return {"llama8b_int4_bytes_per_token": int(int4), "llama8b_offload_gib_per_step_32k": int(offload)}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=NEW - 1, steps_help="how many forwards to print").parse_args(argv)
    device = setup_torch(args.device)
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    quanto_unpack_in_python()
    torch.manual_seed(230)
    model = LlamaForCausalLM(LlamaConfig(**SIZES)).to(device=device, dtype=torch.bfloat16).eval()
    prompt = torch.randint(3, 128, (1, PROMPT), generator=torch.Generator().manual_seed(231)).to(device)
    answers: dict = {}
    answers.update(show_quantized(model, prompt, args.steps))
    answers.update(show_bytes(model, prompt))
    answers.update(show_offloading(device))
    answers.update(show_llama(device))
    return finish(args, ANSWERS, answers, tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
