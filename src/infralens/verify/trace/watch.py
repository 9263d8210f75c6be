"""Which lines of a code object are watched, and where a running frame is among them.

A statement counts as run when execution enters its line range from outside it; the expects
attached to a statement are evaluated when execution leaves it (next line elsewhere, or return; then
they also see the returned value as ``__return__``).
"""

from __future__ import annotations

import os
from types import CodeType, FrameType

from infralens.verify.trace.expects import Expect
from infralens.verify.trace.probes import Probe, ProbeResult


class Statement:
    """One watched statement of one code object."""

    __slots__ = ("end", "expects", "runs", "start")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end
        self.runs = 0
        self.expects: list[Expect] = []


class CodeWatch:
    """Watched statements of one code object, indexed by line."""

    __slots__ = ("lines", "statements")

    def __init__(self) -> None:
        self.lines: dict[int, Statement] = {}
        self.statements: dict[tuple[int, int], Statement] = {}

    def statement(self, start: int, end: int) -> Statement:
        found = self.statements.get((start, end))
        if found is None:
            found = self.statements[(start, end)] = Statement(start, end)
            for line in range(start, end + 1):
                self.lines.setdefault(line, found)
        return found


class FrameState:
    """Per-frame position: the watched statement execution is inside (its expects are pending)."""

    __slots__ = ("current", "watch")

    def __init__(self, watch: CodeWatch) -> None:
        self.watch = watch
        self.current: Statement | None = None

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

    def leave(self, frame: FrameType, evaluate: bool = True, returned: tuple[object] | None = None) -> None:
        """The frame returns (``returned``: ``(value,)``) or yields (None): the pending statement's expects are evaluated."""
        current = self.current
        if evaluate and current is not None and current.expects:
            for expect in current.expects:
                expect.evaluate(frame, returned)
        self.current = None


class WatchTable:
    """Every probe's statements by real file path and ``co_qualname``, and the lookup backends use."""

    def __init__(self, probes: tuple[Probe, ...], *, fingerprint: bool = False) -> None:
        self.fingerprint = fingerprint
        self.files: dict[str, dict[str, CodeWatch]] = {}
        self.entries: dict[str, Statement] = {}
        self.expects: dict[str, list[Expect]] = {}
        for probe in probes:
            self._add(probe)
        self.code_cache: dict[int, tuple[CodeType, CodeWatch | None]] = {}
        """id(code) → (code, watch). By identity: equal code objects from different files compare equal."""
        self._real: dict[str, str] = {}

    def _add(self, probe: Probe) -> None:
        scopes = self.files.setdefault(os.path.realpath(probe.file), {})
        entry_watch = scopes.setdefault(probe.scope or "<module>", CodeWatch())
        self.entries[probe.key] = entry_watch.statement(*probe.entry)
        exit_watch = scopes.setdefault(probe.exit_scope or probe.scope or "<module>", CodeWatch())
        exit_statement = exit_watch.statement(*probe.exit)
        expects = [Expect(expr, probe.key, fingerprint=self.fingerprint) for expr in probe.expects]
        exit_statement.expects.extend(expects)
        self.expects[probe.key] = expects

    def watch_for(self, code: CodeType) -> CodeWatch | None:
        """The watch for *code*, or None when none of its statements is annotated (memoised)."""
        entry = self.code_cache.get(id(code))
        if entry is not None and entry[0] is code:
            return entry[1]
        filename = code.co_filename
        real = self._real.get(filename)
        if real is None:
            real = self._real[filename] = os.path.realpath(filename)
        scopes = self.files.get(real)
        watch = scopes.get(code.co_qualname) if scopes else None
        self.code_cache[id(code)] = (code, watch)
        return watch

    def fingerprints(self) -> dict[str, tuple[str, ...]]:
        """Per probe key: its run count and each expect's digest of exact observed values (with *fingerprint* on)."""
        return {
            key: (str(self.entries[key].runs), *(expect.digest.hexdigest() if expect.digest else "" for expect in expects))
            for key, expects in self.expects.items()
        }

    def trails(self) -> dict[str, tuple[tuple[str, ...], ...]]:
        """Per probe key: each expect's :attr:`~.expects.Expect.trail` (with *fingerprint* on)."""
        return {key: tuple(tuple(expect.trail) for expect in expects) for key, expects in self.expects.items()}

    def results(self, probes: tuple[Probe, ...]) -> dict[str, ProbeResult]:
        """Per probe key: how many times its entry statement ran and each expect's outcome."""
        return {
            probe.key: ProbeResult(probe.key, self.entries[probe.key].runs, tuple(expect.result() for expect in self.expects[probe.key])) for probe in probes
        }
