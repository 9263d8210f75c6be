"""One statement cut out of a file so that libcst can parse it alone, and rendered back to the same number of lines.

:func:`parse_statement` wraps an indented statement in ``if True:`` (and gives a compound header a ``pass`` body);
:func:`render_statement` puts a mutated statement back as lines of the original count, padded with blank lines;
:func:`return_lines` is the deleted statement (``return None``) in the same shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

_COMPOUND = re.compile(r"\s*(async\s+)?(if|elif|while|for|with)\b")


@dataclass(frozen=True)
class ParsedStatement:
    """The statement inside a wrapper that parses on its own."""

    wrapper: cst.Module
    statement: cst.CSTNode
    header: tuple[cst.CSTNode, ...]
    """The parts to mutate: the whole simple statement, or a compound statement's test/iterable/items."""
    wrapped: bool
    """Inside ``if True:`` (an indented statement)."""
    compound: bool
    """A header followed by the ``pass`` body added to parse it."""
    elif_: bool


def parse_statement(original: tuple[str, ...]) -> ParsedStatement | None:
    first = original[0]
    indent = first[: len(first) - len(first.lstrip())]
    compound = _COMPOUND.match(first) is not None
    elif_ = first.lstrip().startswith("elif")
    lines = list(original)
    if elif_:
        lines[0] = first.replace("elif", "if", 1)
    wrapper = None
    if compound:  # a header with its body on the same line (``if done: return x``) parses as it is
        wrapper = _parse_text("".join(lines), indent)
        inline = wrapper is not None and isinstance(_first_statement(wrapper, indent), (cst.If, cst.While, cst.For, cst.With))
        compound = not inline
        if not inline:
            wrapper = None
    if wrapper is None:
        wrapper = _parse_text("".join(lines) + (f"{indent}    pass\n" if compound else ""), indent)
    if wrapper is None:
        return None
    statement = _first_statement(wrapper, indent)
    if statement is None:
        return None
    if isinstance(statement, (cst.If, cst.While)):
        header: tuple[cst.CSTNode, ...] = (statement.test,)
    elif isinstance(statement, cst.For):
        header = (statement.iter,)
    elif isinstance(statement, cst.With):
        header = tuple(item.item for item in statement.items)
    elif isinstance(statement, cst.BaseCompoundStatement):
        return None
    else:
        header = (statement,)
    if isinstance(statement, cst.BaseCompoundStatement) and isinstance(statement.body, cst.SimpleStatementSuite):
        header += tuple(statement.body.body)  # the body on the header's line is part of the statement's line
    return ParsedStatement(wrapper, statement, header, bool(indent), compound, elif_)


def _parse_text(body: str, indent: str) -> cst.Module | None:
    try:
        return cst.parse_module(f"if True:\n{body}" if indent else body)
    except cst.ParserSyntaxError:
        return None


def _first_statement(wrapper: cst.Module, indent: str) -> cst.CSTNode | None:
    """The statement inside the wrapper (inside ``if True:`` when it was indented)."""
    block = wrapper.body[0]
    if not indent:
        return block
    if not isinstance(block, cst.If) or not isinstance(block.body, cst.IndentedBlock) or not block.body.body:
        return None
    return block.body.body[0]


def render_statement(parsed: ParsedStatement, old: cst.CSTNode, new: cst.CSTNode, count: int) -> tuple[str, ...] | None:
    """The statement's lines with *old* replaced by *new*, padded to *count* lines; None when it grew."""
    replaced = parsed.wrapper.deep_replace(old, new)
    if not isinstance(replaced, cst.Module):
        return None
    lines = replaced.code.splitlines(keepends=True)
    if parsed.wrapped:
        lines = lines[1:]
    if parsed.compound:
        lines = lines[:-1]
    if parsed.elif_:
        lines[0] = lines[0].replace("if", "elif", 1)
    if not lines or len(lines) > count:
        return None
    return tuple(lines) + ("\n",) * (count - len(lines))


def return_lines(original: tuple[str, ...]) -> tuple[str, ...]:
    first = original[0]
    indent = first[: len(first) - len(first.lstrip())]
    return (f"{indent}return None\n",) + ("\n",) * (len(original) - 1)
