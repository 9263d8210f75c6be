"""Unified diffs of statement texts, laid out readably (split at commas so edits inside long calls stand out)."""

from __future__ import annotations

import difflib

from infralens.source import display_lines


def statement_diff(old: tuple[str, ...], new: tuple[str, ...], old_label: str, new_label: str) -> tuple[str, ...]:
    """Unified diff of statement texts (laid out readably), split at commas so edits inside long calls stand out."""
    return tuple(difflib.unified_diff(_split(old), _split(new), old_label, new_label, lineterm="", n=2))


def _split(texts: tuple[str, ...]) -> list[str]:
    lines: list[str] = []
    for text in texts:
        lines.extend(display_lines(text))
    return lines
