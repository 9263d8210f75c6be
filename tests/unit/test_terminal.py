"""The terminal view: real line numbers even with form feeds and U+2028 in the file."""

from __future__ import annotations

from infralens.render.terminal import render
from infralens.render.view import function_view
from infralens.source.models import split_lines

MOD = 'x = "a\u2028b"\n\x0c\n\ndef f(a):\n    y = a\n    return y\n'


def test_split_lines_counts_like_python():
    assert split_lines("a\r\nb\x0cc\u2028d\re\n") == ["a", "b\x0cc\u2028d", "e"]
    assert split_lines("") == [] and split_lines("x") == ["x"]


def test_show_numbers_lines_like_the_indexer(temporary_pypackage):
    resolver = temporary_pypackage({"mod.py": MOD})
    target = resolver.resolve_target("fakedist", "fakedist.mod.f")
    assert (target.definition.start_line, target.definition.end_line) == (4, 6)
    for color in (False, True):
        out = render(function_view(target.source, target.definition, []), color=color)
        lines = out.splitlines()
        assert lines[1].startswith("4 │ ") and "def" in lines[1] and "f" in lines[1]
        assert lines[3].startswith("6 │ ") and "return" in lines[3]
