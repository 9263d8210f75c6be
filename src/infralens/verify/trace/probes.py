"""What the tracer watches and what it found: one :class:`Probe` per annotated step, its results.

Frozen records (:mod:`infralens.records`, like the reports): the plan builds probes, the worker gets
them with its request and gives them to the tracer, and the results travel back to the runner, all as the JSON
those records define (see :mod:`infralens.verify.run.protocol`).
"""

from __future__ import annotations

from infralens.records import Record, record


@record
class Probe(Record):
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


@record
class ExpectResult(Record):
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


@record
class ProbeResult(Record):
    key: str
    times_ran: int
    expects: tuple[ExpectResult, ...]
