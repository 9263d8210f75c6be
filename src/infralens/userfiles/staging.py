"""What a file about to be replaced holds now (read without blocking), and the permission bits its new text keeps.

The temporary files themselves are :mod:`infralens.atomic`'s (:func:`~infralens.atomic.stage`), the one writer.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from infralens.cachedir import read_regular

READ_LIMIT = 64 << 20
"""Bytes read back from a file being replaced at most (annotation files are limited to 2 MB)."""


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
