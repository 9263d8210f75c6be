"""No test keeps every assert inside a loop that could run zero times.

``for page in pages: assert ok(page)`` passes when ``pages`` is empty: a test that checks every mutant, every
coverage report or every exported name passes silently once the thing it loops over is gone. A test must have at
least one assert that runs whatever its loops find, usually ``assert pages`` before the loop. A loop over a
non-empty literal (a tuple, list, set or dict written out, a name bound to one, its ``.items()``, ``range(2, 7)``)
always runs, so asserts inside it count as running.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]

_LITERALS = (ast.List, ast.Tuple, ast.Set, ast.Dict)
_VIEWS = {"items", "keys", "values"}


def _is_non_empty_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    return isinstance(node, (ast.List, ast.Tuple, ast.Set)) and bool(node.elts)


def _literal_names(tree: ast.AST) -> set[str]:
    """Names assigned only non-empty literals (anywhere in ``tree``): a loop over one of them always runs."""
    literal: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for target in targets:
            if isinstance(target, ast.Name):
                (literal if _is_non_empty_literal(value) else other).add(target.id)
    return literal - other


def _always_runs(iterable: ast.expr, literals: set[str]) -> bool:
    if _is_non_empty_literal(iterable):
        return True
    if isinstance(iterable, ast.Name):
        return iterable.id in literals
    if isinstance(iterable, ast.Call) and not iterable.keywords:
        function = iterable.func
        if isinstance(function, ast.Attribute) and function.attr in _VIEWS and not iterable.args:
            return _always_runs(function.value, literals)
        if isinstance(function, ast.Name) and function.id == "range" and len(iterable.args) in (1, 2):
            bounds = [arg.value for arg in iterable.args if isinstance(arg, ast.Constant) and isinstance(arg.value, int)]
            start, stop = ([0, *bounds] if len(bounds) == 1 else bounds) if len(bounds) == len(iterable.args) else (0, 0)
            return start < stop
        if isinstance(function, ast.Name) and function.id in {"enumerate", "sorted", "reversed", "list", "tuple"} and len(iterable.args) == 1:
            return _always_runs(iterable.args[0], literals)
    return False


def _asserts(node: ast.AST, guarded: bool, literals: set[str], found: list[bool]) -> None:
    """Append, for each assert under ``node`` (nested functions aside), whether it always runs."""
    for field, value in ast.iter_fields(node):
        maybe_skipped = isinstance(node, (ast.For, ast.AsyncFor)) and field == "body" and not _always_runs(node.iter, literals)
        maybe_skipped = maybe_skipped or (isinstance(node, ast.While) and field == "body")
        runs = guarded and not maybe_skipped
        for child in value if isinstance(value, list) else [value]:
            if not isinstance(child, ast.AST) or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, ast.Assert):
                found.append(runs)
            _asserts(child, runs, literals, found)


def loop_only_tests(source: str) -> list[tuple[int, str]]:
    """(line, name) of each test function with asserts, none of which is sure to run."""
    tree = ast.parse(source)
    module_literals = _literal_names(tree)
    flagged = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            found: list[bool] = []
            _asserts(node, True, module_literals | _literal_names(node), found)
            if found and not any(found):
                flagged.append((node.lineno, node.name))
    return flagged


def _test_files() -> list[Path]:
    return sorted(path for path in TESTS.rglob("test_*.py") if "roots" not in path.relative_to(TESTS).parts)


def test_every_test_has_an_assert_that_runs_whatever_its_loops_find() -> None:
    files = _test_files()
    assert len(files) > 50, f"found only {len(files)} test files under {TESTS}"
    flagged = [f"{path.relative_to(TESTS)}:{line} {name}" for path in files for line, name in loop_only_tests(path.read_text("utf-8"))]
    assert not flagged, "every assert of these tests sits in a loop that may run zero times; assert what it loops over first:\n" + "\n".join(flagged)


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("def test_a(xs):\n    for x in xs:\n        assert x\n", [(1, "test_a")]),
        ("def test_a(xs):\n    assert xs\n    for x in xs:\n        assert x\n", []),
        ("def test_a():\n    for x in (1, 2):\n        assert x\n", []),
        ("CASES = {'a': 1}\n\ndef test_a():\n    for k, v in CASES.items():\n        assert v\n", []),
        ("CASES = {}\n\ndef test_a():\n    for k, v in CASES.items():\n        assert v\n", [(3, "test_a")]),
        ("def test_a(n):\n    for x in range(n):\n        assert x >= 0\n", [(1, "test_a")]),
        ("def test_a():\n    for x in range(2, 7):\n        assert x >= 0\n", []),
        ("def test_a():\n    for x in range(7, 2):\n        assert x >= 0\n", [(1, "test_a")]),
        ("def test_a(xs):\n    for x in (1, 2):\n        for y in xs:\n            assert y\n", [(1, "test_a")]),
        ("def test_a(xs):\n    for x in (1, 2):\n        assert xs\n        for y in xs:\n            assert y\n", []),
        ("def test_a(xs):\n    while xs:\n        assert xs.pop()\n", [(1, "test_a")]),
        ("def test_a(xs):\n    def check(x):\n        assert x\n    for x in xs:\n        check(x)\n", []),
    ],
)
def test_the_scan_tells_a_loop_that_may_run_empty(source: str, flagged: list[tuple[int, str]]) -> None:
    assert loop_only_tests(source) == flagged
