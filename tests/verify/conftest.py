"""Helpers for verification tests: small projects written into ``tmp_path``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


@pytest.fixture
def write_project(tmp_path: Path):
    """``write_project({"annotations/diffusers/a.yaml": text, "site/pkg/mod.py": src}, labs=[...])`` → root."""

    def make(files: dict[str, str], labs: tuple[str, ...] = ()) -> Path:
        root = tmp_path / "project"
        (root / "annotations").mkdir(parents=True, exist_ok=True)
        for relpath, text in files.items():
            path = root / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        for lab in labs:
            (root / "labs" / f"lab-{lab}").mkdir(parents=True, exist_ok=True)
        return root

    return make
