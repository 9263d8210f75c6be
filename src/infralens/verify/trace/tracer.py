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

import sys
from types import TracebackType

from infralens.verify.trace.backend_name import BackendName
from infralens.verify.trace.backends import Backend, MonitoringBackend, SetTraceBackend
from infralens.verify.trace.expects import MAX_EVALUATIONS
from infralens.verify.trace.probes import ExpectResult, Probe, ProbeResult
from infralens.verify.trace.watch import WatchTable

BACKENDS = tuple(BackendName)


def choose_backend(backend: str = BackendName.AUTO) -> BackendName:
    """The backend *backend* names on this interpreter (``auto``: the fastest that applies).

    Raises:
        ValueError: no backend has that name, or it does not work on this Python.
    """
    try:
        name = BackendName(backend)
    except ValueError:
        raise ValueError(f"unknown tracer backend {backend!r} (known: {', '.join(BACKENDS)})") from None
    if name is BackendName.AUTO:
        if sys.version_info >= (3, 12):
            return BackendName.MONITORING
        return BackendName.INSTRUMENT if _has_bytecode() else BackendName.SETTRACE
    if name is BackendName.MONITORING and not hasattr(sys, "monitoring"):
        raise ValueError("the 'monitoring' backend needs Python 3.12 or newer")
    if name is BackendName.INSTRUMENT and sys.version_info[:2] != (3, 11):
        raise ValueError("the 'instrument' backend rewrites Python 3.11 bytecode only")
    return name


class Tracer:
    """Context manager that watches the probes' statements while the body runs.

    Parameters:
        probes: the steps to watch.
        backend: a :class:`BackendName` (or its value): auto, settrace, instrument (3.11) or monitoring (3.12+).
        fingerprint: also hash the exact values each expect observed (see :meth:`~.watch.WatchTable.fingerprints`).
    """

    def __init__(self, probes: list[Probe] | tuple[Probe, ...], *, backend: str = BackendName.AUTO, fingerprint: bool = False) -> None:
        self.probes = tuple(probes)
        self.backend = choose_backend(backend)
        self.table = WatchTable(self.probes, fingerprint=fingerprint)
        self._active = False
        self._impl: Backend
        if self.backend is BackendName.INSTRUMENT:
            from infralens.verify.trace.instrument import InstrumentBackend

            self._impl = InstrumentBackend(self.table)
        elif self.backend is BackendName.SETTRACE:
            self._impl = SetTraceBackend(self.table)
        else:
            self._impl = MonitoringBackend(self.table)

    def __enter__(self) -> Tracer:
        if self._active:
            raise RuntimeError("this tracer is already active")
        self._active = True
        self._impl.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None) -> None:
        self._impl.stop()
        self._active = False

    def results(self) -> dict[str, ProbeResult]:
        """Per probe key: how many times its entry statement ran and each expect's outcome."""
        return self.table.results(self.probes)


def _has_bytecode() -> bool:
    try:
        import bytecode  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


__all__ = ["BACKENDS", "MAX_EVALUATIONS", "BackendName", "ExpectResult", "Probe", "ProbeResult", "Tracer", "choose_backend"]
