"""A guard for tests of code that could hang (opening a FIFO blocks until a writer appears)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Raise TimeoutError in the block after *seconds* (main thread, POSIX), so a hang fails the test."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


CTRL_C_REACHES_PYTHON = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
"""First lines of a child script that a test stops with SIGINT. A shell that starts a job in the background
(``cmd &`` in a script, some CI runners) makes it ignore SIGINT, and Python then never raises
KeyboardInterrupt; this gives the child Python's own Ctrl-C handling back, so Ctrl-C is tested, not the runner."""
