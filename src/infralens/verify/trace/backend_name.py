"""The tracer backends by name (``verify --backend``): a leaf module, so the CLI can offer them without importing the tracer."""

from __future__ import annotations

from enum import StrEnum


class BackendName(StrEnum):
    """How the tracer watches statements (see :mod:`infralens.verify.trace.tracer`)."""

    AUTO = "auto"
    """The fastest that applies on this interpreter."""
    SETTRACE = "settrace"
    INSTRUMENT = "instrument"
    """Python 3.11 only: hooks compiled into the watched code objects (needs the ``bytecode`` package)."""
    MONITORING = "monitoring"
    """Python 3.12+: ``sys.monitoring`` events on the watched code objects only."""
