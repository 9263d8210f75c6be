"""The libcst indexer: real line spans, statement kinds and Python scopes."""

from __future__ import annotations

import textwrap

from infralens.source.index import index_source
from infralens.source.models import StatementKind


def index(text: str):
    return index_source(textwrap.dedent(text).lstrip("\n"))


def test_statement_lines_and_header_end():
    idx = index(
        """
        def f(a):
            with open(
                a
            ) as h:
                data = h.read(); size = len(data)
            return size
        """
    )
    by_text = {s.text: s for s in idx.statements}
    with_ = by_text["with open ( a ) as h :"]
    assert (with_.start_line, with_.header_end_line, with_.end_line) == (2, 4, 5)
    assert by_text["data = h . read ( )"].start_line == by_text["size = len ( data )"].start_line == 5
    assert {s.scope for s in idx.statements if s.start_line > 1} == {"f"}


def test_scopes_follow_python_qualnames():
    idx = index(
        """
        class A:
            x = 1
            class B:
                def m(self):
                    def inner():
                        y = 2
        """
    )
    scopes = {s.text: s.scope for s in idx.statements}
    assert scopes["x = 1"] == "A"
    assert scopes["y = 2"] == "A.B.m.<locals>.inner"
    assert [d.qualname for d in idx.definitions] == ["A", "A.B", "A.B.m", "A.B.m.inner"]


def test_match_try_and_clauses():
    idx = index(
        """
        def f(v):
            match v:
                case 1:
                    r = "one"
                case _:
                    r = "other"
            try:
                pass
            except* ValueError:
                pass
            finally:
                done = True
        """
    )
    kinds = {s.text: s.kind for s in idx.statements}
    assert kinds["match v :"] is StatementKind.COMPOUND
    assert kinds["case 1 :"] is StatementKind.CLAUSE
    assert kinds["except * ValueError :"] is StatementKind.CLAUSE
    assert kinds["finally :"] is StatementKind.CLAUSE


def test_syntax_error_is_data_not_an_exception():
    idx = index_source("def f(:\n    pass\n")
    assert idx.syntax_error == "line 1, column 7: invalid syntax"
    assert idx.definitions == () and idx.statements == ()


def test_crlf_and_cr_line_endings_keep_real_lines():
    idx = index_source("x = 1\r\ny = (\r\n  2)\r\nz = 3\r\n")
    assert [(s.text, s.start_line, s.end_line) for s in idx.statements] == [("x = 1", 1, 1), ("y = ( 2 )", 2, 3), ("z = 3", 4, 4)]


def test_nesting_too_deep_for_libcst_is_reported_not_raised():
    idx = index_source("x = " + "[" * 150 + "]" * 150 + "\n")
    assert idx.syntax_error == "cannot parse: brackets or blocks are nested too deeply for libcst (RecursionError)"
    assert idx.statements == ()


def test_a_file_ending_in_a_line_continuation_parses_as_cpython_does():
    """CPython accepts a final backslash + CRLF; libcst alone refused it (found by tools/fuzz.py)."""
    import ast

    text = "def f():\n    y = 2\\\r\n"
    ast.parse(text)
    index = index_source(text)
    assert index.syntax_error is None
    assert [(s.text, s.start_line) for s in index.statements] == [("def f ( ) :", 1), ("y = 2", 2)]
