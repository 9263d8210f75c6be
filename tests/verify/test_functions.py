"""The one registry of live functions: one walk over the collector's objects serves the tracer's by-file lookups
and the mutants' by-qualname lookups, and it walks again only when what was asked for may have changed."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from infralens.verify.trace.functions import FunctionRegistry

SOURCE = """
def outer(x):
    def inner(y):
        return x + y
    return inner


def plain(x):
    return x
"""


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "registry_demo.py").write_text(textwrap.dedent(SOURCE).lstrip())
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "registry_demo", raising=False)
    loaded = importlib.import_module("registry_demo")
    yield loaded
    sys.modules.pop("registry_demo", None)


def test_one_scan_answers_both_lookups(module) -> None:
    registry = FunctionRegistry()
    path = str(Path(module.__file__).resolve())
    in_file = registry.in_file(path)
    assert registry.scans == 1
    assert {function.__qualname__ for function in in_file} == {"outer", "plain"}
    assert registry.named(path, "plain") == [module.plain] and registry.named(path, "outer") == [module.outer]
    assert registry.scans == 1  # the by-qualname lookups reused the walk the by-file lookup made


def test_a_closure_made_since_is_found_after_a_rescan(module) -> None:
    registry = FunctionRegistry()
    path = str(Path(module.__file__).resolve())
    assert registry.named(path, "outer.<locals>.inner") == [] and registry.scans == 2  # nothing alive: it looked twice
    made = module.outer(1)
    assert registry.named(path, "outer.<locals>.inner") == [made]
    registry.scan()
    assert made in registry.in_file(path)


def test_a_reloaded_module_is_scanned_again(module) -> None:
    registry = FunctionRegistry()
    path = str(Path(module.__file__).resolve())
    old = registry.in_file(path)
    scans = registry.scans
    del old
    reloaded = importlib.reload(module)
    del module
    functions = registry.in_file(path)
    assert reloaded.plain in functions and registry.scans > scans
