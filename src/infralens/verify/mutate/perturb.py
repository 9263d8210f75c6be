"""The runtime half of the value mutants (``verify --mutate``): small, type-aware changes to a statement's result.

:mod:`.mutants` writes value mutants as calls, ``x = _infralens_nudge(<the old expression>)``; the mutated
code finds these functions among the builtins, where :func:`install` puts them. Each leaves the program
able to run on, so the mutant reaches the expects instead of raising first:

- ``_infralens_nudge(value, index=None)``: a float tensor, NumPy array or float scaled by 1 + 1e-2 (shifted by 1e-2
  when it is all zeros), an int tensor, array or int plus one, a bool (tensor or array) negated, an enum member
  the next member of its enum, a torch dtype another width of its kind (float32 → float64, float16 → bfloat16, …), a string with ``_`` appended, a
  dict without its last entry, a set without its greatest member (by ``repr``, so the choice is the same every run),
  an empty tensor the same emptiness in another dtype of its kind (float32 →
  float64, int64 → int32, …); in a tuple or list, the element at *index* (an object there changes as below), or, when *index* is None, the
  first plain value that can change, else the last element dropped (a list of layers is one layer short).
- An object result (a model output, a cache, a generator, a layer): a SHALLOW COPY with one field changed as above;
  the caller's object is never changed in place. A non-dict Mapping (a ``ModelOutput``) changes its first value
  that can change; a dataclass or any object with a ``__dict__`` its first public attribute (no leading ``_``)
  that can change, tensors first, in the mapping's or the ``__dict__``'s order; one level deep (a field that is
  itself an object or a list is not entered; a dict field loses its last entry, as above). The copy's attribute is written into its own ``__dict__``,
  so a custom ``__setattr__`` (``nn.Module`` keeps parameters in a dict the copy shares) never runs.
- A function or a class (the statement picks one): another of the same kind from the same module, and an empty
  list or dict (the statement empties one): ``[None]`` or ``{"_infralens_nudged": None}``; see :mod:`.choice`.
  Equivalent by construction, and passed through unchanged: a function or class with no other of its kind in
  its module, builtins, methods and modules; an object with no field that can change; an object ``copy.copy``
  refuses (a stream).
- ``_infralens_nudge_argument(value)``: ``_infralens_nudge`` for a call's argument (the ``argument`` mutants). When the
  value changed, :mod:`.unread` watches the call it is passed to: a change the called function never reads is counted
  in :data:`UNREAD` too, so a mutant whose every change went unread is equivalent. When the function read only the
  tensor's metadata, :data:`METADATA_ONLY` counts it: the trial then tries ``_infralens_retype_argument(value)``.
- ``_infralens_retype_argument(value)``: a tensor with values in another width of its dtype's kind (float32 → float64,
  bfloat16 → float16, int64 → int32, …), watched as above with nothing kept: the wrong version of an argument a
  function reads only for its dtype, device or shape (it would build an empty cache in the wrong dtype).
- ``_infralens_transpose(value)``: a tensor with two dimensions of the same size (> 1) gets them swapped.
- ``_infralens_swap(a, b)`` gives ``(b, a)`` and ``_infralens_swap_operator(a, b, "-")`` gives ``b - a``: the
  runtime half of the ``swap`` mutants. :data:`SWAPS` counts their calls and the calls whose two operands
  differed: a swap whose operands were equal every time (a square image, two widths of the same size)
  cannot be told from the original on this data.

Anything else passes through unchanged. :data:`APPLIED` counts the calls that changed something, over
every frame the statement ran in: a value mutant that never changed anything (or whose every change went to a
function that never reads it) is equivalent by construction, whatever the run observed.
"""

from __future__ import annotations

import builtins
import copy
import dataclasses
import enum
import operator
import sys
import types
from collections.abc import Mapping, MutableMapping
from typing import Any

from infralens.verify.mutate import choice
from infralens.verify.mutate.unread import watch_callee

NUDGE = "_infralens_nudge"
NUDGE_ARGUMENT = "_infralens_nudge_argument"
RETYPE_ARGUMENT = "_infralens_retype_argument"
TRANSPOSE = "_infralens_transpose"
SWAP = "_infralens_swap"
SWAP_OPERATOR = "_infralens_swap_operator"
SCALE = 1e-2
"""The relative change of a float (and the shift of an all-zero float tensor)."""

APPLIED = [0]
"""Calls that changed their value since the last :func:`reset` (one counter for every value mutant)."""

UNREAD = [0]
"""Of those, the argument nudges whose called function never read the changed value (:mod:`.unread`)."""

METADATA_ONLY = [0]
"""Of those, the ones whose called function read the value's dtype, device or shape (and nothing else)."""


SWAPS = [0, 0]
"""Calls of the swap helpers since the last :func:`reset`, and those whose two operands differed."""

_OPERATORS = {"-": operator.sub, "/": operator.truediv, "@": operator.matmul, "//": operator.floordiv}


def reset() -> None:
    APPLIED[0] = 0
    UNREAD[0] = 0
    METADATA_ONLY[0] = 0
    SWAPS[:] = [0, 0]


def applied() -> int:
    return APPLIED[0]


def changes_read() -> int:
    """The calls that changed their value since the last :func:`reset`, less the changes nothing read."""
    return APPLIED[0] - UNREAD[0]


def read_only_metadata() -> bool:
    """Whether, since the last :func:`reset`, an argument nudge went to a function that read only its metadata."""
    return METADATA_ONLY[0] > 0


def swaps() -> tuple[int, int]:
    """How often a swap helper ran since the last :func:`reset`, and how often its two operands differed."""
    return SWAPS[0], SWAPS[1]


def install() -> None:
    """Make the helpers visible to mutated code (as builtins, so no module's globals change)."""
    setattr(builtins, NUDGE, nudge)
    setattr(builtins, NUDGE_ARGUMENT, nudge_argument)
    setattr(builtins, RETYPE_ARGUMENT, retype_argument)
    setattr(builtins, TRANSPOSE, transpose)
    setattr(builtins, SWAP, swap)
    setattr(builtins, SWAP_OPERATOR, swap_operator)


def swap(first: Any, second: Any) -> tuple[Any, Any]:
    """``(second, first)``, counted (see :data:`SWAPS`)."""
    _count_swap(first, second)
    return second, first


def swap_operator(first: Any, second: Any, symbol: str) -> Any:
    """``second <symbol> first`` (the operands of ``first <symbol> second`` swapped), counted."""
    _count_swap(first, second)
    return _OPERATORS[symbol](second, first)


def _count_swap(first: Any, second: Any) -> None:
    SWAPS[0] += 1
    if not _equal(first, second):
        SWAPS[1] += 1


def _equal(first: Any, second: Any) -> bool:
    """Whether swapping *first* and *second* changes nothing: the same object, equal tensors (shape, dtype,
    device and values) or equal plain values of one type; anything it cannot compare counts as different."""
    if first is second:
        return True
    torch = _torch()
    if torch is not None and isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor):
        if (first.shape, first.dtype, first.device) != (second.shape, second.dtype, second.device) or first.is_meta:
            return False
        try:
            return bool(torch.equal(first, second))
        except (RuntimeError, TypeError):
            return False
    if type(first) is not type(second):
        return False
    try:
        same = first == second
    except Exception:  # an upstream __eq__ may raise anything: then they are not known to be equal
        return False
    return same if isinstance(same, bool) else False


def nudge(value: Any, index: int | None = None) -> Any:
    """*value* slightly changed (see the module docstring); unchanged when nothing about it can be."""
    grown = choice.not_empty(value)
    if grown is not choice.SAME:
        APPLIED[0] += 1
        return grown
    if isinstance(value, (tuple, list)):
        return _nudge_sequence(value, index)
    changed = _nudge_one(value)
    if changed is not _SAME:
        APPLIED[0] += 1
        return changed
    return value


def nudge_argument(value: Any) -> Any:
    """:func:`nudge` for a call's argument; a change is watched until the call (:func:`.unread.watch_callee`)."""
    before = APPLIED[0]
    changed = nudge(value)
    if APPLIED[0] != before:
        watch_callee(sys._getframe(1), changed, metadata_kept=_same_metadata(value, changed), on_unread=_count_unread)
    return changed


def retype_argument(value: Any) -> Any:
    """A tensor argument with its values in another dtype of its kind (:data:`_OTHER_DTYPES`), watched until the call;
    anything else (or a dtype with no other of its kind) passes through unchanged."""
    torch = _torch()
    changed = _retyped(value, torch) if torch is not None and isinstance(value, torch.Tensor) else _SAME
    if changed is _SAME:
        return value
    APPLIED[0] += 1
    watch_callee(sys._getframe(1), changed, metadata_kept=False, on_unread=_count_unread)
    return changed


def _count_unread(metadata_only: bool) -> None:
    UNREAD[0] += 1
    METADATA_ONLY[0] += metadata_only


def _same_metadata(first: Any, second: Any) -> bool:
    """Whether *first* and *second* are tensors with the same dtype, device, shape and layout (a nudge keeps them
    unless it changed an empty tensor's dtype)."""
    torch = _torch()
    if torch is None or not isinstance(first, torch.Tensor) or not isinstance(second, torch.Tensor):
        return False
    return (first.dtype, first.device, first.shape, first.layout) == (second.dtype, second.device, second.shape, second.layout)


def transpose(value: Any) -> Any:
    """*value* with its last pair of same-sized dimensions swapped; unchanged when it has none."""
    torch = _torch()
    if torch is None or not isinstance(value, torch.Tensor) or value.dim() < 2 or value.is_meta:
        return value  # a meta tensor holds no values: a transpose of two equal sizes changes nothing
    sizes = list(value.shape)
    for last in range(len(sizes) - 1, 0, -1):
        for first in range(last - 1, -1, -1):
            if sizes[first] == sizes[last] > 1:
                APPLIED[0] += 1
                swapped = value.transpose(first, last).contiguous()
                return _keep_parameter(value, swapped)
    return value


_SAME = choice.SAME
"""What a helper returns when it changed nothing (one sentinel with :mod:`.choice`, so its answers pass through as they are)."""


def _nudge_sequence(value: tuple[Any, ...] | list[Any], index: int | None) -> Any:
    items = list(value)
    positions = [index] if index is not None else list(range(len(items)))
    # with no index, only plain values (a tensor, a number) change: a list of objects (layers) loses its last
    # element below, the plainer mistake; an object's field changes only where a mutant names its position
    attempt = _nudge_one if index is not None else _nudge_leaf
    for position in positions:
        if not -len(items) <= position < len(items):
            continue
        changed = attempt(items[position])
        if changed is not _SAME:
            APPLIED[0] += 1
            items[position] = changed
            return _rebuilt(value, items)
    if index is None and items:  # nothing in it can change: one element fewer
        APPLIED[0] += 1
        return _rebuilt(value, items[:-1])
    return value


def _rebuilt(value: tuple[Any, ...] | list[Any], items: list[Any]) -> Any:
    if isinstance(value, list):
        return items
    try:
        return type(value)(items) if type(value) is tuple else type(value)(*items)
    except TypeError:
        return tuple(items)


def _nudge_one(value: Any) -> Any:
    """*value* changed (a plain value, else one field of an object, else another function or class), or :data:`_SAME`."""
    changed = _nudge_leaf(value)
    if changed is _SAME:
        changed = _nudge_object(value)
    return choice.other_choice(value) if changed is _SAME else changed


def _nudge_leaf(value: Any) -> Any:
    """A plain value (number, string, dict, set, array, enum, dtype, tensor) changed, or :data:`_SAME`."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * (1 + SCALE) if value else SCALE
    if type(value) is str:
        return value + "_"
    if type(value) is dict and value:
        return dict(list(value.items())[:-1])
    if type(value) in (set, frozenset) and value:
        return type(value)(sorted(value, key=repr)[:-1])
    if type(value).__module__ == "numpy" and type(value).__name__ == "ndarray":
        return _nudge_array(value)
    if isinstance(value, enum.Enum):
        return _other_member(value)
    torch = _torch()
    if torch is not None and isinstance(value, torch.dtype):
        return getattr(torch, _OTHER_DTYPES.get(str(value).removeprefix("torch."), "float32"))
    if torch is None or not isinstance(value, torch.Tensor):
        return _SAME
    return _nudge_tensor(value, torch)


def _nudge_tensor(value: Any, torch: Any) -> Any:
    if value.numel() == 0:  # no values to change: its dtype changes instead (when another of its kind exists)
        return _retyped(value, torch)
    if value.dtype == torch.bool:
        changed = ~value
    elif value.is_floating_point() or value.is_complex():
        changed = value * (1 + SCALE) if bool(value.any()) else value + SCALE
    else:
        changed = value + 1
    return _keep_parameter(value, changed)


def _retyped(value: Any, torch: Any) -> Any:
    """Tensor *value* in another dtype of its kind (:data:`_OTHER_DTYPES`), or :data:`_SAME` when its dtype has none."""
    other = _OTHER_DTYPES.get(str(value.dtype).removeprefix("torch."))
    return _SAME if other is None else _keep_parameter(value, value.to(getattr(torch, other)))


_OTHER_DTYPES = {"float32": "float64", "float64": "float32", "float16": "bfloat16", "bfloat16": "float16", "int64": "int32", "int32": "int64"}
"""The dtype a nudged dtype becomes (a name; :func:`_nudge_one` resolves it): the same kind, another width."""


_NOT_OBJECTS = (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, tuple, list, set, frozenset)
"""Not objects with fields: code and namespaces (another function or class is :mod:`.choice`'s job), and containers (see :func:`nudge`)."""


def _nudge_object(value: Any) -> Any:
    """A shallow copy of *value* with its first field that can change changed (see the module docstring), or
    :data:`_SAME` when it has none or cannot be copied."""
    if value is None or type(value) is dict or isinstance(value, _NOT_OBJECTS):
        return _SAME
    if isinstance(value, Mapping):
        if not isinstance(value, MutableMapping):
            return _SAME
        found = _first_field(list(value.items()))
        if found is None:
            return _SAME
        duplicate = _copied(value)
        if duplicate is None:
            return _SAME
        duplicate[found[0]] = found[1]
        return duplicate
    try:
        fields = vars(value)
    except TypeError:  # no __dict__ (slots, a C object)
        return _SAME
    if dataclasses.is_dataclass(value):
        order = [field.name for field in dataclasses.fields(value) if field.name in fields]
        order += [name for name in fields if name not in order]
    else:
        order = list(fields)
    found = _first_field([(name, fields[name]) for name in order if isinstance(name, str) and not name.startswith("_")])
    if found is None:
        return _SAME
    duplicate = _copied(value)
    if duplicate is None:
        return _SAME
    try:
        vars(duplicate)[found[0]] = found[1]
    except TypeError:
        return _SAME
    return duplicate


def _first_field(items: list[tuple[Any, Any]]) -> tuple[Any, Any] | None:
    """The first (name, changed value) among *items*, tensors first; None when no field can change."""
    torch = _torch()
    is_tensor = (lambda item: isinstance(item, torch.Tensor)) if torch is not None else (lambda item: False)
    for tensors_only in (True, False):
        for name, field_value in items:
            if is_tensor(field_value) is not tensors_only:
                continue
            changed = _nudge_leaf(field_value)
            if changed is not _SAME:
                return name, changed
    return None


def _copied(value: Any) -> Any:
    """``copy.copy(value)``, or None when the object refuses to be copied or the copy is the object itself."""
    try:
        duplicate = copy.copy(value)
    except Exception:  # an upstream __reduce__ or __copy__ may raise anything: then it passes through
        return None
    return None if duplicate is value else duplicate


def _other_member(value: enum.Enum) -> Any:
    """The next member of *value*'s enum (wrapping), or unchanged when it has only one."""
    members = list(type(value))
    if len(members) < 2:
        return _SAME
    return members[(members.index(value) + 1) % len(members)]


def _nudge_array(value: Any) -> Any:
    """A NumPy array changed as a tensor would be: floats scaled (shifted when all zero), ints plus one, bools negated."""
    if value.size == 0:
        return _SAME
    kind = value.dtype.kind
    if kind == "b":
        return ~value
    if kind in "fc":
        return value * (1 + SCALE) if bool(value.any()) else value + SCALE
    if kind in "iu":
        return value + 1
    return _SAME


def _keep_parameter(original: Any, changed: Any) -> Any:
    torch = _torch()
    if torch is not None and isinstance(original, torch.nn.Parameter):
        return torch.nn.Parameter(changed.detach(), requires_grad=original.requires_grad)
    return changed


def _torch() -> Any:
    import sys

    return sys.modules.get("torch")
