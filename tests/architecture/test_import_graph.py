"""No import circle anywhere in ``src/infralens``: every import counts, deferred ones included.

The graph is read with ``ast``, never by importing. Its nodes are the modules (a package is its ``__init__``);
an edge ``A → B`` is any import in ``A`` that loads ``B``, wherever it sits: at the top, inside a function, or
under ``if TYPE_CHECKING:`` (a circle a type checker or a later call walks into is still a circle). Relative
imports are resolved; ``from P import N`` is an edge to the module ``P.N`` when that is a module, else to ``P``;
``importlib.import_module("…")`` with a constant name counts too.

Packages and their lazy exports (:func:`infralens._exports.lazy_exports`): a package's ``__init__`` has an edge to
every submodule its table (and its ``TYPE_CHECKING`` block) names. Importing ``P.sub`` is *not* read as an edge
to ``P``'s ``__init__``, although Python runs it first: a lazy ``__init__`` runs none of its submodules, so
``P.sub`` and ``P`` form a circle only when ``P.sub`` itself imports a name from ``P``'s ``__init__``
(``from infralens.drift import run_check`` inside ``infralens.drift.history``) — then ``P`` → ``P.sub`` → ``P``
is reported like any other circle, and the fix is to import the name from the submodule that defines it.

Each circle is reported as a chain of module names. :data:`PENDING_PACKAGES` holds packages being reorganised
elsewhere: a circle lying entirely inside one of them is not reported yet.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

PENDING_PACKAGES: frozenset[str] = frozenset()
"""Circles entirely inside these packages are not reported (none: ``drift/match/`` is laid out in its real order,
from its rule book up to the matcher; an entry here needs a reason and an issue)."""


def module_names(root: Path, top: str) -> dict[str, Path]:
    """Every module under ``root / top``, by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((root / top).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _lazy_table(node: ast.Call) -> Iterable[str]:
    """The submodules a ``lazy_exports(__name__, {name: "sub", …})`` call names."""
    for argument in node.args[1:2]:
        if isinstance(argument, ast.Dict):
            yield from (value.value for value in argument.values if isinstance(value, ast.Constant) and isinstance(value.value, str))


def imports_of(name: str, path: Path, modules: Mapping[str, Path], top: str) -> set[str]:
    """The modules of ``top`` that module ``name`` (at ``path``) imports, wherever the import statement sits."""
    package = _package_of(name, path)
    targets: set[str] = set()

    def add(module: str, names: Iterable[str] = ()) -> None:
        for imported in names:
            if f"{module}.{imported}" in modules:
                targets.add(f"{module}.{imported}")
            elif module in modules:
                targets.add(module)
        if not names and module in modules:
            targets.add(module)

    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level else node.module or ""
            add(base, [alias.name for alias in node.names])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
            called = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if called == "lazy_exports":
                targets.update(f"{package}.{sub}" for sub in _lazy_table(node) if f"{package}.{sub}" in modules)
            elif called == "import_module" and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                add(node.args[0].value)
    targets.discard(name)
    return {target for target in targets if target.split(".")[0] == top}


def import_graph(root: Path, top: str) -> dict[str, set[str]]:
    modules = module_names(root, top)
    return {name: imports_of(name, path, modules, top) for name, path in modules.items()}


def _components(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _chain(graph: Mapping[str, set[str]], members: set[str], start: str) -> list[str]:
    """One shortest circle through ``start`` inside the component ``members``, as a chain ``[start, …, start]``."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & members):
                if successor == start:
                    chain = [node]
                    while chain[-1] != start:
                        chain.append(previous[chain[-1]])
                    return [start, *reversed(chain[:-1]), start]
                if successor not in previous:
                    previous[successor] = node
                    following.append(successor)
        frontier = following
    raise AssertionError(f"no circle through {start} in {sorted(members)}")


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def circles(graph: Mapping[str, set[str]], pending: Iterable[str] = ()) -> list[str]:
    """Each import circle as ``a -> b -> a``: one chain per strongly connected component (a set of modules each
    reaching every other), through its first module outside the ``pending`` packages; a component lying wholly
    inside one pending package is left out."""
    pending = tuple(pending)
    shown = []
    for component in _components(graph):
        outside = [member for member in component if not any(_inside(member, package) for package in pending)]
        if outside:
            shown.append(" -> ".join(_chain(graph, set(component), min(outside))))
    return shown


def test_the_checker_finds_every_kind_of_import(tmp_path):
    """A circle made only of deferred imports (function-local, TYPE_CHECKING, a lazy table, import_module) is found."""
    package = tmp_path / "demo"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text('from x import lazy_exports\n__all__, __getattr__ = lazy_exports(__name__, {"Thing": "low"})\n')
    (package / "low.py").write_text("def f():\n    from demo.high import g\n")
    (package / "high.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .inner import deep\n")
    (package / "inner" / "__init__.py").write_text("")
    (package / "inner" / "deep.py").write_text('import importlib\nimportlib.import_module("demo.low")\n')
    (package / "alone.py").write_text("from demo import low\n")  # a submodule: no edge to demo's __init__
    (package / "user.py").write_text("from demo import Thing\n")  # a name from __init__: an edge to it
    graph = import_graph(tmp_path, "demo")
    assert graph["demo.alone"] == {"demo.low"} and graph["demo.user"] == {"demo"}
    assert circles(graph) == ["demo.high -> demo.inner.deep -> demo.low -> demo.high"]
    assert circles(graph, pending={"demo"}) == []
    assert circles(graph, pending={"demo.inner"}) == ["demo.high -> demo.inner.deep -> demo.low -> demo.high"]
    (package / "user.py").write_text("from demo import Thing\nimport demo.high\n")
    (package / "__init__.py").write_text('from x import lazy_exports\n__all__, __getattr__ = lazy_exports(__name__, {"Thing": "user"})\n')
    assert "demo -> demo.user -> demo" in circles(import_graph(tmp_path, "demo"))


def test_no_import_circle_in_infralens():
    graph = import_graph(SRC, "infralens")
    assert len(graph) > 200 and sum(len(targets) for targets in graph.values()) > 500  # the whole tree was read
    found = circles(graph, PENDING_PACKAGES)
    assert not found, "import circles (break each by moving what both sides need into a module of its own):\n" + "\n".join(found)
