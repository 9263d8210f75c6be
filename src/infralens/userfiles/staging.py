"""Temporary files beside the file they will replace: made, registered, flushed; and read back without blocking.

Every temporary file is made by :func:`stage` with Ctrl-C and SIGTERM held back (``pthread_sigmask``) from
just before ``mkstemp`` until its name is in the caller's list, so an interrupt can never arrive while the file
exists and nobody knows its name: the caller's ``finally`` removes everything in the list.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from infralens.cachedir import read_regular

READ_LIMIT = 64 << 20
"""Bytes read back from a file being replaced at most (annotation files are limited to 2 MB)."""


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is over, then arrive as usual (where ``pthread_sigmask`` exists)."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    previous = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)  # a held signal is delivered here, once the block's work is registered


def stage(real: Path, data: bytes, mode: int, staged: list[str]) -> str:
    """A temporary file beside ``real`` holding ``data``, flushed to disk, with permission bits ``mode``.

    Its name is appended to ``staged`` before anything can interrupt; the caller removes what it still lists.
    """
    stream: IO[bytes] | None = None
    try:
        with interrupts_held():
            handle, temporary = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
            staged.append(temporary)
            stream = os.fdopen(handle, "wb")
        with stream:
            stream.write(data)
            stream.flush()
            os.chmod(temporary, mode)
            os.fsync(stream.fileno())
    except BaseException:
        if stream is not None:
            stream.close()
        raise
    return temporary


def is_staged_name(real: Path, candidate: Path) -> bool:
    """Whether ``candidate`` is named the way :func:`stage` names a temporary file for ``real`` (and sits beside it)."""
    return candidate.parent == real.parent and candidate.name.startswith(f".{real.name}.") and candidate.name.endswith(".tmp")


def current_bytes(real: Path) -> bytes | None:
    """What ``real`` holds now (``None``: it does not exist); a FIFO or device raises at once, never blocks."""
    try:
        return read_regular(real, limit=READ_LIMIT)
    except FileNotFoundError:
        return None


def mode_for(path: Path) -> int:
    """Permission bits for the rewritten ``path``: the existing file's, else ``0o666`` less the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode) & 0o777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def discard(temporary: str | Path) -> None:
    """Remove a temporary file if it is still there."""
    with contextlib.suppress(OSError):
        os.unlink(temporary)
