"""Parameters per component and bytes of the weights per storage format, each format by its own rules.

Which tensors a format quantizes:

- ``fp32``, ``bf16``: every parameter at 4 / 2 bytes.
- ``fp16``: 2 bytes, except modules a transformers model lists in ``_keep_in_fp32_modules`` (T5's ``wo``), kept at fp32.
- ``fp8-layerwise``: diffusers' ``apply_layerwise_casting`` run for real on the meta model (storage float8_e4m3fn,
  compute bf16) with the patterns diffusers itself uses (``DEFAULT_SKIP_MODULES_PATTERN``, the class's
  ``_skip_layerwise_casting_patterns`` and ``_keep_in_fp32_modules``); what it does not cast stays bf16.
- ``int8-torchao``: torchao's int8 weight-only (``Int8WeightOnlyConfig``, 0.18): each ``nn.Linear`` weight as int8 plus,
  per output row, an fp32 scale and an int8 zero point (5 bytes a row).
- ``int8-quanto``: optimum-quanto ``qint8`` weights: ``nn.Linear`` and ``nn.Conv2d`` weights as int8 plus one bf16 scale per output channel.
- ``nf4-bnb``: bitsandbytes NF4 as ``BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")`` sets it up
  (``bnb_4bit_use_double_quant`` defaults to False): on ``nn.Linear`` weights 4 bits a weight, one fp32 absmax per
  block of 64 and the 16-entry NF4 code table (fp32) per tensor. CUDA-only here: computed from the rule, not measured.
- ``nf4-bnb-dq``: the same with ``bnb_4bit_use_double_quant=True``: the absmax are themselves quantized to 8 bits,
  with an fp32 scale per 256 blocks, one fp32 offset and the 256-entry code of that second quantization (fp32).
- ``gguf-q8_0`` / ``gguf-q4_0`` / ``gguf-q4_k``: ``nn.Linear`` weights whose rows divide into blocks (32, 32, 256
  values) become 34 / 18 / 144 bytes a block; other weights stay bf16.

Everything a format does not quantize (biases, norms, convolutions, embeddings) stays in bf16, the compute dtype.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from math import ceil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

FORMATS = ("fp32", "bf16", "fp16", "fp8-layerwise", "int8-torchao", "int8-quanto", "nf4-bnb", "nf4-bnb-dq", "gguf-q8_0", "gguf-q4_0", "gguf-q4_k")
GGUF_BLOCKS = {"gguf-q8_0": (32, 34), "gguf-q4_0": (32, 18), "gguf-q4_k": (256, 144)}
"""Values per block and bytes per block of each GGUF type (Q8_0: 32 int8 + fp16 scale; Q4_0: 16 bytes of nibbles + fp16
scale; Q4_K: a 256-value super-block of 128 bytes of nibbles, 12 bytes of 6-bit sub-scales and mins, fp16 d and dmin)."""
NF4_BLOCK = 64
NF4_NESTED_BLOCK = 256
NF4_CODE = 16 * 4
"""Per quantized tensor: the NF4 code (16 fp32 values)."""
NF4_TABLES = NF4_CODE + 256 * 4
"""Per tensor under double quantization: the NF4 code and the 8-bit dynamic code for the absmax (256 fp32)."""
BF16 = 2
TORCHAO_ROW_BYTES = 4 + 1
"""torchao int8 weight-only keeps an fp32 scale and an int8 zero point for each output row."""

LAYERWISE_SKIPPED = ("pos_embed", "patch_embed", "norm", "^proj_in$", "^proj_out$")
"""diffusers' ``DEFAULT_SKIP_MODULES_PATTERN`` as the installed release has it (a test holds the two equal); the count
itself reads the installed value (:func:`skip_patterns`), this copy only words the rule for pages that never import diffusers."""


def bits_per_weight(fmt: str) -> float:
    """Bits one quantized weight takes in *fmt*, its share of the block's scales included (per-tensor tables and
    per-row terms left out); for the plain dtypes, the dtype's width."""
    if fmt in GGUF_BLOCKS:
        block, size = GGUF_BLOCKS[fmt]
        return 8 * size / block
    if fmt == "nf4-bnb":
        return 4 + 32 / NF4_BLOCK
    if fmt == "nf4-bnb-dq":
        return 4 + 8 / NF4_BLOCK + 32 / (NF4_BLOCK * NF4_NESTED_BLOCK)
    widths = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8-layerwise": 8, "int8-torchao": 8, "int8-quanto": 8}
    if fmt not in widths:
        raise ValueError(f"unknown storage format {fmt!r}; known: {', '.join(FORMATS)}")
    return float(widths[fmt])


def format_rule(fmt: str) -> str:
    """What *fmt* assumes, in one sentence a page can print: what it stores, at how many bits, and what stays bf16."""
    bits = f"{bits_per_weight(fmt):.3g} bits a weight"
    skipped = ", ".join(p.strip("^$") for p in LAYERWISE_SKIPPED)
    rules = {
        "fp32": "every parameter in float32 (32 bits)",
        "bf16": "every parameter in bfloat16 (16 bits), the compute dtype of every format here",
        "fp16": "every parameter in float16 (16 bits), except the modules a transformers model lists in _keep_in_fp32_modules (kept in float32)",
        "fp8-layerwise": (
            "diffusers' layerwise casting: weights stored as float8_e4m3fn (8 bits) and upcast to bf16 for each layer's forward; "
            f"modules whose names match the skip patterns stay bf16: diffusers' defaults ({skipped}) plus the class's own "
            "_skip_layerwise_casting_patterns and _keep_in_fp32_modules"
        ),
        "int8-torchao": "torchao int8 weight-only: Linear weights in int8 plus an fp32 scale and an int8 zero point a row (8 bits a weight, 40 bits a row)",
        "int8-quanto": "optimum-quanto qint8: Linear and Conv2d weights in int8 plus a bf16 scale per output channel (8 bits a weight)",
        "nf4-bnb": (
            f"bitsandbytes NF4 with its default config (no double quantization): Linear weights in 4 bits plus an fp32 absmax per block of {NF4_BLOCK} = {bits}"
        ),
        "nf4-bnb-dq": (f"bitsandbytes NF4 with bnb_4bit_use_double_quant=True: the absmax in 8 bits with an fp32 scale per {NF4_NESTED_BLOCK} blocks = {bits}"),
    }
    if fmt in GGUF_BLOCKS:
        block, _ = GGUF_BLOCKS[fmt]
        kind = "super-blocks" if block > 32 else "blocks"
        return (
            f"GGUF {fmt.removeprefix('gguf-').upper()}: Linear weights in {kind} of {block} values, {bits} with the {kind}' scales; "
            "rows that do not divide into blocks stay bf16"
        )
    if fmt not in rules:
        raise ValueError(f"unknown storage format {fmt!r}; known: {', '.join(FORMATS)}")
    return rules[fmt]


_KINDS = (
    ("norm", re.compile(r"(^|[._])(norm\w*|\w*layernorm|layer_norm|final_layer_norm|ln_\w+|group_norm)([._]|$)")),
    ("attention", re.compile(r"(^|\.)(attn\d*|attention|self_attn|SelfAttention|EncDecAttention|to_q|to_k|to_v|to_out|add_[qkv]_proj|to_add_out)(\.|$)")),
    ("mlp", re.compile(r"(^|\.)(ff|ff_context|mlp|DenseReluDense|proj_mlp|fc1|fc2)(\.|$)")),
    ("head", re.compile(r"(^|\.)lm_head(\.|$)")),
    ("embeddings", re.compile(r"embed|embedding|time_text|pos_|position|shared|add_embedding|time_embedding|x_embedder|context_embedder|guidance")),
    ("resnets", re.compile(r"(^|\.)(resnets|conv\w*|downsamplers|upsamplers|conv_shortcut|quant_conv)(\.|$)")),
)


@dataclass(frozen=True)
class ParamBreakdown:
    """Exact parameter counts: the total, by kind of layer and by top-level child."""

    total: int
    by_kind: tuple[tuple[str, int], ...]
    by_child: tuple[tuple[str, int], ...]


def kind_of(name: str) -> str:
    """The kind of layer a parameter name belongs to (first matching rule; ``other`` if none)."""
    for kind, pattern in _KINDS:
        if pattern.search(name):
            return kind
    return "other"


def breakdown(model: torch.nn.Module) -> ParamBreakdown:
    kinds: Counter[str] = Counter()
    children: Counter[str] = Counter()
    total = 0
    for name, param in model.named_parameters():
        count = param.numel()
        total += count
        kinds[kind_of(name)] += count
        children[name.split(".")[0]] += count
    return ParamBreakdown(total=total, by_kind=tuple(sorted(kinds.items())), by_child=tuple(children.items()))


def q8_0_bytes(rows: int, cols: int) -> int:
    return gguf_bytes("gguf-q8_0", rows, cols)


def gguf_bytes(fmt: str, rows: int, cols: int) -> int:
    """Bytes of a (rows, cols) weight in a GGUF type; rows that do not divide into blocks stay bf16."""
    block, size = GGUF_BLOCKS[fmt]
    if cols % block:
        return rows * cols * BF16
    return rows * (cols // block) * size


def nf4_bytes(numel: int, *, double_quant: bool) -> int:
    """Bytes of one weight of *numel* values under bitsandbytes NF4, with or without double quantization."""
    blocks = ceil(numel / NF4_BLOCK)
    if not double_quant:
        return ceil(numel / 2) + 4 * blocks + NF4_CODE
    nested = ceil(blocks / NF4_NESTED_BLOCK)
    return ceil(numel / 2) + blocks + 4 * nested + 4 + NF4_TABLES


def int8_channel_bytes(out_channels: int, numel: int, scale_bytes: int = BF16) -> int:
    """int8 weights plus one scale per output channel."""
    return numel + out_channels * scale_bytes


def _module_of(model: torch.nn.Module) -> dict[str, torch.nn.Module]:
    return dict(model.named_modules())


def _keep_fp32(model: torch.nn.Module) -> list[str]:
    keep = getattr(model, "_keep_in_fp32_modules", None) or []
    return [str(name) for name in keep]


def format_bytes(model: torch.nn.Module, fmt: str) -> int:
    """Bytes of *model*'s parameters stored in *fmt* (the model is not changed, except ``fp8-layerwise`` which casts it)."""
    import torch

    if fmt == "fp8-layerwise":
        return _layerwise_fp8_bytes(model)
    modules = _module_of(model)
    total = 0
    keep = _keep_fp32(model)
    for name, param in model.named_parameters():
        owner_name, _, leaf = name.rpartition(".")
        owner = modules.get(owner_name)
        numel = param.numel()
        is_linear_weight = isinstance(owner, torch.nn.Linear) and leaf == "weight"
        if fmt == "fp32":
            total += numel * 4
        elif fmt == "bf16":
            total += numel * BF16
        elif fmt == "fp16":
            total += numel * (4 if any(part in keep for part in name.split(".")) else 2)
        elif fmt == "int8-torchao" and is_linear_weight:
            total += int8_channel_bytes(param.shape[0], numel, TORCHAO_ROW_BYTES)
        elif fmt == "int8-quanto" and leaf == "weight" and isinstance(owner, (torch.nn.Linear, torch.nn.Conv2d)):
            total += int8_channel_bytes(param.shape[0], numel, BF16)
        elif fmt in ("nf4-bnb", "nf4-bnb-dq") and is_linear_weight:
            total += nf4_bytes(numel, double_quant=fmt == "nf4-bnb-dq")
        elif fmt in GGUF_BLOCKS and is_linear_weight:
            total += gguf_bytes(fmt, param.shape[0], param.shape[1])
        elif fmt in FORMATS:
            total += numel * BF16
        else:
            raise ValueError(f"unknown storage format {fmt!r}; known: {', '.join(FORMATS)}")
    return total


def skip_patterns(model: torch.nn.Module) -> tuple[str, ...]:
    """The module-name patterns diffusers' ``enable_layerwise_casting`` leaves in the compute dtype, read from the installed code."""
    from diffusers.hooks.layerwise_casting import DEFAULT_SKIP_MODULES_PATTERN

    patterns = list(DEFAULT_SKIP_MODULES_PATTERN)
    patterns += [str(p) for p in getattr(model, "_keep_in_fp32_modules", None) or []]
    patterns += [str(p) for p in getattr(model, "_skip_layerwise_casting_patterns", None) or []]
    return tuple(sorted(set(patterns)))


def _layerwise_fp8_bytes(model: torch.nn.Module) -> int:
    """Run diffusers' layerwise casting on the (meta) model and add up what its parameters now take."""
    import torch
    from diffusers.hooks.layerwise_casting import apply_layerwise_casting

    model.to(torch.bfloat16)
    apply_layerwise_casting(model, torch.float8_e4m3fn, torch.bfloat16, skip_modules_pattern=skip_patterns(model))
    return sum(p.numel() * p.element_size() for p in model.parameters())
