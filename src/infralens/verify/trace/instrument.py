"""Python 3.11 backend without ``sys.settrace``: hooks compiled into the watched code objects.

``sys.settrace`` puts the whole interpreter into tracing mode: even a trace function written in C
makes Python-heavy scenarios 1.3-1.4x slower. This backend instead rewrites only the watched code
objects (with the ``bytecode`` package): before every instruction that starts a source line (and at
``for`` loop heads) it inserts a call ``hooks.line(lineno)``, and before every ``return`` a call
``hooks.leave(value)`` with a copy of the value being returned. The inserted sequences leave the value stack as they found it. The rewritten code
is swapped into the live function objects (``function.__code__``), found with one scan of the
garbage collector's objects (repeated only after imports of watched files); code objects nested in a rewritten function's constants are rewritten
too, so closures created later are watched as well. Everything is swapped back when tracing stops.

Watched modules must be imported before tracing starts (the worker imports each probe's module).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import CodeType, FrameType, FunctionType

from bytecode import Bytecode, Instr, Label, SetLineno, TryBegin, TryEnd
from bytecode.instr import InstrLocation

from infralens.verify.trace.functions import FUNCTIONS
from infralens.verify.trace.watch import CodeWatch, FrameState, WatchTable

_SKIP_BEFORE = {"CACHE", "RESUME", "EXTENDED_ARG"}


class _Active:
    """The backend currently tracing in this process (rewritten code is shared between tracers)."""

    backend: InstrumentBackend | None = None


class CodeHooks:
    """The callables compiled into one rewritten code object; they report to the active backend."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[str, str]) -> None:
        self.key = key
        """(real file path, co_qualname) of the code object."""

    def line(self, lineno: int) -> None:
        backend = _Active.backend
        if backend is None or backend.busy:
            return
        frame = sys._getframe(1)
        state = backend.states.get(frame)
        if state is None:
            watch = backend.watch(self.key)
            if watch is None:
                return
            state = backend.states[frame] = FrameState(watch)
        if state.watch.lines.get(lineno) is not state.current:
            backend.busy = True  # expects may call watched code: that must not count
            try:
                state.line(frame, lineno)
            finally:
                backend.busy = False

    def leave(self, value: object) -> None:
        """The frame is about to return ``value``."""
        backend = _Active.backend
        if backend is None or backend.busy:
            return
        frame = sys._getframe(1)
        state = backend.states.pop(frame, None)
        if state is not None:
            backend.busy = True
            try:
                state.leave(frame, returned=(value,))
            finally:
                backend.busy = False


_REWRITTEN: dict[tuple[int, bool, tuple[int, ...]], tuple[CodeType, CodeType]] = {}
"""(id of the original code, watched?, ids of the nested replacements) → (original, rewritten).

Keyed by identity, not equality: code objects compare equal across files. Kept for the life of
the process (rewriting is the slow part); the original is held so its id is never reused."""


def _hook_call(target: Callable[..., None], argument: int | None, location: InstrLocation | None) -> list[Instr]:
    """``target(argument)`` with its result dropped: stack neutral. Without ``argument``, ``target(TOS)``: the value on
    top of the stack (the one about to be returned) is passed, copied and left in place."""
    # LOAD_CONST takes any constant at run time; bytecode's annotations list only the usual kinds.
    load_hook = Instr("LOAD_CONST", target, location=location)  # type: ignore[arg-type]
    sequence = [Instr("PUSH_NULL", location=location), load_hook]
    if argument is None:  # stack: value, NULL, hook -> value, NULL, hook, value
        sequence += [Instr("COPY", 3, location=location), Instr("PRECALL", 1, location=location), Instr("CALL", 1, location=location)]
    else:
        sequence += [
            Instr("LOAD_CONST", argument, location=location),
            Instr("PRECALL", 1, location=location),
            Instr("CALL", 1, location=location),
        ]
    return sequence + [Instr("POP_TOP", location=location)]


def rewrite(code: CodeType, hooks: CodeHooks | None, nested: dict[CodeType, CodeType]) -> CodeType:
    """*code* with hooks inserted (when *hooks* is given) and nested code constants replaced."""
    if hooks is None:
        consts = tuple(nested.get(c, c) if isinstance(c, CodeType) else c for c in code.co_consts)
        return code.replace(co_consts=consts)
    source = Bytecode.from_code(code)
    out: list[Instr | Label | TryBegin | TryEnd | SetLineno] = []
    started = False
    previous_line = None
    after_label = False
    previous_name = None
    for original in source:
        item = original
        if isinstance(item, Instr) and isinstance(item.arg, CodeType) and item.arg in nested:
            item = Instr(item.name, nested[item.arg], location=item.location)
        if not isinstance(item, Instr):
            out.append(item)
            after_label = after_label or isinstance(item, Label)
            continue
        if item.name == "RESUME":
            started = True
            out.append(item)
            previous_name = item.name
            continue
        lineno = item.lineno
        if started and lineno is not None and item.name not in _SKIP_BEFORE and previous_name != "KW_NAMES":
            if item.name == "RETURN_VALUE":
                out.extend(_hook_call(hooks.leave, None, item.location))
            elif lineno != previous_line or (after_label and item.name == "FOR_ITER"):
                out.extend(_hook_call(hooks.line, lineno, item.location))
        out.append(item)
        if lineno is not None:
            previous_line = lineno
        previous_name = item.name
        after_label = False
    source.clear()
    source.extend(out)
    return source.to_code()


class InstrumentBackend:
    """Tracer backend: rewrite watched code objects while active."""

    def __init__(self, table: WatchTable) -> None:
        self.table = table
        self.busy = False
        self.states: dict[FrameType, FrameState] = {}
        self.swapped: list[tuple[FunctionType, CodeType]] = []
        self._real: dict[str, str] = {}
        self._modules_at_start = 0

    def watch(self, key: tuple[str, str]) -> CodeWatch | None:
        scopes = self.table.files.get(key[0])
        return scopes.get(key[1]) if scopes else None

    def _realpath(self, filename: str) -> str:
        path = self._real.get(filename)
        if path is None:
            path = self._real[filename] = os.path.realpath(filename)
        return path

    def _convert(self, code: CodeType) -> CodeType:
        """The rewritten *code* if it, or a code object nested in it, is watched; else *code*."""
        nested: dict[CodeType, CodeType] = {}
        for const in code.co_consts:
            if isinstance(const, CodeType) and self._realpath(const.co_filename) in self.table.files:
                new = self._convert(const)
                if new is not const:
                    nested[const] = new
        key = (self._realpath(code.co_filename), code.co_qualname)
        watched = self.watch(key) is not None
        if not watched and not nested:
            return code
        cache_key = (id(code), watched, tuple(id(new) for new in nested.values()))
        cached = _REWRITTEN.get(cache_key)
        if cached is not None:
            return cached[1]
        new = rewrite(code, CodeHooks(key) if watched else None, nested)
        _REWRITTEN[cache_key] = (code, new)
        return new

    def start(self) -> None:
        if _Active.backend is not None:
            raise RuntimeError("another instrumenting tracer is active in this process")
        for path in self.table.files:
            for function in FUNCTIONS.in_file(path):
                code = function.__code__
                new = self._convert(code)
                if new is not code:
                    function.__code__ = new
                    self.swapped.append((function, code))
        self._modules_at_start = len(sys.modules)
        _Active.backend = self

    def stop(self) -> None:
        _Active.backend = None
        for function, code in reversed(self.swapped):
            function.__code__ = code
        self.swapped.clear()
        self.states.clear()
        if len(sys.modules) != self._modules_at_start:
            _restore_made_while_tracing()


def _restore_made_while_tracing() -> None:
    """Give the original code back to functions made from rewritten code while tracing: a module imported then
    (diffusers imports lazily) ran its decorators with rewritten nested code, so its wrappers would keep the hooks,
    and ``verify --mutate`` could not find them as the closures of the original code."""
    originals = {id(new): (new, old) for old, new in _REWRITTEN.values()}
    FUNCTIONS.scan()  # the one walk over the collector's objects; the registry keeps it for the next lookups
    for path in {os.path.realpath(new.co_filename) for new, _ in originals.values()}:
        for function in FUNCTIONS.indexed_in_file(path):
            found = originals.get(id(function.__code__))
            if found is not None and function.__code__ is found[0]:
                function.__code__ = found[1]
