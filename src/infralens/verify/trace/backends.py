"""The settrace (any Python) and sys.monitoring (3.12+) tracer backends.

Both keep one :class:`~.watch.FrameState` per watched frame and report line and return events
to it; the Python 3.11 ``instrument`` backend lives in :mod:`.instrument`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import CodeType, FrameType
from typing import TYPE_CHECKING, Protocol

from infralens.verify.trace.watch import CodeWatch, FrameState, WatchTable

if TYPE_CHECKING:
    from _typeshed import TraceFunction


class Backend(Protocol):
    """What the tracer needs of a backend: switch it on, switch it off."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class SetTraceBackend:
    """``sys.settrace``: a local tracer only for frames of watched code objects."""

    def __init__(self, table: WatchTable) -> None:
        self.table = table
        self.previous: TraceFunction | None = None

    def stop(self) -> None:
        sys.settrace(self.previous)
        threading.settrace(self.previous)

    def start(self) -> None:
        self.previous = sys.gettrace()
        trace = self._make_global()
        threading.settrace(trace)
        sys.settrace(trace)

    def _make_global(self) -> TraceFunction:
        """The global trace function: called on every Python call, so it is kept minimal."""
        watch_for = self.table.watch_for
        cached: Callable[[int], tuple[CodeType, CodeWatch | None] | None] = self.table.code_cache.get

        def trace(frame: FrameType, event: str, arg: object, _get: Callable[[int], tuple[CodeType, CodeWatch | None] | None] = cached) -> TraceFunction | None:
            code = frame.f_code
            entry = _get(id(code))
            watch = entry[1] if entry is not None and entry[0] is code else watch_for(code)
            if watch is None:
                return None
            lines = watch.lines
            state = FrameState(watch)

            unwinding = False

            def local(frame: FrameType, event: str, arg: object) -> TraceFunction:
                nonlocal unwinding
                if event == "line":
                    unwinding = False
                    if lines.get(frame.f_lineno) is not state.current:
                        state.line(frame, frame.f_lineno)
                elif event == "return":
                    # After an exception event with no line since, the frame is unwinding: the
                    # pending statement did not complete, so its expects are not evaluated.
                    state.leave(frame, evaluate=not unwinding, returned=None if unwinding else (arg,))
                elif event == "exception":
                    unwinding = True
                return local

            return local

        return trace


class MonitoringBackend:
    """``sys.monitoring`` (3.12+): PY_START once per code object, then LINE/PY_RETURN locally."""

    def __init__(self, table: WatchTable) -> None:
        self.table = table
        self.tool = 0
        self.states: dict[int, FrameState] = {}
        self.busy = False

    def start(self) -> None:
        if sys.version_info < (3, 12):
            raise RuntimeError("the 'monitoring' backend needs Python 3.12 or newer")
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
        monitoring.register_callback(self.tool, events.PY_YIELD, self._yield)
        monitoring.register_callback(self.tool, events.PY_UNWIND, self._unwind)
        monitoring.set_events(self.tool, events.PY_START | events.PY_UNWIND)

    def stop(self) -> None:
        if sys.version_info < (3, 12):
            return
        monitoring = sys.monitoring
        monitoring.set_events(self.tool, 0)
        for code, watch in self.table.code_cache.values():
            if watch is not None:
                monitoring.set_local_events(self.tool, code, 0)
        for event in (monitoring.events.PY_START, monitoring.events.LINE, monitoring.events.PY_RETURN, monitoring.events.PY_YIELD, monitoring.events.PY_UNWIND):
            monitoring.register_callback(self.tool, event, None)
        monitoring.free_tool_id(self.tool)
        self.states.clear()

    def _start(self, code: CodeType, offset: int) -> object:
        if sys.version_info < (3, 12):
            return None
        watch = self.table.watch_for(code)
        if watch is None:
            return sys.monitoring.DISABLE
        events = sys.monitoring.events
        sys.monitoring.set_local_events(self.tool, code, events.LINE | events.PY_RETURN | events.PY_YIELD)
        frame = sys._getframe(1)
        self.states[id(frame)] = FrameState(watch)
        return None

    def _line(self, code: CodeType, lineno: int) -> None:
        if not self.busy:
            self._visit(sys._getframe(1), code, lineno)

    def _return(self, code: CodeType, offset: int, value: object) -> None:
        if not self.busy:
            self._visit(sys._getframe(1), code, None, (value,))

    def _yield(self, code: CodeType, offset: int, value: object) -> None:
        if not self.busy:
            self._visit(sys._getframe(1), code, None)

    def _unwind(self, code: CodeType, offset: int, exception: BaseException) -> None:
        self.states.pop(id(sys._getframe(1)), None)

    def _visit(self, frame: FrameType, code: CodeType, lineno: int | None, returned: tuple[object] | None = None) -> None:
        """A line of *frame* ran (*lineno*), or it returned (None, with ``returned``: ``(value,)``) or yielded (None)."""
        state = self.states.get(id(frame))
        if state is None:  # a generator resumed, or the frame started before tracing
            watch = self.table.watch_for(code)
            if watch is None:
                return
            state = self.states[id(frame)] = FrameState(watch)
        self.busy = True  # expects may call watched code: that must not count
        try:
            if lineno is None:
                state.leave(frame, returned=returned)
            else:
                state.line(frame, lineno)
        finally:
            self.busy = False
        if lineno is None:
            self.states.pop(id(frame), None)
