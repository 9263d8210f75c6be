"""Which names an ``expect`` can use: those of the annotated statement's frame, found statically.

An expect is evaluated with the frame's globals and locals, so it can name the parameters and local
variables of the function the statement is in (and of functions enclosing it), the module's globals,
and builtins. Class bodies do not count: their names are not visible from methods. A ``return`` statement's expects
also see :data:`RETURNED`, the value being returned (the verifier binds it while the frame returns). A module with a
star import (or one that does not parse with :mod:`ast`) gives no answer, so nothing is flagged.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from functools import lru_cache

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
BUILTINS = frozenset(dir(builtins))
RETURNED = "__return__"  # the verifier's name for the returned value (infralens.verify.trace.expects.RETURNED)


def unknown_names(expression: str, module_text: str, line: int) -> tuple[str, ...]:
    """Names ``expression`` reads that the frame of the statement at ``line`` does not have (sorted).

    Empty when all are visible, when the expression does not parse, or when the module gives no answer.
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return ()
    visible = frame_names(module_text, line)
    if visible is None:
        return ()
    return tuple(sorted(name for name in _free_names(tree) if name not in visible and name not in BUILTINS))


@lru_cache(maxsize=64)
def _module(module_text: str) -> ast.Module | None:
    try:
        return ast.parse(module_text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def frame_names(module_text: str, line: int) -> frozenset[str] | None:
    """Every name visible in the frame of the statement at ``line``; None when it cannot be known."""
    module = _module(module_text)
    if module is None:
        return None
    names = set(_bound_in(module.body))
    if "*" in names:
        return None
    functions = _enclosing_functions(module, line)
    for function in functions:
        arguments = function.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
        names.update(argument.arg for argument in every if argument is not None)
        names.update(_bound_in(function.body))
    if functions and any(isinstance(node, ast.Return) and node.lineno == line for node in ast.walk(functions[-1])):
        names.add(RETURNED)
    return frozenset(names)


def _enclosing_functions(module: ast.Module, line: int) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions around ``line``, outermost first (classes are passed through, not counted)."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    body: list[ast.stmt] = module.body
    while True:
        inner = next((node for node in _definitions(body) if node.lineno <= line <= (node.end_lineno or node.lineno)), None)
        if inner is None:
            return found
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(inner)
        body = inner.body


def _definitions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """Definitions directly in ``body`` or nested in its ``if``/``try``/``with``/loops (not in other scopes)."""
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield statement
        elif not isinstance(statement, _SCOPES):
            yield from _definitions(list(_statements_under(statement)))


def _statements_under(statement: ast.stmt) -> Iterator[ast.stmt]:
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(statement, field, ()) or ():
            if isinstance(child, ast.ExceptHandler | ast.match_case):
                yield from child.body
            elif isinstance(child, ast.stmt):
                yield child


def _bound_in(body: list[ast.stmt]) -> Iterator[str]:
    """Names bound by ``body`` in its own scope (nested scopes contribute only their own name)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            yield node.id
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                yield alias.asname or alias.name.split(".")[0]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            yield node.name
        elif isinstance(node, ast.Global | ast.Nonlocal):
            yield from node.names
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            yield node.name
        elif isinstance(node, ast.MatchMapping) and node.rest:
            yield node.rest
        stack.extend(ast.iter_child_nodes(node))


def _free_names(tree: ast.AST) -> set[str]:
    """Names the expression reads, less those it binds itself (comprehension targets, lambda arguments, ``:=``)."""
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    bound = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    bound |= {argument.arg for node in ast.walk(tree) if isinstance(node, ast.Lambda) for argument in ast.walk(node.args) if isinstance(argument, ast.arg)}
    return read - bound
