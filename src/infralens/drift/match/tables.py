"""Functions reached through a lookup table: ``interface = TABLE [ key ] ; interface ( ... )``.

Upstream often dispatches through a module-level dict of functions (an attention implementation picked by name, a
RoPE initialiser picked by type). The key is only known at run time, but the table is static: a dict literal bound to
the name, or merged into it with ``TABLE . update ( { ... } )`` at module level. Every function named as a value there is
one the call may run (and the one function a ``** dict . fromkeys ( KEYS , function )`` entry maps its keys to);
each is resolved from the table's own module (where those names are imported or defined).
A table bound to an instance of a registry class (``ALL_ATTENTION_FUNCTIONS = AttentionInterface ( )``, whose class body
binds ``_global_mapping = { "sdpa" : sdpa_attention_forward , ... }``) holds the functions of those dicts
(:func:`registry_keys`): the edit search may pick the closest of them, but they hand nothing to a split, since a
registry of every implementation shares a few lines with any of them.
"""

from __future__ import annotations

import ast

from infralens.drift.match.names import MAX_REEXPORTS, bindings, defining, defining_file
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.texts import statement_tree


def table_functions(reader: TreeReader, relpath: str, table: str, scopes: frozenset[str]) -> list[tuple[str, str]]:
    """``(relpath, name)`` of each function ``table`` (a name seen from ``relpath`` in ``scopes``) holds as a value,
    in the order the table's module lists them (empty when the table is not a static dict of names)."""
    return list(dict.fromkeys((home, name) for _, home, name in table_entries(reader, relpath, table, scopes)))


def table_entries(reader: TreeReader, relpath: str, table: str, scopes: frozenset[str]) -> list[tuple[str, str, str]]:
    """``(key, relpath, name)`` for each entry of ``table`` (see :func:`table_functions`) whose value is a function found
    in the tree; the key "" when it is not a string literal."""
    found = _bound_in(reader, relpath, table, scopes)
    if found is None:
        return []
    there, name, statements = found
    pairs = [pair for text in statements for pair in _dict_pairs(statement_tree(text), name)]
    homes = {value: defining_file(reader, there, value) for value in dict.fromkeys(value for _, value in pairs)}
    return [(key, home, value) for key, value in pairs if (home := homes[value]) is not None]


def registry_keys(reader: TreeReader, relpath: str, table: str, scopes: frozenset[str]) -> list[tuple[str, str, str]]:
    """``(key, relpath, name)`` for each function the dict literals in the body of class ``C`` hold, when ``table`` is
    bound once to ``C ( )`` without arguments (empty otherwise), under each key that holds it ("" for a key that is not
    a string literal): ``("sdpa", "transformers/integrations/sdpa_attention.py", "sdpa_attention_forward")``."""
    found = _bound_in(reader, relpath, table, scopes)
    tree = statement_tree(found[2][0]) if found is not None and len(found[2]) == 1 else None
    value = tree.value if isinstance(tree, (ast.Assign, ast.AnnAssign)) else None
    if found is None or not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name) or value.args or value.keywords:
        return []
    registry = defining(reader, found[0], value.func.id)
    indexed = reader.indexed(registry[0]) if registry is not None else None
    if registry is None or indexed is None:
        return []
    pairs = [p for s in indexed[1].statements if s.scope == registry[1] for p in _dict_pairs(statement_tree(s.text), "")]
    homes = {name: defining_file(reader, registry[0], name) for name in dict.fromkeys(name for _, name in pairs)}
    return [(key, home, name) for key, name in pairs if (home := homes[name]) is not None]


def _bound_in(reader: TreeReader, relpath: str, name: str, scopes: frozenset[str]) -> tuple[str, str, list[str]] | None:
    """The file that binds module-level ``name`` as seen from ``relpath`` (following ``from ... import``, see
    :func:`.names.bindings`), the name there, and the texts of its module-level statements that start with it."""
    for _ in range(MAX_REEXPORTS + 1):
        indexed = reader.indexed(relpath)
        if indexed is None:
            return None
        source, index = indexed
        own = [s.text for s in index.statements if not s.scope and s.text.startswith(f"{name} ")]
        if own:
            return relpath, name, own
        imported = bindings(reader, source, index, scopes).get(name)
        found = reader.tree.module_file(imported[0]) if imported is not None else None
        if imported is None or found is None:
            return None
        relpath, name, scopes = found, imported[1], frozenset({""})
    return None


def _dict_pairs(tree: ast.stmt | None, name: str) -> list[tuple[str, str]]:
    """``(key, value)`` for each bare name a statement puts into dict ``name``: ``name = { ... }`` (annotated or not) or
    ``name . update ( { ... } )`` (the key "" when it is not a string literal)."""
    value: ast.expr | None = None
    if isinstance(tree, (ast.Assign, ast.AnnAssign)):
        value = tree.value
    elif isinstance(tree, ast.Expr) and isinstance(tree.value, ast.Call):
        call, func = tree.value, tree.value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name and func.attr == "update" and len(call.args) == 1:
            value = call.args[0]
    if not isinstance(value, ast.Dict):
        return []
    keys = [k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else "" for k in value.keys]
    pairs = [(k, v.id) for k, v in zip(keys, value.values, strict=True) if isinstance(v, ast.Name)]
    return pairs + [("", f) for k, v in zip(value.keys, value.values, strict=True) if k is None and (f := _spread_value(v))]


def _spread_value(value: ast.expr) -> str:
    """The one function a ``** dict . fromkeys ( KEYS , function )`` entry maps every key to ('' for anything else)."""
    if not isinstance(value, ast.Call) or len(value.args) != 2 or not isinstance(value.args[1], ast.Name):
        return ""
    func = value.func
    is_fromkeys = isinstance(func, ast.Attribute) and func.attr == "fromkeys" and isinstance(func.value, ast.Name) and func.value.id == "dict"
    return value.args[1].id if is_fromkeys else ""
