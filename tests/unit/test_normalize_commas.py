"""A trailing comma is layout only where it cannot change meaning."""

import pytest

from infralens.source.normal_form import normalize


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("f(a, b,)", "f(a, b)"),
        ("f(\n    a,\n    b,\n)", "f(a, b)"),
        ("x = [1, 2,]", "x = [1, 2]"),
        ("x = {1: 2,}", "x = {1: 2}"),
        ("return (a, b,)", "return (a, b)"),
        ("d[x, y,]", "d[x, y]"),
    ],
)
def test_layout_commas_are_ignored(a: str, b: str) -> None:
    assert normalize(a) == normalize(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("x = (sample,)", "x = (sample)"),  # one-element tuple vs a parenthesised name
        ("return (prev_sample,)", "return (prev_sample)"),
        ("d[x,]", "d[x]"),  # indexing with a 1-tuple vs with x
        ("if t in (a,):", "if t in (a):"),
    ],
)
def test_meaningful_commas_are_kept(a: str, b: str) -> None:
    assert normalize(a) != normalize(b)
