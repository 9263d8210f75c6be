"""Where InfraLens keeps its caches: ``$INFRALENS_CACHE_DIR``, else ``$XDG_CACHE_HOME/infralens``, else ``~/.cache/infralens``.

Only :mod:`os` (and :mod:`contextlib`) is used, so the warm ``check`` path can ask for it without importing :mod:`pathlib`.
:func:`store_cache_file` is how every cache entry is written: whole or not at all, and never an error.
"""

from __future__ import annotations

import contextlib
import os


def cache_root() -> str:
    """The folder every InfraLens cache lives under (it may not exist yet)."""
    explicit = os.environ.get("INFRALENS_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "infralens")


def store_cache_file(path: str | os.PathLike[str], text: str) -> None:
    """Write a cache entry atomically (a temporary file of its own, then ``os.replace``); best effort.

    A read-only or full cache folder only costs the next run the work this entry saved, so any
    :class:`OSError` is swallowed and the temporary file removed.
    """
    import tempfile

    folder = os.path.dirname(os.fspath(path))
    temporary = None
    try:
        os.makedirs(folder, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
