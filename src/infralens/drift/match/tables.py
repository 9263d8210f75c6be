"""Functions reached through a lookup table: ``interface = TABLE [ key ] ; interface ( ... )``.

Upstream often dispatches through a module-level dict of functions (an attention implementation picked by name, a
RoPE initialiser picked by type). The key is only known at run time, but the table is static: a dict literal bound to
the name, or merged into it with ``TABLE . update ( { ... } )`` at module level. Every function named as a value there is
one the call may run; each is resolved from the table's own module (where those names are imported or defined).
"""

from __future__ import annotations

import ast

from infralens.drift.match.names import MAX_REEXPORTS, defining_file, imported_from
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.texts import statement_tree


def table_functions(reader: TreeReader, relpath: str, table: str, scopes: frozenset[str]) -> list[tuple[str, str]]:
    """``(relpath, name)`` of each function ``table`` (a name seen from ``relpath`` in ``scopes``) holds as a value,
    in the order the table's module lists them (empty when the table is not a static dict of names)."""
    found = _bound_in(reader, relpath, table, scopes)
    if found is None:
        return []
    there, name, statements = found
    values: list[str] = []
    for text in statements:
        values.extend(_dict_values(statement_tree(text), name))
    functions = []
    for value in dict.fromkeys(values):
        home = defining_file(reader, there, value)
        if home is not None:
            functions.append((home, value))
    return functions


def _bound_in(reader: TreeReader, relpath: str, name: str, scopes: frozenset[str]) -> tuple[str, str, list[str]] | None:
    """The file that binds module-level ``name`` as seen from ``relpath`` (following ``from ... import``, see
    :func:`.names.imported_from`), the name there, and the texts of its module-level statements that start with it."""
    for _ in range(MAX_REEXPORTS + 1):
        indexed = reader.indexed(relpath)
        if indexed is None:
            return None
        source, index = indexed
        own = [s.text for s in index.statements if not s.scope and s.text.startswith(f"{name} ")]
        if own:
            return relpath, name, own
        imported = imported_from(source, index, name, scopes)
        found = reader.tree.module_file(imported[0]) if imported is not None else None
        if imported is None or found is None:
            return None
        relpath, name, scopes = found, imported[1], frozenset({""})
    return None


def _dict_values(tree: ast.stmt | None, name: str) -> list[str]:
    """The bare names a statement puts into dict ``name``: ``name = { ... }`` (annotated or not) or ``name . update ( { ... } )``."""
    value: ast.expr | None = None
    if isinstance(tree, (ast.Assign, ast.AnnAssign)):
        value = tree.value
    elif isinstance(tree, ast.Expr) and isinstance(tree.value, ast.Call):
        call, func = tree.value, tree.value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name and func.attr == "update" and len(call.args) == 1:
            value = call.args[0]
    if not isinstance(value, ast.Dict):
        return []
    return [v.id for v in value.values if isinstance(v, ast.Name)]
