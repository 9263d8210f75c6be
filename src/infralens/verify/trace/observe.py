"""Short, readable representations of observed values (tensors as shape/dtype/device)."""

from __future__ import annotations

import functools
import inspect
import re
import tempfile
from collections.abc import Callable
from types import ModuleType

from infralens.portable import portable

MAX_LENGTH = 120
MAX_DEPTH = 4
"""Containers nested deeper than this show as ``…`` (a list that contains itself must not recurse forever)."""


_ADDRESS = re.compile(r" (?:object )?at 0x[0-9a-fA-F]+")
"""Memory addresses in reprs: different on every run, so they would make committed reports churn."""


def short_repr(value: object, limit: int = MAX_LENGTH) -> str:
    """``Tensor(shape=(1, 4, 32, 32), dtype=float32, device=cpu)``; small tensors also show values; no memory addresses,
    and the temporary folder as ``<tmp>`` (a scenario's scratch folder is another absolute path on every run and machine)."""
    text = portable(_ADDRESS.sub("", _describe(value)).replace(tempfile.gettempdir(), "<tmp>"))
    if len(text) <= limit:
        return text
    window = text[: limit - 1]
    cut = max(window.rfind(mark) for mark in TOKEN_SEPARATORS)  # never inside a name, number or string
    return (window[: cut + 1] if cut > 0 else window) + "…"


TOKEN_SEPARATORS = " ,;:=()[]{}<>"
"""A shown value may be cut just after one of these; anything else is inside a name, number or string."""


def is_value(value: object) -> bool:
    """False for what an expect names but is no value to show: a function, method, module or class."""
    try:
        if isinstance(value, (type, ModuleType, functools.partial)) or inspect.isroutine(value):
            return False
        return not (callable(value) and hasattr(value, "__qualname__") and not _is_module(value))
    except Exception:  # an attribute lookup that raises: show what its repr says
        return True


def _describe(value: object, depth: int = 0) -> str:
    kind = type(value)
    if depth > MAX_DEPTH and isinstance(value, (dict, list, tuple, set, frozenset)):
        return "…"
    module = kind.__module__ or ""
    if module.startswith("torch") and kind.__name__ in ("Tensor", "Parameter"):
        return _tensor(value)
    if module.startswith("numpy") and hasattr(value, "shape") and hasattr(value, "dtype"):
        return _ndarray(value)
    if isinstance(value, dict):
        items = list(value.items())
        inner = ", ".join(f"{key!r}: {_describe(item, depth + 1)}" for key, item in items[:3] if isinstance(key, (str, int)))
        return f"dict(len={len(value)}: {inner}{', …' if len(items) > 3 else ''})"
    if isinstance(value, (set, frozenset)) and len(value) > 6:
        return f"{kind.__name__}(len={len(value)})"
    if isinstance(value, (list, tuple)) and len(value) > 6:
        inner = ", ".join(_describe(item, depth + 1) for item in value[:3])
        return f"{kind.__name__}(len={len(value)}: {inner}, …)"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_describe(item, depth + 1) for item in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, float):
        return f"{value:.6g}"
    if _is_module(value):  # an nn.Module: its class, not its tree
        return f"<{kind.__name__} module>"
    if callable(value) and not isinstance(value, type) and hasattr(value, "__qualname__"):  # a function or bound method: its name
        return f"<{kind.__name__} {value.__qualname__}>"
    try:
        return repr(value)[: MAX_LENGTH * 2]
    except Exception as error:  # a repr that raises must not break tracing
        return f"<{kind.__name__}: repr failed ({type(error).__name__})>"


def _ndarray(value: object) -> str:
    """A numpy array as its shape and dtype; a numpy scalar (0-d) as its value."""
    import numpy

    array = numpy.asarray(value)
    if array.ndim == 0:
        return repr(array.item())
    return f"ndarray(shape={tuple(array.shape)}, dtype={array.dtype})"


def _tensor(tensor) -> str:
    dtype = str(tensor.dtype).removeprefix("torch.")
    if tensor.dim() == 0:
        try:
            return f"tensor({tensor.item():.6g}, dtype={dtype})" if tensor.is_floating_point() else f"tensor({tensor.item()})"
        except Exception:  # meta tensors and the like
            return f"Tensor(shape=(), dtype={dtype}, device={tensor.device})"
    head = f"shape={tuple(tensor.shape)}, dtype={dtype}, device={tensor.device}"
    if tensor.numel() <= 6 and tensor.device.type != "meta":
        values = ", ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in tensor.detach().flatten().tolist())
        return f"Tensor({head}, values=[{values}])"
    return f"Tensor({head})"


class Fingerprint:
    """A running hash of exact values (tensor and array bytes, not their short text): equal runs give equal digests."""

    __slots__ = ("_hash",)

    def __init__(self) -> None:
        import hashlib

        self._hash = hashlib.blake2b(digest_size=16)

    def add(self, outcome: object, names: tuple[str, ...], namespace: dict[str, object]) -> None:
        """Fold in the outcome of one evaluation and the exact values of *names* (dotted chains) in *namespace*."""
        update = self._hash.update
        update(repr(outcome).encode())
        for name in names:
            head, *rest = name.split(".")
            value = namespace.get(head, _MISSING)
            try:
                for attr in rest:
                    value = getattr(value, attr)
            except Exception as error:  # how far the chain got is part of what was observed
                value = f"<{type(error).__name__}>"
            update(name.encode())
            _fold(value, update, 0)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


_MISSING = object()
_MAX_ITEMS = 1000


def _fold(value: object, update: Callable[[bytes], object], depth: int) -> None:
    """Feed *value*'s exact content to *update* (bounded: collections to 1000 items, nesting to 4 levels)."""
    kind = type(value)
    module = kind.__module__ or ""
    if module.startswith("torch") and kind.__name__ in ("Tensor", "Parameter"):
        tensor = value.detach()  # type: ignore[attr-defined]
        update(f"T{tuple(tensor.shape)}{tensor.dtype}".encode())
        if tensor.device.type != "meta":
            import torch

            try:
                flat = tensor.to("cpu").contiguous().reshape(-1)
                update(flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b"")
            except Exception:  # sparse, quantized and the like: their text then
                update(repr(tensor).encode())
        return
    if module.startswith("numpy") and hasattr(value, "tobytes"):
        update(f"N{getattr(value, 'shape', ())}{getattr(value, 'dtype', '')}".encode())
        update(value.tobytes())
        return
    if depth < 4 and isinstance(value, (list, tuple)):
        update(f"{kind.__name__}{len(value)}[".encode())
        for item in value[:_MAX_ITEMS]:
            _fold(item, update, depth + 1)
        update(b"]")
        return
    if depth < 4 and isinstance(value, dict):
        update(f"dict{len(value)}{{".encode())
        for key, item in list(value.items())[:_MAX_ITEMS]:
            update(repr(key).encode())
            _fold(item, update, depth + 1)
        update(b"}")
        return
    if _is_module(value):  # a module: its class (its weights are not one value)
        update(f"<{kind.__name__} module>".encode())
        return
    try:
        text = repr(value)
    except Exception as error:  # a repr that raises must not break the run
        text = f"<{kind.__name__}: repr failed ({type(error).__name__})>"
    update(re.sub(r" at 0x[0-9a-f]+", "", text[:4000]).encode())


def _is_module(value: object) -> bool:
    """Whether *value* looks like an ``nn.Module``; an attribute lookup that raises (diffusers' placeholder classes for
    missing back ends raise ImportError on any attribute) means no."""
    try:
        return hasattr(value, "named_parameters") and hasattr(value, "forward")
    except Exception:
        return False
