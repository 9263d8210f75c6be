"""Build a :class:`~infralens.source.models.ModuleIndex` from Python source with libcst.

Line numbers come from libcst's ``PositionProvider``; nothing is imported or
executed. Each definition gets its real span (starting at its first
decorator), and each statement gets its real lines, the lines of its own text
(the header, for compound statements) and its normalised text.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from infralens.hashing import sha256_text
from infralens.source.models import Definition, DefinitionKind, ModuleIndex, Statement, StatementKind
from infralens.source.normal_form import normalize_with_last_line

_NEWLINE = re.compile(r"\r\n|\r|\n")
_CONDITIONAL_PARENTS = (cst.If, cst.Else, cst.Try, cst.TryStar, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally, cst.With, cst.For, cst.While)
_CLAUSES = (cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally)
_PROPERTY_DECORATORS = {"property", "cached_property", "functools.cached_property", "abc.abstractproperty"}


def index_source(text: str) -> ModuleIndex:
    """Index one module's source text. Syntax errors give an index with ``syntax_error`` set."""
    digest = sha256_text(text)
    try:
        module = _parse(text)
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        visitor = _IndexVisitor(text)
        wrapper.visit(visitor)
    except cst.ParserSyntaxError as error:
        return ModuleIndex(digest, (), (), syntax_error=_syntax_error_message(text, error))
    except RecursionError:
        return ModuleIndex(digest, (), (), syntax_error="cannot parse: brackets or blocks are nested too deeply for libcst (RecursionError)")
    except (MemoryError, ValueError) as error:
        return ModuleIndex(digest, (), (), syntax_error=f"cannot parse: {type(error).__name__}: {error}")
    statements = tuple(sorted(visitor.statements, key=lambda s: (s.start_line, -s.end_line)))
    return ModuleIndex(digest, tuple(visitor.definitions), statements)


_TRAILING_CONTINUATION = re.compile(r"\\(\r\n|\r|\n)\Z")


def _parse(text: str) -> cst.Module:
    """``libcst.parse_module``, also for a file that ends in a line continuation.

    CPython accepts a final ``\\`` + CRLF that libcst's tokenizer refuses; one more line end after it
    (which moves no line) makes libcst agree.
    """
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError:
        ending = _TRAILING_CONTINUATION.search(text)
        if ending is None:
            raise
        return cst.parse_module(text + ending.group(1))


def _syntax_error_message(text: str, error: cst.ParserSyntaxError) -> str:
    """Where and why the file does not parse; CPython's own message is the clearest when it has one."""
    import ast

    try:
        ast.parse(text)
    except SyntaxError as python_error:
        return f"line {python_error.lineno or 1}, column {python_error.offset or 1}: {python_error.msg}"
    except (ValueError, RecursionError, MemoryError) as python_error:
        return f"cannot parse: {python_error}"
    first = str(error.message).splitlines()[0] if str(error.message) else "syntax error"
    return f"line {error.raw_line}, column {error.raw_column + 1}: {first}"


def _decorator_name(decorator: cst.Decorator) -> str:
    node = decorator.decorator
    if isinstance(node, cst.Call):
        node = node.func
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
    return ".".join(reversed(parts))


_STRUCTURE = (
    cst.Module,
    cst.IndentedBlock,
    cst.If,
    cst.For,
    cst.While,
    cst.With,
    cst.Try,
    cst.TryStar,
    cst.Match,
    cst.MatchCase,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.FunctionDef,
    cst.ClassDef,
)
"""Nodes that can hold statements; the walk never descends into expressions."""


class _IndexVisitor(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def on_visit(self, node: cst.CSTNode) -> bool:
        """Visit statements and the blocks holding them; skip expressions (half the parse cost)."""
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            super().on_visit(node)
            return False
        if not isinstance(node, _STRUCTURE):
            return False
        return super().on_visit(node)

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        self.line_offsets = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self.definitions: list[Definition] = []
        self.statements: list[Statement] = []
        self.names: list[str] = []  # dotted-name path of enclosing defs/classes
        self.py_qualnames: list[str] = []  # Python __qualname__ of enclosing scopes
        self.scope_kinds: list[str] = []  # "class" or "function" for each enclosing scope
        self.block_depth: list[int] = [0]  # conditional nesting inside the current scope

    # -- helpers --------------------------------------------------------------

    def _offset(self, line: int, column: int) -> int:
        return self.line_offsets[line - 1] + column

    def _slice(self, start: cst.metadata.CodePosition, end: cst.metadata.CodePosition) -> str:
        return self.text[self._offset(start.line, start.column) : self._offset(end.line, end.column)]

    def _position(self, node: cst.CSTNode) -> cst.metadata.CodeRange:
        return self.get_metadata(PositionProvider, node)

    def _scope(self) -> str:
        return self.py_qualnames[-1] if self.py_qualnames else ""

    def _add(self, node: cst.CSTNode, kind: StatementKind, header_until: cst.CSTNode | None = None) -> None:
        where = self._position(node)
        end = self._start_of(header_until) if header_until is not None else where.end
        text, last_row = normalize_with_last_line(self._slice(where.start, end))
        self.statements.append(
            Statement(
                start_line=where.start.line,
                end_line=where.end.line,
                header_end_line=where.start.line + last_row,
                text=text,
                kind=kind,
                scope=self._scope(),
            )
        )

    def _start_of(self, node: cst.CSTNode) -> cst.metadata.CodePosition:
        decorators = getattr(node, "decorators", None)
        return self._position(decorators[0] if decorators else node).start

    @staticmethod
    def _first_body_node(node: cst.CSTNode) -> cst.CSTNode | None:
        body = getattr(node, "body", None)
        if isinstance(body, cst.IndentedBlock) and body.body:
            return body.body[0]
        if isinstance(body, cst.SimpleStatementSuite) and body.body:
            return body.body[0]
        return None

    # -- statements -----------------------------------------------------------

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        for small in node.body:
            self._add(small, StatementKind.SIMPLE)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        for small in node.body:
            self._add(small, StatementKind.SIMPLE)

    def _enter_block(self, node: cst.CSTNode, kind: StatementKind) -> None:
        self._add(node, kind, header_until=self._first_body_node(node))
        self.block_depth[-1] += 1

    def _leave_block(self) -> None:
        self.block_depth[-1] -= 1

    def visit_If(self, node: cst.If) -> None:
        self._enter_block(node, StatementKind.COMPOUND)

    def leave_If(self, original_node: cst.If) -> None:
        self._leave_block()

    def visit_For(self, node: cst.For) -> None:
        self._enter_block(node, StatementKind.COMPOUND)

    def leave_For(self, original_node: cst.For) -> None:
        self._leave_block()

    def visit_While(self, node: cst.While) -> None:
        self._enter_block(node, StatementKind.COMPOUND)

    def leave_While(self, original_node: cst.While) -> None:
        self._leave_block()

    def visit_With(self, node: cst.With) -> None:
        self._enter_block(node, StatementKind.COMPOUND)

    def leave_With(self, original_node: cst.With) -> None:
        self._leave_block()

    def visit_Try(self, node: cst.Try) -> None:
        self._enter_block(node, StatementKind.COMPOUND)

    def leave_Try(self, original_node: cst.Try) -> None:
        self._leave_block()

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._enter_block(node, StatementKind.COMPOUND)

    def leave_TryStar(self, original_node: cst.TryStar) -> None:
        self._leave_block()

    def visit_Match(self, node: cst.Match) -> None:
        where = self._position(node)
        first = node.cases[0] if node.cases else None
        end = self._start_of(first) if first is not None else where.end
        text, last_row = normalize_with_last_line(self._slice(where.start, end))
        self.statements.append(Statement(where.start.line, where.end.line, where.start.line + last_row, text, StatementKind.COMPOUND, self._scope()))

    def visit_MatchCase(self, node: cst.MatchCase) -> None:
        self._add(node, StatementKind.CLAUSE, header_until=self._first_body_node(node))

    def visit_Else(self, node: cst.Else) -> None:
        self._add(node, StatementKind.CLAUSE, header_until=self._first_body_node(node))

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._add(node, StatementKind.CLAUSE, header_until=self._first_body_node(node))

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._add(node, StatementKind.CLAUSE, header_until=self._first_body_node(node))

    def visit_Finally(self, node: cst.Finally) -> None:
        self._add(node, StatementKind.CLAUSE, header_until=self._first_body_node(node))

    # -- definitions ----------------------------------------------------------

    def _enter_definition(self, node: cst.FunctionDef | cst.ClassDef, kind: DefinitionKind) -> None:
        for decorator in node.decorators:
            self._add(decorator, StatementKind.DECORATOR)
        self._add(node, StatementKind.COMPOUND, header_until=self._first_body_node(node))
        where = self._position(node)
        start_line = self._position(node.decorators[0]).start.line if node.decorators else where.start.line
        decorators = tuple(_decorator_name(d) for d in node.decorators)
        accessor = next((d.rsplit(".", 1)[1] for d in decorators if d.endswith((".setter", ".deleter"))), None)
        if kind is DefinitionKind.FUNCTION and any(d in _PROPERTY_DECORATORS for d in decorators):
            kind = DefinitionKind.PROPERTY
        name = node.name.value
        qualname = ".".join(self.names + [name])
        self.definitions.append(
            Definition(
                qualname=qualname,
                kind=kind,
                start_line=start_line,
                def_line=where.start.line,
                end_line=where.end.line,
                decorators=decorators,
                conditional=self.block_depth[-1] > 0,
                accessor=accessor,
                overload=any(d in ("overload", "typing.overload", "typing_extensions.overload") for d in decorators),
            )
        )
        parent = self._scope()
        if not parent:
            py_qualname = name
        elif self.scope_kinds[-1] == "function":
            py_qualname = f"{parent}.<locals>.{name}"
        else:
            py_qualname = f"{parent}.{name}"
        self.names.append(name)
        self.py_qualnames.append(py_qualname)
        self.scope_kinds.append("class" if isinstance(node, cst.ClassDef) else "function")
        self.block_depth.append(0)

    def _leave_definition(self) -> None:
        self.names.pop()
        self.py_qualnames.pop()
        self.scope_kinds.pop()
        self.block_depth.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._enter_definition(node, DefinitionKind.ASYNC_FUNCTION if node.asynchronous else DefinitionKind.FUNCTION)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._leave_definition()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._enter_definition(node, DefinitionKind.CLASS)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._leave_definition()
