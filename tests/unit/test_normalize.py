"""The canonical statement text that selectors are compared on."""

from __future__ import annotations

import pytest

from infralens.source.normal_form import normalize, strip_header_colon


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("x = f(a, b)", "x=f( a,b )"),
        ("x = f(a, b)", "x = f(\n    a,\n    b,\n)"),
        ("x = f(a, b)", "x = f(a,  # why\n      b)"),
        ("x = [1, 2]", "x = [\n 1,\n 2,\n]"),
        ("for i in y:", "for  i  in  y :  # loop"),
    ],
)
def test_layout_comments_and_magic_commas_do_not_matter(left, right):
    assert normalize(left) == normalize(right)


@pytest.mark.parametrize(("left", "right"), [("x = a + b", "x = a - b"), ("x = 'a b'", "x = 'a  b'"), ("f(a)", "f(b)")])
def test_tokens_and_string_contents_do_matter(left, right):
    assert normalize(left) != normalize(right)


def test_partial_snippets_still_normalise():
    assert normalize("noise_pred = self.unet(") == "noise_pred = self . unet ("
    assert normalize("x = 'unterminated") == "x = ' unterminated"


def test_strip_header_colon():
    assert strip_header_colon("for i in y :") == "for i in y"
    assert strip_header_colon("x = 1") == "x = 1"


def test_blank_and_comment_only():
    assert normalize("") == ""
    assert normalize("# only\n") == ""
