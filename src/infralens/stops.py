"""Stopping cleanly: SIGTERM handled like Ctrl-C, so every ``finally`` and ``except KeyboardInterrupt`` runs.

The CLI wraps every command in :func:`sigterm_interrupts`; a command stopped by Ctrl-C or SIGTERM
ends child processes and temporary files on its way out and exits 2 ("infralens: interrupted").
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While inside, SIGTERM raises KeyboardInterrupt like Ctrl-C (only the main thread can set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
