"""The same :class:`~infralens.source.models.ModuleIndex` as :mod:`.index`, built from Python's ``ast``.

libcst (:mod:`.index`) is the reference indexer: every installed source a lab or a lock shows is
indexed by it. Reading *other* releases (``check --against``, ``history``) parses hundreds of
files, and there this twin, about 8x faster, stands in. It yields exactly what libcst yields
(``tests/test_fast_index.py`` compares both on synthetic edge cases and on real upstream files);
for what it does not mirror (``match`` statements, files ``ast`` cannot parse) it returns None and
the caller uses libcst.
"""

from __future__ import annotations

import ast
import bisect
import re

from infralens.hashing import sha256_text
from infralens.source.models import Definition, DefinitionKind, ModuleIndex, Statement, StatementKind
from infralens.source.normal_form import normalize_with_last_line

_NEWLINE = re.compile(r"\r\n|\r|\n")
_CLAUSE_KEYWORD = {"else": re.compile(r"(?m)^[ \t\f]*(else)\b"), "finally": re.compile(r"(?m)^[ \t\f]*(finally)\b")}
_PROPERTY_DECORATORS = {"property", "cached_property", "functools.cached_property", "abc.abstractproperty"}
_OVERLOAD_DECORATORS = ("overload", "typing.overload", "typing_extensions.overload")
_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _Unsupported(Exception):
    """Something this twin does not mirror exactly; the caller indexes with libcst."""


def fast_index_source(text: str) -> ModuleIndex | None:
    """Index ``text`` as :func:`~infralens.source.index.index_source` would, or None to ask libcst."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # libcst phrases the error the reference way
    try:
        walker = _Walker(text)
        walker.block(tree.body)
    except (_Unsupported, RecursionError):
        return None
    statements = tuple(sorted(walker.statements, key=lambda s: (s.start_line, -s.end_line)))
    return ModuleIndex(sha256_text(text), tuple(walker.definitions), statements)


class _Walker:
    """Walks statements (never expressions) in libcst's visiting order."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offsets = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self.definitions: list[Definition] = []
        self.statements: list[Statement] = []
        self.names: list[str] = []
        self.py_qualnames: list[str] = []
        self.scope_kinds: list[str] = []
        self.depth: list[int] = [0]

    # -- positions ------------------------------------------------------------

    def offset(self, line: int, byte_column: int) -> int:
        """Character offset of an ``ast`` position (its columns count UTF-8 bytes)."""
        start = self.offsets[line - 1]
        end = self.offsets[line] if line < len(self.offsets) else len(self.text)
        row = self.text[start:end]
        if row.isascii():
            return start + byte_column
        return start + len(row.encode("utf-8")[:byte_column].decode("utf-8", "ignore"))

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.offsets, offset)

    def start(self, node: ast.stmt) -> int:
        """Where libcst starts a statement: its first decorator's ``@`` when it has one."""
        decorators = getattr(node, "decorator_list", None)
        if decorators:
            return self.at_sign(decorators[0])
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.stmt | ast.expr | ast.excepthandler) -> int:
        assert node.end_lineno is not None and node.end_col_offset is not None
        return self.offset(node.end_lineno, node.end_col_offset)

    def at_sign(self, decorator: ast.expr) -> int:
        position = self.offset(decorator.lineno, decorator.col_offset)
        at = self.text.rfind("@", 0, position)
        if at < 0 or self.text[at + 1 : position].strip():
            raise _Unsupported("decorator without a plain @ before it")
        return at

    # -- statements -----------------------------------------------------------

    def add(self, begin: int, finish: int, kind: StatementKind, header_until: int | None = None) -> None:
        text, last_row = normalize_with_last_line(self.text[begin : header_until if header_until is not None else finish])
        first = self.line_of(begin)
        scope = self.py_qualnames[-1] if self.py_qualnames else ""
        self.statements.append(Statement(first, self.line_of(finish), first + last_row, text, kind, scope))

    def block(self, body: list[ast.stmt]) -> None:
        for node in body:
            self.statement(node)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Match):
            raise _Unsupported("match statement")
        if isinstance(node, _DEFINITIONS):
            self.definition(node)
        elif isinstance(node, _BLOCKS):
            self.compound(node)
        else:
            self.add(self.start(node), self.end(node), StatementKind.SIMPLE)

    def compound(self, node: ast.stmt) -> None:
        body: list[ast.stmt] = node.body  # type: ignore[attr-defined]
        self.add(self.start(node), self.end(node), StatementKind.COMPOUND, self.start(body[0]))
        self.depth[-1] += 1
        self.block(body)
        if isinstance(node, (ast.Try, ast.TryStar)):
            after = self.end(body[-1])
            for handler in node.handlers:
                self.add(self.offset(handler.lineno, handler.col_offset), self.end(handler), StatementKind.CLAUSE, self.start(handler.body[0]))
                self.block(handler.body)
                after = self.end(handler)
            after = self.clause("else", after, node.orelse)
            self.clause("finally", after, node.finalbody)
        elif isinstance(node, ast.If) and node.orelse and self._is_elif(node.orelse):
            self.statement(node.orelse[0])
        elif not isinstance(node, (ast.With, ast.AsyncWith)):
            self.clause("else", self.end(body[-1]), node.orelse)  # type: ignore[attr-defined]
        self.depth[-1] -= 1

    def _is_elif(self, orelse: list[ast.stmt]) -> bool:
        first = orelse[0]
        return len(orelse) == 1 and isinstance(first, ast.If) and self.text.startswith("elif", self.start(first))

    def clause(self, keyword: str, after: int, body: list[ast.stmt]) -> int:
        """Add an ``else:``/``finally:`` clause found between ``after`` and its body; returns where it ends."""
        if not body:
            return after
        first = self.start(body[0])
        found = [m.start(1) for m in _CLAUSE_KEYWORD[keyword].finditer(self.text, after, first)]
        if not found:
            raise _Unsupported(f"cannot find the {keyword} keyword")
        finish = self.end(body[-1])
        self.add(found[-1], finish, StatementKind.CLAUSE, first)
        self.block(body)
        return finish

    def definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.add(self.at_sign(decorator), self.end(decorator), StatementKind.DECORATOR)
        def_start = self.offset(node.lineno, node.col_offset)
        self.add(def_start, self.end(node), StatementKind.COMPOUND, self.start(node.body[0]))
        decorators = tuple(_decorator_name(d) for d in node.decorator_list)
        kind = DefinitionKind.CLASS if isinstance(node, ast.ClassDef) else DefinitionKind.FUNCTION
        if isinstance(node, ast.AsyncFunctionDef):
            kind = DefinitionKind.ASYNC_FUNCTION
        if kind is DefinitionKind.FUNCTION and any(d in _PROPERTY_DECORATORS for d in decorators):
            kind = DefinitionKind.PROPERTY
        accessor = next((d.rsplit(".", 1)[1] for d in decorators if d.endswith((".setter", ".deleter"))), None)
        start = self.start(node)
        self.definitions.append(
            Definition(
                qualname=".".join([*self.names, node.name]),
                kind=kind,
                start_line=self.line_of(start),
                def_line=node.lineno,
                end_line=self.line_of(self.end(node)),
                decorators=decorators,
                conditional=self.depth[-1] > 0,
                accessor=accessor,
                overload=any(d in _OVERLOAD_DECORATORS for d in decorators),
            )
        )
        parent = self.py_qualnames[-1] if self.py_qualnames else ""
        if not parent:
            py_qualname = node.name
        elif self.scope_kinds[-1] == "function":
            py_qualname = f"{parent}.<locals>.{node.name}"
        else:
            py_qualname = f"{parent}.{node.name}"
        self.names.append(node.name)
        self.py_qualnames.append(py_qualname)
        self.scope_kinds.append("class" if kind is DefinitionKind.CLASS else "function")
        self.depth.append(0)
        self.block(node.body)
        self.names.pop()
        self.py_qualnames.pop()
        self.scope_kinds.pop()
        self.depth.pop()


def _decorator_name(decorator: ast.expr) -> str:
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))
