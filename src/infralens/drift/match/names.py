"""Which file defines a name, as seen from a module: its own definitions, then ``from ... import`` statements.

Static and shallow on purpose: a name bound by ``from X import name`` (at module level or in the
given scopes) is followed into ``X``, and through re-exports in packages' ``__init__`` files, a few
hops deep. Star imports, ``import x as y`` attribute chains and assignments are not followed.
"""

from __future__ import annotations

import re

from infralens.drift.match.reader import TreeReader
from infralens.source import ModuleIndex, SourceFile

MAX_REEXPORTS = 3
"""How many ``from X import name`` hops are followed (re-exports through ``__init__`` files)."""

_FROM_IMPORT = re.compile(r"^from ((?:\.\s?)*)([\w .]*?) import (.+)$")


def defining_file(reader: TreeReader, relpath: str, name: str, scopes: frozenset[str] = frozenset({""})) -> str | None:
    """The relpath of the file that defines top-level ``name`` as seen from ``relpath`` (None when unknown).

    ``scopes``: the statement scopes whose imports count (module level is ``""``).
    """
    found = defining(reader, relpath, name, scopes)
    return found[0] if found is not None else None


def defining(reader: TreeReader, relpath: str, name: str, scopes: frozenset[str] = frozenset({""})) -> tuple[str, str] | None:
    """The file that defines top-level ``name`` as seen from ``relpath``, and the name it has there (an import may
    rename it: ``from .x import f as g``); None when unknown."""
    for _ in range(MAX_REEXPORTS + 1):
        indexed = reader.indexed(relpath)
        if indexed is None:
            return None
        source, index = indexed
        if any(d.qualname == name for d in index.definitions):
            return relpath, name
        imported = imported_from(source, index, name, scopes)
        if imported is None:
            return None
        module, name = imported
        found = reader.tree.module_file(module)
        if found is None:
            return None
        relpath, scopes = found, frozenset({""})
    return None


def imported_from(source: SourceFile, index: ModuleIndex, name: str, scopes: frozenset[str]) -> tuple[str, str] | None:
    """(module, name there) for the ``from ... import`` that binds ``name`` in ``scopes``."""
    for statement in index.statements:
        if statement.scope not in scopes:
            continue
        match = _FROM_IMPORT.match(statement.text)
        if match is None:
            continue
        original = _bound_names(match.group(3)).get(name)
        if original is None:
            continue
        module = _absolute_module(source, match.group(1).count("."), match.group(2).replace(" ", ""))
        if module is not None:
            return module, original
    return None


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
