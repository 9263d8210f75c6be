"""Wrong choices for the value mutant (``verify --mutate``): another function, another class, a container not empty.

A statement whose result is a function or a class (``interface = ALL_FUNCTIONS[name]``, ``layer_class =
QuantoLayer``) *picks* something. The real bug in a pick is picking ANOTHER one of the same kind, so
:func:`other_choice` turns

- a plain function into another plain function defined in the same module (``sys.modules[f.__module__]``,
  only names whose object says it was defined there, so imports do not count), preferring those that take as
  many required positional parameters (a wrong pick the caller can still call);
- a class into another class defined in the same module, preferring its siblings (subclasses of its nearest base
  other than ``object``: ``QuantoQuantizedLayer`` becomes another ``QuantizedLayer``);
- a closure made inside a function (a mask function from ``and_masks``), which no module names, into a module
  level function of its module by the same rule.

The choice is deterministic: candidates sorted by name, the first whose name sorts after the original's
(wrapping to the first), never the object itself. With no candidate (the only function of its module, a
builtin function or class such as ``int``, a method, a module) the value passes through: equivalent by construction.

:func:`not_empty` gives an empty list ``[None]`` and an empty dict ``{NUDGED_KEY: None}``. A statement that
empties or resets a container (``state.pending = []``, ``options = {}``) has one real bug: leaving something in
it. One element, ``None``, is the smallest "not empty" there is; code that only asks whether the container is
empty, or how long it is, runs on with it, so the mutant reaches the expects; code that uses the element mostly
raises first. This applies only to the nudged value itself (a statement's result, a call's argument), never to
an object's field or a tuple's element, where an empty container keeps passing through as before.
"""

from __future__ import annotations

import inspect
import sys
import types
from typing import Any

NUDGED_KEY = "_infralens_nudged"
"""The key an empty dict gains (a name no upstream code reads, so the entry is visible only as "not empty")."""

SAME: Any = object()
"""Returned when nothing can be chosen (the caller passes its value through unchanged)."""


def not_empty(value: Any) -> Any:
    """An empty list or dict given one entry, or :data:`SAME` for anything else (see the module docstring)."""
    if type(value) is list and not value:
        return [None]
    if type(value) is dict and not value:
        return {NUDGED_KEY: None}
    return SAME


def other_choice(value: Any) -> Any:
    """Another function or class of *value*'s module (see the module docstring), or :data:`SAME`."""
    if isinstance(value, type):
        return _next_of(value, _classes(value))
    if isinstance(value, types.FunctionType):
        return _next_of(value, _functions(value))
    return SAME


def _module_objects(value: Any, kind: str) -> dict[str, Any]:
    """The functions or classes (*kind*) that *value*'s module defines, each under its own name (else the first
    name bound to it); kept per module, kind and namespace size, since a statement in a loop picks many times."""
    module_name = _attribute(value, "__module__")
    # builtins are no family of alternatives: ``type(x)`` gives ``int``, and ``list`` is no wrong pick of it
    module = sys.modules.get(module_name) if isinstance(module_name, str) and module_name != "builtins" else None
    if module is None:
        return {}
    namespace = dict(vars(module))
    key = (module_name, kind)
    cached = _FOUND.get(key)
    if cached is None or cached[0] is not module or cached[1] != len(namespace):
        wanted = type if kind == "class" else types.FunctionType
        mine = {name: item for name, item in namespace.items() if isinstance(item, wanted) and _attribute(item, "__module__") == module_name}
        found: dict[str, Any] = {}
        seen: set[int] = set()
        # an object's own name first, so an alias (``ALIAS = f``) is never its name here
        for name in sorted(mine, key=lambda name: (name != _attribute(mine[name], "__name__"), name)):
            if id(mine[name]) not in seen:
                seen.add(id(mine[name]))
                found[name] = mine[name]
        _FOUND[key] = cached = (module, len(namespace), found)
    return cached[2]


_FOUND: dict[tuple[str, str], tuple[types.ModuleType, int, dict[str, Any]]] = {}


def _attribute(item: Any, name: str) -> Any:
    try:
        return getattr(item, name, None)
    except Exception:  # an upstream property or __getattr__ may raise anything: then the object has no such name
        return None


def _functions(value: types.FunctionType) -> dict[str, Any]:
    everything = _module_objects(value, "function")
    wanted = _required_positional(value)
    alike = {name: item for name, item in everything.items() if wanted is not None and _required_positional(item) == wanted}
    return alike if _others(value, alike) else everything


def _classes(value: type) -> dict[str, Any]:
    everything = _module_objects(value, "class")
    base = value.__mro__[1] if len(value.__mro__) > 1 else object
    if base is object:
        return everything
    siblings = {name: item for name, item in everything.items() if _subclass(item, base)}
    return siblings if _others(value, siblings) else everything


def _subclass(item: type, base: type) -> bool:
    try:
        return issubclass(item, base)
    except Exception:  # an upstream metaclass's __subclasscheck__ may raise anything: then it is no sibling
        return False


def _others(value: Any, candidates: dict[str, Any]) -> bool:
    return any(item is not value for item in candidates.values())


def _next_of(value: Any, candidates: dict[str, Any]) -> Any:
    """The first candidate whose name sorts after *value*'s own (wrapping), never *value*; :data:`SAME` if none."""
    others = sorted(((name, item) for name, item in candidates.items() if item is not value), key=lambda pair: pair[0])
    if not others:
        return SAME
    own = next((name for name, item in candidates.items() if item is value), value.__name__)
    return next((item for name, item in others if name > own), others[0][1])


def _required_positional(function: Any) -> int | None:
    """How many positional parameters *function* requires, or None when its signature cannot be read."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for parameter in parameters if parameter.kind in positional and parameter.default is inspect.Parameter.empty)
