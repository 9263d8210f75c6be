"""The one content-hash helper: SHA-256 hex digests of text, bytes and files (no pathlib: the warm check uses it).

Text is encoded as UTF-8 with ``surrogatepass``, so any ``str`` (even one holding a lone surrogate
decoded from a damaged file) hashes without an error and equal texts always give equal digests.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat

_CHUNK = 1 << 20


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of *data*."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """Hex SHA-256 of *text* as UTF-8 (lone surrogates kept, never an error)."""
    return sha256_bytes(text.encode("utf-8", "surrogatepass"))


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a regular file's bytes, read in chunks (so any size costs one chunk of memory).

    The file is opened non-blocking and checked with ``fstat`` first: a FIFO, device, socket or folder raises
    :class:`OSError` at once instead of hanging the run or reading forever (``/dev/zero``).
    """
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()
