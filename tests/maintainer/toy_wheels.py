"""Wheels of ``toylib`` (the toy project's library, :mod:`toy_project`) put into an InfraLens wheel cache, so
``verify --against`` and ``check --against`` run on other toylib releases without a package index."""

from __future__ import annotations

import base64
import hashlib
import textwrap
import zipfile
from pathlib import Path

from toy_project import CORE

OLD_CORE = CORE.replace("y = x * 2", "y = x + x")
"""toylib 1.1.0: the annotated statement is written another way (a changed step, not-run when verified)."""


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(folder: Path, version: str, core: str) -> Path:
    """``toylib-VERSION-py3-none-any.whl`` in ``folder`` with ``core`` as ``toylib/core.py``."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"toylib-{version}.dist-info"
    files = {
        "toylib/__init__.py": b"",
        "toylib/core.py": textwrap.dedent(core).lstrip().encode(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: toylib\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: toy\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "\n".join([*(_record_line(name, data) for name, data in files.items()), f"{info}/RECORD,,"]) + "\n"
    path = folder / f"toylib-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr(f"{info}/RECORD", record)
    return path


def toy_wheels(cache: Path) -> None:
    """toylib 1.1.0 (drifted) and 1.2.0 (as reviewed) in the wheel cache under ``cache``."""
    write_wheel(cache / "wheels", "1.1.0", OLD_CORE)
    write_wheel(cache / "wheels", "1.2.0", CORE)
