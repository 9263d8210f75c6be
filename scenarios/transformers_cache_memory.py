"""transformers' quantized and offloaded KV caches on a tiny random-weight LLaMA (and a Mistral config mixing full and
sliding layers).

The quantized scenario checks the stored states against the keys the model really computed: layer 0's keys depend
only on the tokens (embedding, norm, projection, RoPE), so a cache-free forward over the generated sequence
recomputes them exactly, and the quantized part of the cache must match them within half a quantization step per
group while the full-precision residual matches them bit for bit (up to float rounding of a differently shaped
matmul).

The offloaded scenario runs ``generate(cache_implementation="offloaded")`` where the machine allows it. Its
``Cache.update`` synchronises CUDA streams, so on a machine without CUDA it raises; there the scenario calls the same
sequence ``Cache.update`` runs for every layer (prefetch the next offloaded layer, update this one, offload it)
without the two stream waits, which is all that differs.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

from .transformers_generation import BATCH, PROMPT, SIZES, generate, prompt_ids, tiny_llama

IMPORTS = (
    "torch",
    "transformers",
    "transformers.cache_utils",
    "transformers.generation.utils",
    "transformers.models.llama.modeling_llama",
    "optimum.quanto",
)

NEW = 6
"""New tokens: 5 decode forwards after the prefill, so a residual of 3 is flushed once and left holding 2."""
RESIDUAL, GROUP = 3, 8
"""The quantized cache's full-precision window and its quantization group (half of head dim 16)."""


def quanto_unpack_in_python() -> None:
    """Make quanto unpack int4/int2 data on the CPU with its own pure-PyTorch code instead of its C++ extension.

    On the CPU ``torch.ops.quanto.unpack`` calls an extension that quanto compiles with ninja at its first use
    (minutes on a loaded machine, again for every other path to the same environment). The op's default
    implementation, also quanto's (registered for every device), unpacks the same bits with masks and shifts; the
    dispatcher is asked for that one."""
    from optimum.quanto.library.extensions import get_extension  # type: ignore[import-untyped]

    portable = torch._C.DispatchKeySet(torch._C.DispatchKey.CompositeExplicitAutograd)
    get_extension("quanto_cpp")._lib = SimpleNamespace(unpack=lambda packed, bits: torch.ops.quanto.unpack.default.redispatch(portable, packed, bits))


def quanto_settings(nbits: int) -> dict[str, Any]:
    """The ``cache_config`` of the quantized runs: the quanto backend at ``nbits`` bits, a short residual, small groups."""
    return {"backend": "quanto", "nbits": nbits, "residual_length": RESIDUAL, "q_group_size": GROUP}


def layer0_keys(model: Any, sequences: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Layer 0's keys over every fed position (all but the last token), recomputed without a quantized cache.

    Positions count real tokens only, as ``generate`` numbers a left-padded row."""
    from transformers import DynamicCache

    fed = sequences[:, :-1]
    full_mask = torch.cat([mask, torch.ones_like(fed[:, mask.shape[1] :])], dim=-1)
    positions = (full_mask.cumsum(-1) - 1).clamp(min=0)
    cache: Any = DynamicCache(config=model.config)
    with torch.no_grad():
        model(input_ids=fed, attention_mask=full_mask, position_ids=positions, cache=cache)
    return cache.layers[0].keys


def stored_bytes(layer: Any) -> dict[str, int]:
    """What a quanto layer really holds: packed integer data, scales and shifts of its quantized keys and values,
    and the full-precision residual."""
    parts = {"data": 0, "scale_shift": 0}
    for qtensor in (layer._quantized_keys, layer._quantized_values):
        parts["data"] += qtensor._data._data.nbytes
        parts["scale_shift"] += qtensor._scale.nbytes + qtensor._shift.nbytes
    parts["residual"] = layer.keys.nbytes + layer.values.nbytes
    return parts


def within_half_step(qtensor: Any, original: torch.Tensor) -> bool:
    """Each group of the dequantized tensor is within half its quantization step (``scale / 2``) of ``original``."""
    error = (qtensor.dequantize() - original).reshape(-1, qtensor._group_size).abs().amax(-1)
    return bool((error <= qtensor._scale.reshape(-1) / 2 * (1 + 1e-5) + 1e-7).all())


@scenario("llm-quantized-cache", "tiny LLaMA generate with a quanto int4 and int2 QuantizedCache (residual 3, groups of 8)")
def run_quantized_cache(ctx: ScenarioContext) -> None:
    from transformers import QuantizedCache
    from transformers.cache_utils import QuantoQuantizedLayer

    quanto_unpack_in_python()
    model = tiny_llama(ctx.device)
    ids, mask = prompt_ids(ctx)
    fed = PROMPT + NEW - 1
    # Flushes at every RESIDUAL-th decode forward: the quantized part holds the prompt plus the flushed tokens.
    kept = (NEW - 1) % RESIDUAL
    for nbits in (4, 2):
        out = generate(
            model,
            ids,
            mask,
            max_new_tokens=NEW,
            do_sample=False,
            return_dict_in_generate=True,
            cache_implementation="quantized",
            cache_config=quanto_settings(nbits),
        )
        cache = out.cache
        ctx.check(type(cache) is QuantizedCache and all(type(layer) is QuantoQuantizedLayer for layer in cache.layers), f"generate built {cache}")
        ctx.check(out.sequences.shape == (BATCH, PROMPT + NEW), f"sequences {tuple(out.sequences.shape)}")
        layer = cache.layers[0]
        quantized = layer._quantized_keys
        ctx.check(layer.get_seq_length() == fed, f"{fed} positions fed, seq length {layer.get_seq_length()}")
        ctx.check(layer.keys.shape[-2] == kept and quantized.shape[-2] == fed - kept, f"residual {layer.keys.shape[-2]}, quantized {quantized.shape[-2]}")
        ctx.check(quantized.qtype.bits == nbits and quantized._data._data.dtype == torch.uint8, f"{quantized.qtype} packed as {quantized._data._data.dtype}")
        original = layer0_keys(model, out.sequences, mask)
        ctx.check(original.shape[-2] == fed, f"recomputed keys {tuple(original.shape)}")
        ctx.check(within_half_step(quantized, original[:, :, : fed - kept]), "the quantized keys are within half a step of the computed ones")
        ctx.check(torch.allclose(layer.keys, original[:, :, fed - kept :], atol=1e-5), "the residual holds the computed keys in full precision")
        parts = stored_bytes(layer)
        elements = 2 * quantized.numel()
        ctx.check(parts["data"] == elements * nbits // 8, f"{parts['data']} bytes of packed data for {elements} values at {nbits} bits")
        ctx.fact(f"int{nbits}_layer0_bytes", parts)
        ctx.fact(f"int{nbits}_max_error", float((quantized.dequantize() - original[:, :, : fed - kept]).abs().max()))
    # Only full-attention models: a sliding-window config is refused.
    from transformers import MistralConfig

    try:
        QuantizedCache("quanto", MistralConfig(sliding_window=4, **SIZES))
    except ValueError as refused:
        ctx.fact("sliding_refused", str(refused)[:60])
    else:
        ctx.check(False, "a QuantizedCache over sliding layers was built")


@scenario("llm-fp8-cache", "tiny LLaMA generate with the fp8 QuantizedCache: one frozen scale per tensor, no residual")
def run_fp8_cache(ctx: ScenarioContext) -> None:
    model = tiny_llama(ctx.device)
    ids, mask = prompt_ids(ctx)
    fed = PROMPT + NEW - 1
    out = generate(
        model, ids, mask, max_new_tokens=NEW, do_sample=False, return_dict_in_generate=True, cache_implementation="quantized", cache_config={"backend": "fp8"}
    )
    layer = out.cache.layers[0]
    stored, scale = layer._quantized_keys
    ctx.check(stored.dtype == torch.float8_e4m3fn and stored.shape[-2] == fed and layer.keys.numel() == 0, f"fp8 keys {stored.dtype} {tuple(stored.shape)}")
    original = layer0_keys(model, out.sequences, mask)
    ctx.check(bool(original.abs().amax() <= scale * layer.fp8_max * (1 + 1e-6)), "no later key exceeds the range the prefill's scale allows")
    error = (stored.float() * scale - original).abs()
    ctx.check(bool((error <= original.abs() * 2**-4 + scale * 2**-9).all()), "fp8 keys within e4m3's rounding of the computed ones")
    ctx.fact("fp8_max_error", float(error.max()))


@scenario("llm-offloaded-cache", "offloaded DynamicCache: generate on CUDA, or on CPU the per-layer prefetch/update/offload sequence")
def run_offloaded_cache(ctx: ScenarioContext) -> None:
    from transformers import DynamicCache, MistralConfig

    model = tiny_llama(ctx.device)
    ids, mask = prompt_ids(ctx)
    try:
        out = generate(model, ids, mask, max_new_tokens=2, do_sample=False, return_dict_in_generate=True, cache_implementation="offloaded")
    except (AssertionError, RuntimeError) as error:
        ctx.check(not torch.cuda.is_available(), f"offloaded generate failed with CUDA available: {error}")
        ctx.fact("offloaded_generate", f"raises without CUDA: {type(error).__name__}")
    else:
        devices = [layer.keys.device.type for layer in out.cache.layers]
        # The last layer's update prefetches layer 0 (wrapping around) and then offloads itself.
        ctx.check(devices == [ctx.device, "cpu"], f"after generate the layers live on {devices}")
        ctx.fact("offloaded_generate", devices)
    # A config mixing full and sliding layers, as an offloaded cache that keeps the sliding layers resident sees it.
    layout: dict[str, Any] = dict(SIZES, num_hidden_layers=4, layer_types=["full_attention", "sliding_attention"] * 2)
    config = MistralConfig(sliding_window=4, **layout)
    for only_non_sliding in (True, False):
        cache: Any = DynamicCache(config=config, offloading=True, offload_only_non_sliding=only_non_sliding)
        ctx.check(cache.is_sliding == [False, True, False, True], f"layer kinds {cache.is_sliding}")
        # Which layer object each prefetch and offload reaches, in order (the annotations' expects read it: on the CPU
        # the moves themselves leave no trace).
        calls: list[tuple[str, int]] = []
        for index, layer in enumerate(cache.layers):
            for name in ("prefetch", "offload"):
                original = getattr(layer, name)
                setattr(layer, name, lambda name=name, index=index, original=original, calls=calls: (calls.append((name, index)), original())[1])
        cache._calls = calls
        for length in (PROMPT, 1):
            for layer_idx in range(len(cache.layers)):
                # Keys hold their position (plus 100 per layer) and values their negation, so a copy is easy to check.
                start = cache.layers[layer_idx].get_seq_length()
                keys = (torch.arange(start, start + length, dtype=torch.float32) + 100 * layer_idx).to(ctx.device)
                keys = keys[None, None, :, None].expand(1, 2, length, 16).contiguous()
                # The layer `Cache.update` asks `prefetch` for (the expects of `Cache.prefetch` compare its pick with it).
                cache._prefetch_asked = layer_idx + 1
                if ctx.device == "cuda":
                    cache.update(keys, -keys, layer_idx)
                else:
                    # Cache.update without its two CUDA stream waits.
                    cache.prefetch(layer_idx + 1, cache.only_non_sliding)
                    cache.layers[layer_idx].update(keys, -keys)
                    cache.offload(layer_idx, cache.only_non_sliding)
        devices = [layer.keys.device.type for layer in cache.layers]
        ctx.check(all(layer.get_seq_length() == PROMPT + 1 for layer in cache.layers), "every layer saw prompt + 1 tokens")
        ctx.check(all(torch.equal(layer.values, -layer.keys) for layer in cache.layers), "keys and values kept together")
        if ctx.device == "cpu":
            # What offloading does here: a tensor already on the CPU is returned as is, so nothing is copied.
            ctx.check(all(layer.keys.to("cpu", non_blocking=True) is layer.keys for layer in cache.layers), "cpu -> cpu is no copy")
        offloaded = sorted({index for name, index in calls if name == "offload"})
        ctx.check(offloaded == ([0, 2] if only_non_sliding else [0, 1, 2, 3]), f"layers offloaded: {offloaded}")
        ctx.fact(f"devices_only_non_sliding_{only_non_sliding}", devices)
