"""Small helpers shared by the verification tests."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

REPO_SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
"""This repository's own scenarios (a project's content, like its annotations)."""


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line containing *needle*."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


@contextlib.contextmanager
def upstream_module(folder: Path, name: str, source: str) -> Iterator[tuple[ModuleType, str]]:
    """*source* written to ``folder/<name>.py`` and imported as module *name* (in ``sys.modules`` while inside): a
    stand-in for upstream code that the tracer and the mutants can find by file and line."""
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module, str(path)
    finally:
        sys.modules.pop(name, None)
