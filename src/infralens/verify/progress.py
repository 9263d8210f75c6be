"""A dependency-free progress display on stderr: a bar on terminals, one line per scenario otherwise.

Scenario names come from the project's ``scenarios/`` folder: they are printed through
:func:`infralens.errors.printable_line` (the bar's own ``\\r`` and erase-line codes are ours).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TextIO

from infralens.errors import printable_line
from infralens.verify.run.protocol import Event

if TYPE_CHECKING:
    from infralens.verify.run.protocol import ScenarioOutcome


class Progress:
    """Callable used as the runner's progress callback."""

    def __init__(self, total: int, stream: TextIO, width: int = 24) -> None:
        self.total, self.stream, self.width = total, stream, width
        self.done = 0
        self.started = time.perf_counter()
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.running: list[str] = []

    def __call__(self, event: Event, name: str, outcome: ScenarioOutcome | None) -> None:
        if event == Event.START:
            self.running.append(name)
        else:
            self.done += 1
            if name in self.running:
                self.running.remove(name)
            if not self.tty and outcome is not None:
                line = f"verify [{self.done}/{self.total}] {name}: {outcome.status.value} ({outcome.seconds:.2f} s)"
                print(printable_line(line), file=self.stream, flush=True)
        if self.tty:
            self._draw()

    def _draw(self) -> None:
        filled = int(self.width * self.done / max(self.total, 1))
        bar = "#" * filled + "." * (self.width - filled)
        now = ", ".join(self.running) or "-"
        elapsed = time.perf_counter() - self.started
        self.stream.write("\r\x1b[2K" + printable_line(f"verify [{bar}] {self.done}/{self.total} {elapsed:5.1f}s  {now}"))
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
