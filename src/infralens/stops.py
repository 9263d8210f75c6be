"""Stopping cleanly: SIGTERM handled like Ctrl-C, and child processes ended (terminate, then kill).

The CLI wraps every command in :func:`sigterm_interrupts`; a command stopped by Ctrl-C or SIGTERM
ends child processes and temporary files on its way out and exits 2 ("infralens: interrupted").
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # subprocess costs ~3 ms to import; every command enters sigterm_interrupts
    import subprocess


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While inside, SIGTERM raises KeyboardInterrupt like Ctrl-C (only the main thread can set handlers: elsewhere this
    does nothing; asking ``signal`` is cheaper than importing ``threading`` on every command)."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def end_processes(processes: Sequence[subprocess.Popen[str]], grace: float) -> None:
    """Terminate *processes*, then kill those still there after *grace* seconds."""
    import subprocess

    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + grace
    for process in processes:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
