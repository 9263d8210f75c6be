"""Small helpers shared by the verification tests."""

from __future__ import annotations

from pathlib import Path

REPO_SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
"""This repository's own scenarios (a project's content, like its annotations)."""


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line containing *needle*."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")
