"""Trace only the annotated statements: count how often each ran and check its ``expect`` claims.

A :class:`Probe` names one annotated step: the file and code object (``co_qualname``) it lives in,
the line range of the statement that counts as "the step ran" (*entry*), the statement after which
its expects are evaluated (*exit*; the same statement unless the step selects a block), and the
expect expressions.

How a run is detected. Python reports a ``line`` event when execution reaches a new line of a
frame. A multi-line statement may report several of its own lines (and its first line again), so a
statement counts as run when execution *enters* its line range ``start_line..header_end_line`` from
outside it. A compound statement is watched on its header only: a ``for`` header runs once per
iteration plus the final exhausted check.

When expects are evaluated. Right after the exit statement ran: at the next line event of the same
frame outside the statement's lines, or at the frame's ``return`` event (not when the frame is unwinding from an exception: the statement
did not complete). The expression is evaluated
with the frame's real globals and locals (merged into one namespace so generator expressions see
locals too). Exceptions count as failures, with the exception as the observed value.

Backends (``auto`` picks the first that applies): ``monitoring`` on Python >= 3.12 (line events
enabled only on the watched code objects); ``instrument`` on Python 3.11 when the ``bytecode``
package is installed (hooks compiled into the watched code objects, see :mod:`.instrument`: no
interpreter-wide tracing mode, which alone costs Python-heavy scenarios 30-40%); ``settrace``
otherwise (the global trace function returns a local tracer only for watched code objects).
"""

from __future__ import annotations

import ast
import os
import sys
import threading
from dataclasses import dataclass
from types import CodeType, FrameType

from infralens.verify.observe import short_repr

MAX_EVALUATIONS = 200
"""Expects are evaluated at most this many times per expect (runs are still all counted)."""


@dataclass(frozen=True)
class Probe:
    """One annotated step to watch."""

    key: str
    """Stable step id (``annotation-id/step-key``)."""
    file: str
    """Absolute path of the upstream source file."""
    scope: str
    """``co_qualname`` of the code object the statement belongs to (``<module>`` for module level)."""
    entry: tuple[int, int]
    """First and last line of the statement whose execution counts as a run."""
    exit: tuple[int, int]
    """Lines of the statement after which the expects are evaluated."""
    exit_scope: str = ""
    """``co_qualname`` of the exit statement (defaults to *scope*)."""
    expects: tuple[str, ...] = ()
    module: str = ""
    """Dotted module the statement's file defines (imported before tracing by the worker)."""


@dataclass(frozen=True)
class ExpectResult:
    expr: str
    evaluations: int
    failures: int
    observed: str
    """Values of the names in the expression at the first failure (or at the first evaluation)."""
    error: str | None = None
    """The exception raised by the first failing evaluation, if it raised."""

    @property
    def passed(self) -> bool:
        return self.evaluations > 0 and self.failures == 0


@dataclass(frozen=True)
class ProbeResult:
    key: str
    times_ran: int
    expects: tuple[ExpectResult, ...]


class _Expect:
    """Mutable evaluation state of one expect expression."""

    __slots__ = ("code", "compile_error", "error", "evaluations", "expr", "failures", "names", "observed")

    def __init__(self, expr: str, where: str) -> None:
        self.expr = expr
        self.evaluations = 0
        self.failures = 0
        self.observed = ""
        self.error: str | None = None
        self.compile_error: str | None = None
        try:
            self.code = compile(expr, f"<expect at {where}>", "eval")
        except SyntaxError as error:
            self.code = None
            self.compile_error = f"SyntaxError: {error.msg}"
        self.names = _observable_names(expr) if self.code is not None else ()

    def evaluate(self, frame: FrameType) -> None:
        if self.evaluations >= MAX_EVALUATIONS:
            return
        self.evaluations += 1
        if self.code is None:
            self._fail(_namespace(frame), self.compile_error)
            return
        try:
            try:
                ok = bool(eval(self.code, frame.f_globals, frame.f_locals))
            except NameError:
                # Comprehensions and generator expressions cannot see a separate locals mapping:
                # evaluate again in one merged namespace.
                ok = bool(eval(self.code, _namespace(frame)))
        except Exception as error:  # an expect that raises is a failed expect, with the error observed
            self._fail(_namespace(frame), f"{type(error).__name__}: {error}")
            return
        if not ok:
            self._fail(_namespace(frame), None)
        elif self.evaluations == 1:
            self.observed = _observe(self.names, _namespace(frame))

    def _fail(self, namespace: dict, error: str | None) -> None:
        self.failures += 1
        if self.failures == 1:
            self.observed = _observe(self.names, namespace)
            self.error = error

    def result(self) -> ExpectResult:
        return ExpectResult(self.expr, self.evaluations, self.failures, self.observed, self.error)


class _Statement:
    """One watched statement of one code object."""

    __slots__ = ("end", "expects", "runs", "start")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end
        self.runs = 0
        self.expects: list[_Expect] = []


class _CodeWatch:
    """Watched statements of one code object, indexed by line."""

    __slots__ = ("lines", "statements")

    def __init__(self) -> None:
        self.lines: dict[int, _Statement] = {}
        self.statements: dict[tuple[int, int], _Statement] = {}

    def statement(self, start: int, end: int) -> _Statement:
        found = self.statements.get((start, end))
        if found is None:
            found = self.statements[(start, end)] = _Statement(start, end)
            for line in range(start, end + 1):
                self.lines.setdefault(line, found)
        return found


class _FrameState:
    """Per-frame position: the watched statement execution is inside (its expects are pending)."""

    __slots__ = ("current", "watch")

    def __init__(self, watch: _CodeWatch) -> None:
        self.watch = watch
        self.current: _Statement | None = None

    def line(self, frame: FrameType, lineno: int) -> None:
        statement = self.watch.lines.get(lineno)
        current = self.current
        if statement is current:
            return
        if current is not None and current.expects:
            for expect in current.expects:
                expect.evaluate(frame)
        if statement is not None:
            statement.runs += 1
        self.current = statement

    def leave(self, frame: FrameType, evaluate: bool = True) -> None:
        current = self.current
        if evaluate and current is not None and current.expects:
            for expect in current.expects:
                expect.evaluate(frame)
        self.current = None


class Tracer:
    """Context manager that watches the probes' statements while the body runs.

    Parameters:
        probes: the steps to watch.
        backend: ``"auto"`` (monitoring on 3.12+, settrace before), ``"settrace"`` or ``"monitoring"``.
    """

    def __init__(self, probes: list[Probe] | tuple[Probe, ...], *, backend: str = "auto") -> None:
        self.probes = tuple(probes)
        if backend == "auto":
            backend = "monitoring" if sys.version_info >= (3, 12) else ("instrument" if _has_bytecode() else "settrace")
        if backend == "monitoring" and not hasattr(sys, "monitoring"):
            raise ValueError("the 'monitoring' backend needs Python 3.12 or newer")
        if backend == "instrument" and sys.version_info[:2] != (3, 11):
            raise ValueError("the 'instrument' backend rewrites Python 3.11 bytecode only")
        self.backend = backend
        self._files: dict[str, dict[str, _CodeWatch]] = {}
        self._entries: dict[str, _Statement] = {}
        self._expects: dict[str, list[_Expect]] = {}
        for probe in self.probes:
            self._add(probe)
        self._code_cache: dict[int, tuple[CodeType, _CodeWatch | None]] = {}
        """id(code) → (code, watch). By identity: equal code objects from different files compare equal."""
        self._real: dict[str, str] = {}
        self._active = False
        if backend == "instrument":
            from infralens.verify.instrument import InstrumentBackend

            self._impl = InstrumentBackend(self, _FrameState)
        else:
            self._impl = _SetTraceBackend(self) if backend == "settrace" else _MonitoringBackend(self)

    def _add(self, probe: Probe) -> None:
        scopes = self._files.setdefault(os.path.realpath(probe.file), {})
        entry_watch = scopes.setdefault(probe.scope or "<module>", _CodeWatch())
        self._entries[probe.key] = entry_watch.statement(*probe.entry)
        exit_watch = scopes.setdefault(probe.exit_scope or probe.scope or "<module>", _CodeWatch())
        exit_statement = exit_watch.statement(*probe.exit)
        where = f"{probe.key}"
        expects = [_Expect(expr, where) for expr in probe.expects]
        exit_statement.expects.extend(expects)
        self._expects[probe.key] = expects

    def watch_for(self, code: CodeType) -> _CodeWatch | None:
        """The watch for *code*, or None when none of its statements is annotated (memoised)."""
        entry = self._code_cache.get(id(code))
        if entry is not None and entry[0] is code:
            return entry[1]
        filename = code.co_filename
        real = self._real.get(filename)
        if real is None:
            real = self._real[filename] = os.path.realpath(filename)
        scopes = self._files.get(real)
        watch = scopes.get(code.co_qualname) if scopes else None
        self._code_cache[id(code)] = (code, watch)
        return watch

    def __enter__(self) -> Tracer:
        if self._active:
            raise RuntimeError("this tracer is already active")
        self._active = True
        self._impl.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._impl.stop()
        self._active = False

    def results(self) -> dict[str, ProbeResult]:
        """Per probe key: how many times its entry statement ran and each expect's outcome."""
        return {
            probe.key: ProbeResult(
                probe.key,
                self._entries[probe.key].runs,
                tuple(expect.result() for expect in self._expects[probe.key]),
            )
            for probe in self.probes
        }


class _SetTraceBackend:
    """``sys.settrace``: a local tracer only for frames of watched code objects."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer
        self.previous = None

    def stop(self) -> None:
        sys.settrace(self.previous)
        threading.settrace(self.previous)

    def start(self) -> None:
        self.previous = sys.gettrace()
        trace = self._make_global()
        threading.settrace(trace)
        sys.settrace(trace)

    def _make_global(self):
        """The global trace function: called on every Python call, so it is kept minimal."""
        watch_for = self.tracer.watch_for

        def trace(frame: FrameType, event: str, arg, _get=self.tracer._code_cache.get):
            code = frame.f_code
            entry = _get(id(code))
            watch = entry[1] if entry is not None and entry[0] is code else watch_for(code)
            if watch is None:
                return None
            lines = watch.lines
            state = _FrameState(watch)

            unwinding = False

            def local(frame: FrameType, event: str, arg):
                nonlocal unwinding
                if event == "line":
                    unwinding = False
                    if lines.get(frame.f_lineno) is not state.current:
                        state.line(frame, frame.f_lineno)
                elif event == "return":
                    # After an exception event with no line since, the frame is unwinding: the
                    # pending statement did not complete, so its expects are not evaluated.
                    state.leave(frame, evaluate=not unwinding)
                elif event == "exception":
                    unwinding = True
                return local

            return local

        return trace


class _MonitoringBackend:
    """``sys.monitoring`` (3.12+): PY_START once per code object, then LINE/PY_RETURN locally."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer
        self.tool = None
        self.states: dict[int, _FrameState] = {}
        self.busy = False

    def start(self) -> None:
        monitoring = sys.monitoring
        for tool in (monitoring.DEBUGGER_ID, monitoring.PROFILER_ID, 3, 4):
            if monitoring.get_tool(tool) is None:
                monitoring.use_tool_id(tool, "infralens-verify")
                self.tool = tool
                break
        else:
            raise RuntimeError("no free sys.monitoring tool id")
        events = monitoring.events
        monitoring.restart_events()  # re-arm PY_START where an earlier tracer returned DISABLE
        monitoring.register_callback(self.tool, events.PY_START, self._start)
        monitoring.register_callback(self.tool, events.LINE, self._line)
        monitoring.register_callback(self.tool, events.PY_RETURN, self._return)
        monitoring.register_callback(self.tool, events.PY_YIELD, self._return)
        monitoring.register_callback(self.tool, events.PY_UNWIND, self._unwind)
        monitoring.set_events(self.tool, events.PY_START | events.PY_UNWIND)

    def stop(self) -> None:
        monitoring = sys.monitoring
        monitoring.set_events(self.tool, 0)
        for code, watch in self.tracer._code_cache.values():
            if watch is not None:
                monitoring.set_local_events(self.tool, code, 0)
        for event in (monitoring.events.PY_START, monitoring.events.LINE, monitoring.events.PY_RETURN, monitoring.events.PY_YIELD, monitoring.events.PY_UNWIND):
            monitoring.register_callback(self.tool, event, None)
        monitoring.free_tool_id(self.tool)
        self.states.clear()

    def _start(self, code: CodeType, offset: int):
        watch = self.tracer.watch_for(code)
        if watch is None:
            return sys.monitoring.DISABLE
        events = sys.monitoring.events
        sys.monitoring.set_local_events(self.tool, code, events.LINE | events.PY_RETURN | events.PY_YIELD)
        frame = sys._getframe(1)
        self.states[id(frame)] = _FrameState(watch)
        return None

    def _state(self, code: CodeType) -> tuple[FrameType, _FrameState] | None:
        frame = sys._getframe(2)
        state = self.states.get(id(frame))
        if state is None:  # a generator resumed, or the frame started before tracing
            watch = self.tracer.watch_for(code)
            if watch is None:
                return None
            state = self.states[id(frame)] = _FrameState(watch)
        return frame, state

    def _line(self, code: CodeType, lineno: int):
        if self.busy:
            return None
        found = self._state(code)
        if found is not None:
            self.busy = True
            try:
                found[1].line(found[0], lineno)
            finally:
                self.busy = False
        return None

    def _return(self, code: CodeType, offset: int, value):
        if self.busy:
            return None
        found = self._state(code)
        if found is not None:
            self.busy = True
            try:
                found[1].leave(found[0])
            finally:
                self.busy = False
            self.states.pop(id(found[0]), None)
        return None

    def _unwind(self, code: CodeType, offset: int, exception):
        self.states.pop(id(sys._getframe(1)), None)


def _has_bytecode() -> bool:
    try:
        import bytecode  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


def _namespace(frame: FrameType) -> dict:
    namespace = dict(frame.f_globals)
    namespace.update(frame.f_locals)
    return namespace


def _observable_names(expr: str) -> tuple[str, ...]:
    """Names and dotted attribute chains in *expr* worth showing (``latents``, ``self.config.x``)."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return ()
    found: list[str] = []
    builtins = set(dir(__builtins__)) if not isinstance(__builtins__, dict) else set(__builtins__)

    def chain(node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            head = chain(node.value)
            return f"{head}.{node.attr}" if head else None
        return None

    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            text = chain(node)
            if text and text.split(".")[0] not in builtins and text not in found and text.count(".") <= 3:
                found.append(text)
    # Drop prefixes already covered by a longer chain (show self.config.x, not self and self.config).
    longest = [name for name in found if not any(other.startswith(name + ".") for other in found)]
    return tuple(name for name in longest if not _is_module_like(name))


def _is_module_like(name: str) -> bool:
    return name.split(".", maxsplit=1)[0] in {"torch", "math", "np", "numpy"}


def _observe(names: tuple[str, ...], namespace: dict) -> str:
    parts = []
    for name in names:
        head, *rest = name.split(".")
        if head not in namespace:
            continue
        value, reached = namespace[head], head
        try:
            for attr in rest:
                value = getattr(value, attr)
                reached += "." + attr
        except Exception as error:  # show how far the chain got, and why it stopped
            parts.append(f"{reached}={short_repr(value)}")
            parts.append(f"{name}=<{type(error).__name__}>")
            continue
        parts.append(f"{name}={short_repr(value)}")
    return "; ".join(parts)


__all__ = ["MAX_EVALUATIONS", "ExpectResult", "Probe", "ProbeResult", "Tracer"]
