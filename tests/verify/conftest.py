"""Helpers for verification tests: small projects written into ``tmp_path``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from verify_helpers import REPO_SCENARIOS


@pytest.fixture
def write_project(tmp_path: Path):
    """``write_project({"annotations/diffusers/a.yaml": text, "site/pkg/mod.py": src}, labs=[...])`` → root.

    The project's ``scenarios/`` links to this repository's scenarios unless *files* write scenarios of their own
    (or *scenarios* is False).
    """

    def make(files: dict[str, str], labs: tuple[str, ...] = (), scenarios: bool = True) -> Path:
        root = tmp_path / "project"
        (root / "annotations").mkdir(parents=True, exist_ok=True)
        if scenarios and not any(relpath.startswith("scenarios/") for relpath in files) and not (root / "scenarios").exists():
            (root / "scenarios").symlink_to(REPO_SCENARIOS, target_is_directory=True)
        for relpath, text in files.items():
            path = root / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        for lab in labs:
            (root / "labs" / f"lab-{lab}").mkdir(parents=True, exist_ok=True)
        return root

    return make
