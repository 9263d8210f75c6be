"""Whether a nudged call argument reached a function that never reads it: the argument mutants' equivalence.

An ``argument`` mutant runs ``f(_infralens_nudge_argument(x))``. When ``f`` is a Python function and the nudged value
binds to one of its named parameters, and ``f``'s code never loads that parameter, or loads it only to read a tensor's
``dtype``, ``device``, ``shape``, ``ndim`` or ``layout`` while the nudge kept all five, then nothing ``f`` computes can
differ: no wrong version ran, and the mutant is *equivalent* whatever the expects observed.

Anything this cannot see through counts as read (the mutant is then judged as before): a built-in or C callee, a wrapper
taking ``*args``/``**kwargs``, another call made from the statement before the callee's, a parameter a closure captures,
code that calls ``locals``, ``vars`` or ``sys._getframe``, a ``__new__``, and every other use of the parameter.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable
from functools import lru_cache
from types import CodeType, FrameType
from typing import Any

METADATA = frozenset({"dtype", "device", "shape", "ndim", "layout"})
"""Tensor attributes a nudge keeps (scaled values, the same dtype, device and shape)."""
_INTROSPECTION = frozenset({"locals", "vars", "_getframe", "currentframe"})
"""Names whose call lets a function reach its parameters without loading them."""


def watch_callee(caller: FrameType, nudged: Any, *, metadata_kept: bool, on_unread: Callable[[bool], None]) -> None:
    """Watch the next call *caller* makes (the call the nudged argument is passed to) and call *on_unread* when
    that callee never reads the parameter *nudged* binds to (see the module docstring), with True when it does read
    the parameter's metadata (so a value in another dtype is the wrong version worth trying).

    A profile hook sees the callee's first frame; it is removed at the first call *caller* makes, or when *caller*
    returns or raises, so it runs only between the nudge and the call."""
    previous = sys.getprofile()

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_back is caller:
            sys.setprofile(previous)
            if not reads(frame, nudged, metadata_kept=metadata_kept):
                on_unread(metadata_kept and reads(frame, nudged, metadata_kept=False))
        elif frame is caller and event in ("c_call", "return"):
            sys.setprofile(previous)

    sys.setprofile(hook)


def reads(callee: FrameType, nudged: Any, *, metadata_kept: bool) -> bool:
    """Whether *callee* (a frame at its start) may read the value *nudged*: True unless *nudged* is bound to a named
    parameter that its code never loads (or loads only for :data:`METADATA`, when *metadata_kept*)."""
    code = callee.f_code
    if code.co_name == "__new__":
        return True
    named = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    bound = [name for name in named if callee.f_locals.get(name) is nudged]
    if len(bound) != 1 or bound[0] in code.co_cellvars:
        return True
    return loads_value(code, bound[0], metadata=METADATA if metadata_kept else frozenset())


@lru_cache(maxsize=256)
def loads_value(code: CodeType, name: str, *, metadata: frozenset[str]) -> bool:
    """Whether *code* loads local *name* other than to read one of the attributes *metadata*, or may reach its locals
    another way (:data:`_INTROSPECTION`). Kept per code object: a statement in a loop calls the same callee every time."""
    instructions = list(dis.get_instructions(code))
    for position, instruction in enumerate(instructions):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_ATTR", "LOAD_METHOD") and instruction.argval in _INTROSPECTION:
            return True
        if not instruction.opname.startswith("LOAD_FAST"):
            continue
        loaded = instruction.argval if isinstance(instruction.argval, tuple) else (instruction.argval,)
        if name not in loaded:
            continue
        after = instructions[position + 1] if position + 1 < len(instructions) else None
        if len(loaded) > 1 or after is None or after.opname != "LOAD_ATTR" or after.argval not in metadata:
            return True
    return False
