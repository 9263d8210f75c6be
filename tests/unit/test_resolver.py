"""Targets and selectors resolved against a synthetic package (no real upstream code)."""

from __future__ import annotations

import pytest

from infralens.annotations.models import BlockSelector, ContainsSelector, ExactSelector
from infralens.errors import ResolutionError
from infralens.source.models import DefinitionKind, StatementKind

MOD = """
import functools
from typing import overload
from .other import Imported


def deco(f):
    return f


def plain(a, b):
    x = compute(
        a,   # the first
        b,
    )
    y = x + 1
    for i in range(3):
        y += i
    if y > 2:
        y = y * 2
    else:
        y = 0
    return y


class Outer:
    label = "outer"
    count = 0

    class Inner:
        def method(self):
            return 1

    def method(self, v):
        total = 0
        total = total + v
        total = total + v
        return total

    async def fetch(self):
        data = await self.get()
        return data

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, new):
        self._value = new

    @functools.lru_cache(maxsize=None)
    @deco
    def cached(self):
        return 42


def outer_fn():
    def helper(z):
        w = z * 2
        return w
    return helper(3)


@overload
def over(x: int) -> int: ...
@overload
def over(x: str) -> str: ...
def over(x):
    return x


if SOMETHING:
    def branch():
        return 1
else:
    def branch():
        return 2

try:
    def guarded():
        return "a"
except ImportError:
    def guarded():
        return "b"
"""

OTHER = """
class Imported:
    def run(self):
        return 1
"""


@pytest.fixture
def resolver(temporary_pypackage):
    return temporary_pypackage({"mod.py": MOD, "other.py": OTHER})


def line_of(text: str, nth: int = 1) -> int:
    """1-based line of the nth line of MOD (as written to disk) that contains ``text``."""
    lines = MOD.lstrip("\n").splitlines()
    hits = [n for n, line in enumerate(lines, 1) if text in line]
    return hits[nth - 1]


def select(resolver, target: str, selector, definition: int | None = None):
    resolved = resolver.resolve_target("fakedist", target, definition)
    index = resolver.index(resolved.source)
    return resolver.resolve_selector(index, resolved.definition, selector)


# -- targets -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "kind", "first", "last"),
    [
        ("plain", DefinitionKind.FUNCTION, "def plain", "    return y"),
        ("Outer.method", DefinitionKind.FUNCTION, "    def method(self, v)", "        return total"),
        ("Outer.Inner", DefinitionKind.CLASS, "    class Inner", "            return 1"),
        ("Outer.Inner.method", DefinitionKind.FUNCTION, "        def method(self)", "            return 1"),
        ("Outer.fetch", DefinitionKind.ASYNC_FUNCTION, "async def fetch", "return data"),
        ("Outer.value", DefinitionKind.PROPERTY, "@property", "return self._value"),
        ("Outer.cached", DefinitionKind.FUNCTION, "@functools.lru_cache", "return 42"),
        ("outer_fn.helper", DefinitionKind.FUNCTION, "def helper", "return w"),
        ("Outer", DefinitionKind.CLASS, "class Outer", "return 42"),
    ],
)
def test_every_target_kind_resolves_to_its_real_span(resolver, target, kind, first, last):
    resolved = resolver.resolve_target("fakedist", f"fakedist.mod.{target}")
    assert resolved.module == "fakedist.mod"
    assert resolved.source.relpath == "fakedist/mod.py"
    assert resolved.definition.kind is kind
    assert resolved.definition.start_line == line_of(first)
    assert resolved.definition.end_line == line_of(last)


def test_decorated_definition_starts_at_first_decorator(resolver):
    definition = resolver.resolve_target("fakedist", "fakedist.mod.Outer.cached").definition
    assert definition.start_line == line_of("@functools.lru_cache")
    assert definition.def_line == line_of("def cached")
    assert definition.decorators == ("functools.lru_cache", "deco")


def test_property_setter_is_not_ambiguous_with_its_getter(resolver):
    definition = resolver.resolve_target("fakedist", "fakedist.mod.Outer.value").definition
    assert definition.accessor is None
    assert definition.def_line == line_of("def value(self):")


def test_class_target_covers_class_body_statements(resolver):
    resolved = resolver.resolve_target("fakedist", "fakedist.mod.Outer")
    index = resolver.index(resolved.source)
    (statement,) = resolver.resolve_selector(index, resolved.definition, ExactSelector('label = "outer"'))
    assert statement.start_line == line_of('label = "outer"')
    assert statement.scope == "Outer"


def test_nested_function_statements_carry_python_qualname_scope(resolver):
    (statement,) = select(resolver, "fakedist.mod.outer_fn.helper", ExactSelector("w = z * 2"))
    assert statement.scope == "outer_fn.<locals>.helper"


@pytest.mark.parametrize(
    ("target", "count", "first_line"),
    [("over", 3, "def over(x: int)"), ("branch", 2, "    def branch():"), ("guarded", 2, "    def guarded():")],
)
def test_ambiguous_definitions_list_candidates(resolver, target, count, first_line):
    with pytest.raises(ResolutionError) as caught:
        resolver.resolve_target("fakedist", f"fakedist.mod.{target}")
    assert f"{target} is defined {count} times in fakedist/mod.py; pick one with 'definition: N'" in str(caught.value)
    assert len(caught.value.candidates) == count
    assert caught.value.candidates[0].startswith(f"1. function {target} at lines {line_of(first_line) - (1 if target == 'over' else 0)}")


def test_definition_n_picks_one_of_several(resolver):
    second = resolver.resolve_target("fakedist", "fakedist.mod.branch", definition=2).definition
    assert second.conditional
    assert second.start_line == line_of("    def branch():", 2)
    last = resolver.resolve_target("fakedist", "fakedist.mod.over", definition=3).definition
    assert not last.overload and last.def_line == line_of("def over(x):")


def test_definition_n_too_large(resolver):
    with pytest.raises(ResolutionError, match=r"'definition: 5' but guarded is defined 2 time\(s\) in fakedist/mod.py"):
        resolver.resolve_target("fakedist", "fakedist.mod.guarded", definition=5)


def test_missing_target_suggests_close_names(resolver):
    with pytest.raises(ResolutionError) as caught:
        resolver.resolve_target("fakedist", "fakedist.mod.Outer.methd")
    assert str(caught.value) == "Outer.methd is not defined in fakedist.mod"
    assert "Outer.method" in caught.value.candidates


def test_imported_target_hints_locate(resolver):
    with pytest.raises(ResolutionError) as caught:
        resolver.resolve_target("fakedist", "fakedist.mod.Imported.run")
    message = str(caught.value)
    assert f"it is imported there (line {line_of('from .other import Imported')})" in message
    assert "run 'infralens locate Imported.run' to find its defining module" in message


def test_missing_module(resolver):
    with pytest.raises(ResolutionError, match=r"no module of 'otherpkg.mod.f' exists in fakedist 1.0"):
        resolver.resolve_target("fakedist", "otherpkg.mod.f")
    with pytest.raises(ResolutionError, match=r"^nothere.f is not defined in fakedist$"):
        resolver.resolve_target("fakedist", "fakedist.nothere.f")


def test_locate_finds_every_definition_by_suffix(resolver):
    found = {item.dotted for item in resolver.locate("fakedist", "method")}
    assert found == {"fakedist.mod.Outer.method", "fakedist.mod.Outer.Inner.method"}
    assert [item.dotted for item in resolver.locate("fakedist", "Imported.run")] == ["fakedist.other.Imported.run"]


# -- selectors -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "x = compute(a, b)",
        "x=compute( a,b )",
        "x = compute(\n    a,\n    b,\n)",
        "x = compute(a,  # a comment in the selector\n b)",
    ],
)
def test_exact_text_ignores_layout_comments_and_line_breaks(resolver, text):
    (statement,) = select(resolver, "fakedist.mod.plain", ExactSelector(text))
    assert (statement.start_line, statement.end_line) == (line_of("x = compute("), line_of("x = compute(") + 3)
    assert statement.header_end_line == statement.end_line


def test_exact_text_does_not_match_a_prefix(resolver):
    with pytest.raises(ResolutionError):
        select(resolver, "fakedist.mod.plain", ExactSelector("x = compute(a)"))


def test_text_with_nth(resolver):
    (statement,) = select(resolver, "fakedist.mod.Outer.method", ExactSelector("total = total + v", nth=2))
    assert statement.start_line == line_of("total = total + v", 2)


def test_contains_with_nth(resolver):
    (first,) = select(resolver, "fakedist.mod.Outer.method", ContainsSelector("total + v", nth=1))
    assert first.start_line == line_of("total = total + v", 1)
    (only,) = select(resolver, "fakedist.mod.plain", ContainsSelector("x + 1"))
    assert only.start_line == line_of("y = x + 1")


def test_block_selects_every_statement_between(resolver):
    statements = select(resolver, "fakedist.mod.Outer.method", BlockSelector(ExactSelector("total = 0"), ContainsSelector("return")))
    assert [s.start_line for s in statements] == [line_of("total = 0"), line_of("total = total + v"), line_of("total = total + v", 2), line_of("return total")]


@pytest.mark.parametrize("text", ["for i in range(3):", "for i in range(3)", "for  i in range( 3 ) :"])
def test_compound_header_with_or_without_colon(resolver, text):
    (statement,) = select(resolver, "fakedist.mod.plain", ExactSelector(text))
    assert statement.kind is StatementKind.COMPOUND
    assert statement.start_line == statement.header_end_line == line_of("for i in range(3)")
    assert statement.end_line == line_of("y += i")


def test_else_clause_is_selectable(resolver):
    (statement,) = select(resolver, "fakedist.mod.plain", ExactSelector("else:"))
    assert statement.kind is StatementKind.CLAUSE and statement.start_line == line_of("    else:")


@pytest.mark.parametrize(("text", "line"), [("@functools.lru_cache(maxsize=None)", "@functools.lru_cache"), ("@deco", "    @deco")])
def test_decorators_are_selectable(resolver, text, line):
    (statement,) = select(resolver, "fakedist.mod.Outer.cached", ExactSelector(text))
    assert statement.kind is StatementKind.DECORATOR
    assert statement.start_line == line_of(line)


def test_selector_matching_nothing_lists_nearest_candidates(resolver):
    with pytest.raises(ResolutionError) as caught:
        select(resolver, "fakedist.mod.plain", ExactSelector("y = x + 2"))
    assert str(caught.value) == "'y = x + 2' matches no statement in the target"
    assert f"line {line_of('y = x + 1')}: y = x + 1" in caught.value.candidates


def test_selector_matching_several_lists_them_with_lines(resolver):
    with pytest.raises(ResolutionError) as caught:
        select(resolver, "fakedist.mod.Outer.method", ExactSelector("total = total + v"))
    assert "matches 2 statements; add 'nth: N' or use a longer text" in str(caught.value)
    assert caught.value.candidates == (
        f"line {line_of('total = total + v')}: total = total + v",
        f"line {line_of('total = total + v', 2)}: total = total + v",
    )


def test_nth_too_large(resolver):
    with pytest.raises(ResolutionError, match=r"contains 'total \+ v', nth=3 asks for match 3 but there are 2"):
        select(resolver, "fakedist.mod.Outer.method", ContainsSelector("total + v", nth=3))


def test_nth_counts_from_one(resolver):
    """``nth: 0`` is refused (it once picked the last match through Python's negative indexing)."""
    with pytest.raises(ResolutionError, match=r"nth=0\): nth counts matches from 1"):
        select(resolver, "fakedist.mod.Outer.method", ExactSelector("total = total + v", nth=0))


def test_block_that_ends_before_it_starts(resolver):
    with pytest.raises(ResolutionError, match=r"block ends \(line \d+\) before it starts \(line \d+\)"):
        select(resolver, "fakedist.mod.Outer.method", BlockSelector(ContainsSelector("return"), ExactSelector("total = 0")))


def test_selector_only_searches_inside_the_target(resolver):
    with pytest.raises(ResolutionError, match="matches no statement"):
        select(resolver, "fakedist.mod.Outer.fetch", ExactSelector("total = 0"))


def test_blank_selector_is_refused(resolver):
    with pytest.raises(ResolutionError, match="blank after normalisation"):
        select(resolver, "fakedist.mod.plain", ExactSelector("# just a comment"))
