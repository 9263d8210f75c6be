"""Inside ``drift/``: ``lock/`` below ``match/`` below the check below ``history/``, checked statically."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

DRIFT = Path(__file__).resolve().parents[2] / "src" / "infralens" / "drift"

LEVELS = {"lock": 0, "match": 1, "check": 2, "history": 3, "commands": 4}
"""Each part of ``drift/`` and its level: a part imports only from its own level or lower ones."""

COMMANDS = {"run", "cli"}
"""Top-level modules that start a command and may use every part (``check --walk`` runs the history's walk)."""


def _part(module: str) -> str:
    parts = module.split(".")[2:]  # infralens.drift.<...>
    if not parts or parts[0] == "__init__":
        return "commands"
    if parts[0] in ("lock", "match", "history"):
        return parts[0]
    return "commands" if parts[0] in COMMANDS else "check"


def _modules() -> list[Path]:
    return sorted(p for p in DRIFT.rglob("*.py") if "__pycache__" not in p.parts and p.name != "__init__.py")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(DRIFT)))
def test_drift_parts_import_only_downwards(path):
    name = ".".join(("infralens", "drift", *path.relative_to(DRIFT).with_suffix("").parts))
    mine = _part(name)
    problems = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), name.rsplit(".", 1)[0]) if node.level else (node.module or "")
            targets = [base] if base != "infralens.drift" else [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        for target in targets:
            if target.startswith("infralens.drift.") and LEVELS[_part(target)] > LEVELS[mine]:
                problems.append(f"line {node.lineno}: {mine} imports {target} ({_part(target)})")
    assert not problems, "\n".join(problems)
