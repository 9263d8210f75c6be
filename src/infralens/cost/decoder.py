"""What a decoder-only language model costs to serve, read off its modules' shapes on the ``meta`` device.

Nothing here runs a forward: every figure comes from walking the built model (:func:`shape_of`) and from
transformers' own rule for which layers keep a sliding-window cache (``cache_utils.get_layer_types_and_kwargs``).
A *projection* is an ``nn.Linear``; an attention module is one with ``q_proj``, ``k_proj`` and ``v_proj`` projections
(the attribute names of transformers' causal LMs); the output head is ``get_output_embeddings()``.

- **KV cache per token** (one sequence): Σ over attention layers of (``k_proj`` + ``v_proj`` output features) × bytes per
  value, i.e. 2 × layers × kv_heads × head_dim × bytes. A sliding-window layer holds at most its window of tokens.
- **Matmul FLOPs per token**: 2 × Σ in × out over every projection, the output head included (a multiply-add is 2
  FLOPs; biases, norms, rotary and activations are left out, as ``torch.utils.flop_counter`` leaves them out).
- **Attention FLOPs per attended key**: 4 × Σ ``q_proj`` output features (scores QKᵀ and the weighted sum AV, each
  2 × heads × head_dim per key).
- **Prefill of N tokens**: N × the projections without the head, plus the head once (``generate`` asks for the last
  position's logits only), plus causal attention: token *i* attends to min(*i*, window) keys.
- **Decode per token at context c**: the matmul FLOPs plus the attention FLOPs per key × c keys (min(c, window)).
- **Bytes a decode step reads** (batch B, context c): every weight once (the input embedding table only for the
  B rows looked up, unless the head shares it) plus B × the KV cache at c. The **bandwidth bound** on decode
  tokens per second is B × bandwidth ÷ those bytes: no kernel can beat it, and real ones reach a fraction of it.
- **Tokens that fit** a card after the weights: (card − weight bytes) ÷ KV bytes per token, runtime overheads
  (CUDA context, activations, allocator slack) not subtracted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

    from infralens.reports import DecoderCostRecord

GIB = 2**30
CARDS_GIB = (16, 24, 48, 80, 141)
"""Card memory sizes (GiB) for the KV fit: 16 and 24 GiB consumer cards, 48 GiB workstation cards, 80 GiB (A100, H100), 141 GiB (H200)."""
FIT_FORMATS = ("bf16", "int8-torchao", "nf4-bnb")
"""Weight formats the KV fit is worked out for (the KV cache itself in bf16)."""
KV_BYTES = 2
"""Bytes per cached key or value: bf16, the dtype the cache takes from the model."""
CONTEXTS = (4096, 32768, 131072)
"""Context lengths (tokens) for the KV cache per request and the decode FLOPs, unless ``--context`` names others; a
model's figures leave out contexts beyond its ``max_position_embeddings``."""
PREFILL_TOKENS = (512, 4096, 32768)
"""Prompt lengths for the prefill FLOPs."""
DECODE_BATCHES = (1, 16)
"""Sequences decoded together in one step for the bytes read and the bandwidth bound."""


@dataclass(frozen=True)
class Memory:
    """An accelerator's HBM bandwidth, as its maker states it (an input to the bound, not a measurement)."""

    name: str
    bytes_per_s: float
    source: str


HBM = (
    Memory("H100 SXM", 3.35e12, "NVIDIA H100 datasheet: 3.35 TB/s HBM3 (SXM5, 80 GB)"),
    Memory("H200", 4.8e12, "NVIDIA H200 datasheet: 4.8 TB/s HBM3e (141 GB)"),
    Memory("A100 80GB", 2.0e12, "NVIDIA A100 datasheet: 2,039 GB/s HBM2e (SXM, 80 GB), taken as 2.0 TB/s"),
    Memory("RTX 4090", 1.0e12, "NVIDIA RTX 4090 specifications: 1,008 GB/s GDDR6X (24 GB), taken as 1.0 TB/s"),
)
"""Stated memory bandwidths (10¹² bytes a second = 1 TB/s) the decode bound divides by."""


@dataclass(frozen=True)
class DecoderShape:
    """The sizes of one built decoder that its serving costs follow from."""

    hidden_size: int
    vocab_size: int
    head_dim: int
    q_widths: tuple[int, ...]
    """``q_proj`` output features of each attention layer (heads × head_dim)."""
    kv_widths: tuple[int, ...]
    """``k_proj`` + ``v_proj`` output features of each attention layer (2 × kv_heads × head_dim)."""
    windows: tuple[int | None, ...]
    """Each attention layer's sliding window (None: it keeps every token)."""
    body_macs: int
    """Multiply-adds per token of every projection except the output head."""
    head_macs: int
    """Multiply-adds per token of the output head (hidden × vocabulary)."""
    embedding_params: int
    """Parameters of the input embedding table when the head does not share it (else 0): a decode step reads only its rows."""
    max_positions: int | None = None
    """The config's ``max_position_embeddings``: contexts beyond it are left out of the figures."""

    @property
    def layers(self) -> int:
        return len(self.q_widths)

    @property
    def attention_heads(self) -> int:
        return self.q_widths[0] // self.head_dim

    @property
    def kv_heads(self) -> int:
        return self.kv_widths[0] // (2 * self.head_dim)

    def kv_bytes_per_token(self, dtype_bytes: int = KV_BYTES) -> int:
        return sum(self.kv_widths) * dtype_bytes

    def kv_bytes(self, context: int, dtype_bytes: int = KV_BYTES) -> int:
        """Bytes of one sequence's cache at *context* tokens (a sliding layer holds at most its window)."""
        return sum(width * _held(context, window) for width, window in zip(self.kv_widths, self.windows, strict=True)) * dtype_bytes

    @property
    def matmul_flops_per_token(self) -> int:
        return 2 * (self.body_macs + self.head_macs)

    @property
    def attention_flops_per_key(self) -> int:
        return 4 * sum(self.q_widths)

    def decode_flops(self, context: int) -> int:
        """FLOPs of one decode step for one sequence whose new token attends to *context* keys."""
        attention = sum(4 * width * _held(context, window) for width, window in zip(self.q_widths, self.windows, strict=True))
        return self.matmul_flops_per_token + attention

    def prefill_flops(self, tokens: int) -> int:
        """FLOPs of one prompt of *tokens* tokens, causal, with the head's logits for the last position only."""
        attention = sum(4 * width * _causal_keys(tokens, window) for width, window in zip(self.q_widths, self.windows, strict=True))
        return 2 * self.body_macs * tokens + 2 * self.head_macs + attention

    def bytes_read(self, weight_bytes: int, context: int, batch: int, dtype_bytes: int = KV_BYTES) -> int:
        """Bytes one decode step of *batch* sequences at *context* reads: weights once, the looked-up rows, every sequence's cache."""
        weights = weight_bytes - self.embedding_params * dtype_bytes + batch * self.hidden_size * dtype_bytes
        return weights + batch * self.kv_bytes(context, dtype_bytes)


def _held(context: int, window: int | None) -> int:
    return context if window is None else min(context, window)


def _causal_keys(tokens: int, window: int | None) -> int:
    """Σ over positions 1..tokens of the keys each attends to: min(i, window)."""
    if window is None or tokens <= window:
        return tokens * (tokens + 1) // 2
    return window * (window + 1) // 2 + (tokens - window) * window


def bound_tokens_per_s(batch: int, bytes_per_step: int, memory: Memory) -> float:
    """Decode tokens a second no implementation can exceed when each step must read *bytes_per_step* at *memory*'s bandwidth."""
    return batch * memory.bytes_per_s / bytes_per_step


def tokens_that_fit(card_gib: int, weight_bytes: int, kv_per_token: int) -> int:
    """Tokens of KV cache that fit on a card after the weights (0 when the weights alone do not fit)."""
    return max(card_gib * GIB - weight_bytes, 0) // kv_per_token


class NotADecoder(ValueError):
    """The model has no attention projections or no output head to cost as a decoder."""


def shape_of(model: torch.nn.Module) -> DecoderShape:
    """Walk *model*'s modules: its projections, attention layers, output head and input embeddings."""
    import torch

    head, embeddings = (_called(model, name) for name in ("get_output_embeddings", "get_input_embeddings"))
    if not isinstance(head, torch.nn.Linear) or not isinstance(embeddings, torch.nn.Embedding):
        raise NotADecoder(f"{type(model).__name__} has no linear output head or no input embedding table")
    attention = [module for _, module in model.named_modules() if _is_attention(module)]
    if not attention:
        raise NotADecoder(f"{type(model).__name__} has no attention module with q_proj, k_proj and v_proj")
    head_dims = {int(getattr(module, "head_dim", 0)) for module in attention}
    if len(head_dims) != 1 or 0 in head_dims:
        raise NotADecoder(f"{type(model).__name__}: its attention modules do not share one head_dim ({sorted(head_dims)})")
    body = sum(m.in_features * m.out_features for m in model.modules() if isinstance(m, torch.nn.Linear) and m is not head)
    shared = embeddings.weight is head.weight
    return DecoderShape(
        hidden_size=head.in_features,
        vocab_size=head.out_features,
        head_dim=head_dims.pop(),
        q_widths=tuple(module.q_proj.out_features for module in attention),
        kv_widths=tuple(module.k_proj.out_features + module.v_proj.out_features for module in attention),
        windows=_windows(getattr(model, "config", None), len(attention)),
        body_macs=body,
        head_macs=head.in_features * head.out_features,
        embedding_params=0 if shared else embeddings.weight.numel(),
        max_positions=getattr(getattr(model, "config", None), "max_position_embeddings", None),
    )


def _called(model: object, name: str) -> object:
    """What *model*'s method *name* returns (None when it has no such method): transformers' accessors of its head and embeddings."""
    method = getattr(model, name, None)
    return method() if callable(method) else None


def _is_attention(module: Any) -> bool:
    import torch

    return all(isinstance(getattr(module, name, None), torch.nn.Linear) for name in ("q_proj", "k_proj", "v_proj"))


def _windows(config: Any, layers: int) -> tuple[int | None, ...]:
    """Each layer's sliding window as transformers' cache decides it (its ``get_layer_types_and_kwargs``)."""
    if config is None:
        return (None,) * layers
    from transformers.cache_utils import get_layer_types_and_kwargs

    types, kwargs = get_layer_types_and_kwargs(config)
    if len(types) != layers:
        return (None,) * layers
    return tuple(int(extra["sliding_window"]) if extra.get("sliding_window") else None for extra in kwargs)


def decoder_record(shape: DecoderShape, weight_bytes: dict[str, int], contexts: tuple[int, ...] = CONTEXTS) -> DecoderCostRecord:
    """The report's record of one decoder: its shape, cache, FLOPs, card fits and decode steps (bf16 weights and cache)."""
    from infralens.reports import DecoderCostRecord, DecoderFitRecord, DecodeStepRecord

    per_token = shape.kv_bytes_per_token()
    contexts = tuple(c for c in contexts if shape.max_positions is None or c <= shape.max_positions)
    fits = tuple(
        DecoderFitRecord(weight_format=fmt, card_gib=card, weight_bytes=weight_bytes[fmt], tokens=tokens_that_fit(card, weight_bytes[fmt], per_token))
        for fmt in FIT_FORMATS
        for card in CARDS_GIB
    )
    steps = []
    for batch in DECODE_BATCHES:
        for context in contexts:
            read = shape.bytes_read(weight_bytes["bf16"], context, batch)
            steps.append(
                DecodeStepRecord(
                    batch=batch,
                    context=context,
                    flops=batch * shape.decode_flops(context),
                    kv_bytes=batch * shape.kv_bytes(context),
                    bytes_read=read,
                    bound_tokens_per_s={memory.name: round(bound_tokens_per_s(batch, read, memory), 1) for memory in HBM},
                )
            )
    windows = [window for window in shape.windows if window is not None]
    return DecoderCostRecord(
        layers=shape.layers,
        attention_heads=shape.attention_heads,
        kv_heads=shape.kv_heads,
        head_dim=shape.head_dim,
        hidden_size=shape.hidden_size,
        vocab_size=shape.vocab_size,
        kv_bytes_per_request={str(context): shape.kv_bytes(context) for context in contexts},
        matmul_flops_per_token=shape.matmul_flops_per_token,
        attention_flops_per_key=shape.attention_flops_per_key,
        prefill_flops={str(tokens): shape.prefill_flops(tokens) for tokens in PREFILL_TOKENS if shape.max_positions is None or tokens <= shape.max_positions},
        decode_flops_per_token={str(context): shape.decode_flops(context) for context in contexts},
        fits=fits,
        decode=tuple(steps),
        sliding_layers=len(windows),
        sliding_window=max(windows) if windows else None,
    )


def inputs_key(contexts: tuple[int, ...]) -> str:
    """What the decoder figures depend on besides the catalog (for the report's fingerprint)."""
    return repr((CARDS_GIB, FIT_FORMATS, KV_BYTES, contexts, PREFILL_TOKENS, DECODE_BATCHES, HBM))
