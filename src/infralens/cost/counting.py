"""Count one forward on meta tensors: FLOPs (``FlopCounterMode``, a multiply-add is 2) and the peak of live activations.

Attention runs as one fused kernel, as it does on a GPU: a ``TorchFunctionMode`` sends every
``F.scaled_dot_product_attention`` call to ATen's memory-efficient attention, whose meta kernel gives the
output shape and for which ``FlopCounterMode`` has its formula (4·B·H·Lq·Lk·D forward). Without this, the
meta device picks the math path and the L×L score matrix would show up as a live activation that no GPU
backend keeps. Attention FLOPs are those of the fused kernels plus any ``bmm``/``baddbmm`` (models that
multiply queries and keys themselves, like T5); everything else (linear layers, convolutions) is the rest.

The activation peak comes from a ``TorchDispatchMode`` that sees every tensor an operator returns: each new
storage is counted when it appears and subtracted when its last tensor is collected (``weakref.finalize``).
Parameters and the inputs made before the forward are not activations and are not counted.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

ATTENTION_OPS = frozenset(
    {
        "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_cudnn_attention",
        "_scaled_dot_product_flash_attention_for_cpu",
        "bmm",
        "baddbmm",
    }
)


@dataclass(frozen=True)
class ForwardCount:
    """What one forward cost."""

    flops: int
    attention_flops: int
    peak_activation_bytes: int
    by_module: tuple[tuple[str, int], ...]
    """FLOPs of each module (fully qualified name as FlopCounterMode reports it)."""


class FusedAttention(TorchFunctionMode):
    """Send ``scaled_dot_product_attention`` to the memory-efficient ATen kernel (one fused op, counted by formula)."""

    def __torch_function__(self, func: Callable[..., Any], types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        if func is torch.nn.functional.scaled_dot_product_attention:
            return _fused(*args, **kwargs)
        return func(*args, **kwargs)


def _fused(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    if key.shape[-3] != query.shape[-3]:  # grouped heads: repeat keys and values to the query's heads
        repeat = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(repeat, -3), value.repeat_interleave(repeat, -3)
    bias = attn_mask
    if bias is not None and bias.dtype == torch.bool:
        bias = torch.zeros(bias.shape, dtype=query.dtype, device=query.device)
    if bias is not None:
        bias = bias.expand(query.shape[0], query.shape[1], query.shape[2], key.shape[2])
    out = torch.ops.aten._scaled_dot_product_efficient_attention(query, key, value, bias, False, dropout_p, is_causal, scale=scale)
    return out[0]


class LiveTensors(TorchDispatchMode):
    """Track the bytes of storages that operators create and that are still referenced; remember the peak."""

    def __init__(self) -> None:
        super().__init__()
        self.live = 0
        self.peak = 0
        self._seen: dict[int, int] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in _tensors(out):
            self._track(tensor)
        return out

    def _track(self, tensor: torch.Tensor) -> None:
        storage = tensor.untyped_storage()
        key = storage._cdata
        if key in self._seen:
            self._seen[key] += 1
        else:
            self._seen[key] = 1
            self.live += storage.nbytes()
            self.peak = max(self.peak, self.live)
        weakref.finalize(tensor, self._release, key, storage.nbytes())

    def _release(self, key: int, nbytes: int) -> None:
        left = self._seen.get(key, 0) - 1
        if left > 0:
            self._seen[key] = left
            return
        if key in self._seen:
            del self._seen[key]
            self.live -= nbytes


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    return []


def count_forward(run: Callable[[], Any], *, memory: bool = True) -> ForwardCount:
    """Run *run* (a forward on meta tensors) once under the counters."""
    counter = FlopCounterMode(display=False)
    live = LiveTensors()
    with torch.no_grad(), FusedAttention(), counter:
        if memory:
            with live:
                result = run()
        else:
            result = run()
    del result
    counts = counter.get_flop_counts()
    attention = sum(int(v) for op, v in counts.get("Global", {}).items() if _op_name(op) in ATTENTION_OPS)
    by_module = tuple((name, int(sum(ops.values()))) for name, ops in counts.items() if name != "Global")
    return ForwardCount(flops=int(counter.get_total_flops()), attention_flops=attention, peak_activation_bytes=live.peak, by_module=by_module)


def _op_name(op: Any) -> str:
    name = getattr(op, "__name__", str(op))
    return str(name).split(".")[0]


def vectorise_blends(vae: torch.nn.Module) -> None:
    """Give a VAE instance seam blends that do in one operation what diffusers' ``blend_v``/``blend_h`` do row by row.

    The same linear cross-fade over the overlap (weight ``i / extent`` for row ``i``), so the tiled decode's live
    tensors are those of the real code path, without hundreds of one-row operations that make a meta run slow.
    """

    def blend(a: torch.Tensor, b: torch.Tensor, extent: int, dim: int) -> torch.Tensor:
        extent = min(a.shape[dim], b.shape[dim], extent)
        if extent <= 0:
            return b
        shape = [1] * b.dim()
        shape[dim] = extent
        weight = (torch.arange(extent, device=b.device, dtype=b.dtype) / extent).reshape(shape)
        head = a.narrow(dim, a.shape[dim] - extent, extent) * (1 - weight) + b.narrow(dim, 0, extent) * weight
        b.narrow(dim, 0, extent).copy_(head)
        return b

    vae.blend_v = lambda a, b, extent: blend(a, b, extent, 2)  # type: ignore[assignment]
    vae.blend_h = lambda a, b, extent: blend(a, b, extent, 3)  # type: ignore[assignment]
