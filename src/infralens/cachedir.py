"""Where InfraLens keeps its caches: ``$INFRALENS_CACHE_DIR``, else ``$XDG_CACHE_HOME/infralens``, else ``~/.cache/infralens``.

Only :mod:`os` is used, so the warm ``check`` path can ask for it without importing :mod:`pathlib`.
"""

from __future__ import annotations

import os


def cache_root() -> str:
    """The folder every InfraLens cache lives under (it may not exist yet)."""
    explicit = os.environ.get("INFRALENS_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "infralens")
