"""Which file defines a name, as seen from a module: its own definitions, then ``from ... import`` statements.

Static and shallow on purpose: a name bound by ``from X import name`` (at module level or in the
given scopes) is followed into ``X``, and through re-exports in packages' ``__init__`` files, a few
hops deep; for a called function (``stars``), a public name no import binds by name is followed through the
module's ``from X import *`` lines. ``import x as y`` attribute chains and assignments are not followed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from infralens.drift.match.reader import TreeReader
from infralens.source import ModuleIndex, SourceFile

MAX_REEXPORTS = 3
"""How many ``from X import name`` hops are followed (re-exports through ``__init__`` files)."""

_FROM_IMPORT = re.compile(r"^from ((?:\.\s?)*)([\w .]*?) import (.+)$")


def defining_file(reader: TreeReader, relpath: str, name: str, scopes: frozenset[str] = frozenset({""}), *, stars: bool = False) -> str | None:
    """The relpath of the file that defines top-level ``name`` as seen from ``relpath`` (None when unknown).

    ``scopes``: the statement scopes whose imports count (module level is ``""``); ``stars``: see :func:`defining`.
    """
    found = defining(reader, relpath, name, scopes, stars=stars)
    return found[0] if found is not None else None


def defining(
    reader: TreeReader, relpath: str, name: str, scopes: frozenset[str] = frozenset({""}), hops: int = MAX_REEXPORTS, *, stars: bool = False
) -> tuple[str, str] | None:
    """The file that defines top-level ``name`` as seen from ``relpath``, and the name it has there (an import may
    rename it: ``from .x import f as g``); None when unknown. With ``stars``, a public name no import binds by name is
    looked for in the modules the file star-imports (``from .gradient import *``), the last first, as Python binds
    the last one: for a function called (a package's ``__init__`` may star-import a whole model family, so it is not
    asked for every name a class body spells)."""
    memo = reader.memo("defining")
    key = (relpath, name, scopes, hops, stars)
    if key not in memo:
        memo[key] = _defining(reader, relpath, name, scopes, hops, stars)
    return memo[key]


def _defining(reader: TreeReader, relpath: str, name: str, scopes: frozenset[str], hops: int, stars: bool) -> tuple[str, str] | None:
    for hop in range(hops, -1, -1):
        indexed = reader.indexed(relpath)
        if indexed is None:
            return None
        source, index = indexed
        if any(d.qualname == name for d in index.definitions):
            return relpath, name
        imported = bindings(reader, source, index, scopes).get(name)
        if imported is None:
            return _star_imported(reader, source, index, name, scopes, hop) if stars else None
        module, name = imported
        found = reader.tree.module_file(module)
        if found is None:
            return None
        relpath, scopes = found, frozenset({""})
    return None


def _star_imported(reader: TreeReader, source: SourceFile, index: ModuleIndex, name: str, scopes: frozenset[str], hops: int) -> tuple[str, str] | None:
    """Where a module that ``source`` star-imports gets ``name`` from (:func:`defining` there, ``hops`` fewer)."""
    if hops <= 0 or name.startswith("_"):
        return None  # a star import never binds a private name (without an ``__all__`` naming it)
    starred = [s for s in index.statements if s.scope in scopes and s.text.startswith("from ") and s.text.endswith(" import *")]
    for statement in reversed(starred):
        match = _FROM_IMPORT.match(statement.text)
        module = _absolute_module(source, match.group(1).count("."), match.group(2).replace(" ", "")) if match else None
        found = reader.tree.module_file(module) if module else None
        if found is not None and found != source.relpath:
            there = defining(reader, found, name, frozenset({""}), hops - 1, stars=True)
            if there is not None:
                return there
    return None


def prefetch_homes(reader: TreeReader, relpath: str, names: Iterable[str], scopes: frozenset[str] = frozenset({""})) -> None:
    """Index at once, on the workers (:meth:`TreeReader.prefetch`), the modules from which ``relpath``'s imports bind
    ``names``: the first hop :func:`defining` takes for each, asked for together before a caller resolves them one by
    one. Only time changes: every lookup that follows reads the same indexes."""
    indexed = reader.indexed(relpath)
    if indexed is None:
        return
    source, index = indexed
    wanted = set(names) - {d.qualname for d in index.definitions}
    modules = {module for name, (module, _) in bindings(reader, source, index, scopes).items() if name in wanted}
    files = {found for module in modules if (found := reader.tree.module_file(module)) is not None and found != relpath}
    reader.prefetch(sorted(files))


def bindings(reader: TreeReader, source: SourceFile, index: ModuleIndex, scopes: frozenset[str]) -> dict[str, tuple[str, str]]:
    """:func:`_bindings`, read once per file and scopes: where the ``from ... import`` lines bind each name."""
    memo = reader.memo("bindings")
    key = (source.relpath, index.sha256, scopes)
    if key not in memo:
        memo[key] = _bindings(source, index, scopes)
    return memo[key]


def _bindings(source: SourceFile, index: ModuleIndex, scopes: frozenset[str]) -> dict[str, tuple[str, str]]:
    """Local name → (module, name there) for every ``from ... import`` in ``scopes`` (the first binding of a name)."""
    bound: dict[str, tuple[str, str]] = {}
    for statement in index.statements:
        match = _FROM_IMPORT.match(statement.text) if statement.scope in scopes else None
        if match is None:
            continue
        module = _absolute_module(source, match.group(1).count("."), match.group(2).replace(" ", ""))
        if module is not None:
            for local, original in _bound_names(match.group(3)).items():
                bound.setdefault(local, (module, original))
    return bound


_IMPORT = re.compile(r"^import (.+)$")


def modules_imported(source: SourceFile, index: ModuleIndex) -> frozenset[str]:
    """Every module ``source`` imports, at any level (``from X import a`` gives ``X`` and ``X.a``: ``a`` may be a module)."""
    found: set[str] = set()
    for statement in index.statements:
        match = _FROM_IMPORT.match(statement.text)
        if match is not None:
            module = _absolute_module(source, match.group(1).count("."), match.group(2).replace(" ", ""))
            if module is not None:
                found.add(module)
                found.update(f"{module}.{original}" for original in _bound_names(match.group(3)).values())
            continue
        plain = _IMPORT.match(statement.text)
        if plain is not None:
            found.update(part.split()[0].replace(" ", "") for part in plain.group(1).split(","))
    return frozenset(found)


def _bound_names(names: str) -> dict[str, str]:
    """Local name → imported name for the names part of a normalised import (``A , B as C``)."""
    bound = {}
    for part in names.strip("() ").split(","):
        tokens = part.split()
        if len(tokens) == 3 and tokens[1] == "as":
            bound[tokens[2]] = tokens[0]
        elif len(tokens) == 1:
            bound[tokens[0]] = tokens[0]
    return bound


def _absolute_module(source: SourceFile, dots: int, module: str) -> str | None:
    """The dotted module an import names (relative when ``dots`` > 0), seen from ``source``."""
    if not dots:
        return module or None
    package = source.module.split(".")
    if not source.relpath.endswith("__init__.py"):
        package = package[:-1]
    up = dots - 1
    if up >= len(package):
        return None
    base = package[: len(package) - up]
    return ".".join([*base, module] if module else base)
