"""Python 3.11 backend without ``sys.settrace``: hooks compiled into the watched code objects.

``sys.settrace`` puts the whole interpreter into tracing mode: even a trace function written in C
makes Python-heavy scenarios 1.3-1.4x slower. This backend instead rewrites only the watched code
objects (with the ``bytecode`` package): before every instruction that starts a source line (and at
``for`` loop heads) it inserts a call ``hooks.line(lineno)``, and before every ``return`` a call
``hooks.leave()``. The inserted sequences leave the value stack as they found it. The rewritten code
is swapped into the live function objects (``function.__code__``), found with one scan of the
garbage collector's objects; code objects nested in a rewritten function's constants are rewritten
too, so closures created later are watched as well. Everything is swapped back when tracing stops.

Watched modules must be imported before tracing starts (the worker imports each probe's module).
"""

from __future__ import annotations

import gc
import os
import sys
from types import CodeType, FunctionType

from bytecode import Bytecode, Instr, Label

_SKIP_BEFORE = {"CACHE", "RESUME", "EXTENDED_ARG"}


class CodeHooks:
    """The callables compiled into one rewritten code object."""

    __slots__ = ("backend", "watch")

    def __init__(self, backend: InstrumentBackend, watch) -> None:
        self.backend, self.watch = backend, watch

    def line(self, lineno: int) -> None:
        backend = self.backend
        if not backend.active:
            return
        frame = sys._getframe(1)
        state = backend.states.get(frame)
        if state is None:
            state = backend.states[frame] = backend.new_state(self.watch)
        if self.watch.lines.get(lineno) is not state.current:
            state.line(frame, lineno)

    def leave(self) -> None:
        backend = self.backend
        if not backend.active:
            return
        frame = sys._getframe(1)
        state = backend.states.pop(frame, None)
        if state is not None:
            state.leave(frame)


def _hook_call(target, argument, location) -> list[Instr]:
    """``target(argument)`` with its result dropped: stack neutral."""
    sequence = [Instr("PUSH_NULL", location=location), Instr("LOAD_CONST", target, location=location)]
    if argument is None:
        sequence += [Instr("PRECALL", 0, location=location), Instr("CALL", 0, location=location)]
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
    out: list = []
    started = False
    previous_line = None
    after_label = False
    previous_name = None
    for item in source:
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

    def __init__(self, tracer, new_state) -> None:
        self.tracer = tracer
        self.new_state = new_state
        self.active = False
        self.states: dict = {}
        self.swapped: list[tuple[FunctionType, CodeType]] = []

    def start(self) -> None:
        files = self.tracer._files
        real: dict[str, str] = {}

        def watched_file(filename: str) -> bool:
            path = real.get(filename)
            if path is None:
                path = real[filename] = os.path.realpath(filename)
            return path in files

        rewritten: dict[CodeType, CodeType] = {}

        def convert(code: CodeType) -> CodeType:
            if code in rewritten:
                return rewritten[code]
            nested = {}
            for const in code.co_consts:
                if isinstance(const, CodeType) and watched_file(const.co_filename):
                    new = convert(const)
                    if new is not const:
                        nested[const] = new
            watch = self.tracer.watch_for(code)
            if watch is None and not nested:
                rewritten[code] = code
                return code
            new = rewrite(code, CodeHooks(self, watch) if watch is not None else None, nested)
            rewritten[code] = new
            return new

        functions = [obj for obj in gc.get_objects() if type(obj) is FunctionType and watched_file(obj.__code__.co_filename)]
        for function in functions:
            code = function.__code__
            new = convert(code)
            if new is not code:
                function.__code__ = new
                self.swapped.append((function, code))
        self.active = True

    def stop(self) -> None:
        self.active = False
        for function, code in reversed(self.swapped):
            function.__code__ = code
        self.swapped.clear()
        self.states.clear()
