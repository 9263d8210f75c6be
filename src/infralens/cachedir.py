"""Where InfraLens keeps its caches: ``$INFRALENS_CACHE_DIR``, else ``$XDG_CACHE_HOME/infralens``, else ``~/.cache/infralens``.

Only :mod:`os` (with :mod:`contextlib`, :mod:`errno` and :mod:`stat`) is used, so the warm ``check`` path can ask for it without importing :mod:`pathlib`.
Cache entries are written by :func:`infralens.atomic.write_quietly`: whole or not at all, and never an error.
:func:`read_regular` is how every cache entry and user file is read: only a regular file, never a FIFO that
would block; :func:`read_cache_entry` turns any problem into a miss.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat


def cache_root() -> str:
    """The folder every InfraLens cache lives under (it may not exist yet)."""
    explicit = os.environ.get("INFRALENS_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "infralens")


class NotRegularFile(OSError):
    """A path names a FIFO, socket, device or folder where a file was expected (an :class:`OSError`, so the
    callers' ``except OSError`` paths treat it like any unreadable file)."""


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISDIR, "a folder"),
)


def _kind(mode: int) -> str:
    return next((word for test, word in _KINDS if test(mode)), "not a regular file")


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of ``path``, which must be a regular file: every read of a cache entry or user file goes through here.

    The file is opened non-blocking and checked with ``fstat`` before anything is read, so a FIFO, device
    or socket where a file should be raises :class:`NotRegularFile` at once instead of hanging the run.
    ``limit``: read at most this many bytes plus one (callers compare the length to refuse larger files).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise NotRegularFile(errno.EISDIR, "is a folder, not a file", os.fspath(path)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(errno.EINVAL, f"is {_kind(mode)}, not a regular file", os.fspath(path))
        chunks: list[bytes] = []
        size = 0
        while (limit is None or size <= limit) and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_cache_entry(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of a cache entry; None when it is absent or unreadable.

    A FIFO, socket or device where the entry should be is removed (the next store writes a real file there)
    and treated as a miss, never waited on.
    """
    try:
        return read_regular(path)
    except NotRegularFile as error:
        if error.errno != errno.EISDIR:
            with contextlib.suppress(OSError):
                os.unlink(path)
        return None
    except OSError:
        return None
