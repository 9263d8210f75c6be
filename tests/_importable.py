"""Make a package written under a test's folder importable, here and in the processes a test starts."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest


def importable_from(site: Path, package: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``package`` imported from ``site`` by this process and by the processes it starts (verify workers, via
    ``PYTHONPATH``), with any copy an earlier test imported forgotten; undone by ``monkeypatch`` after the test."""
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p))
    for name in [m for m in sys.modules if m == package or m.startswith(f"{package}.")]:
        monkeypatch.delitem(sys.modules, name)
    importlib.invalidate_caches()
