"""The regex token scanner gives what tokenize gives, or hands the code back; it never backtracks for long."""

from __future__ import annotations

import itertools
import re
import time
import token
import tokenize

import pytest

from infralens.source import token_scan
from infralens.source.normal_form import normalize_with_last_line, tokenized_with_last_line

SNIPPETS = [
    "x = f(a, b,)",
    "y = [1,\n  2,\n]  # trailing",
    "t = (1,)",
    "d[x,]",
    "s = 'it\\'s' + \"q\\\"uote\"",
    's = """one\n"two" \'\'three\'\'\n"""',
    "s = r'\\d+' + rb\"\\x00\" + Rb'x' + u'y' + BR'z'",
    "n = 1_000 + 0x1F + 0o17 + 0b1 + 1e-5 + 1.5j + 1. + .5 + 10E+3J",
    "value = a \\\n    + b",
    "if (a := f()) -> None:",
    "def f(self, *args, **kwargs) -> dict[str, int]:",
    "@torch.no_grad()\n    def step(self,\n             x):",
    "x **= 2; y //= 3; z >>= 1; w <<= 1; v @= m; u != t",
    "rest = xs[...]",
    "größe = naïve_wert + 1",
    "print(f'{x!r:>10}')",
    "call(a)  # note\n",
    "lambda: (yield)",
    "",
    "   ",
]


@pytest.mark.parametrize("code", SNIPPETS)
def test_scanner_and_tokenize_agree(code):
    assert normalize_with_last_line(code) == tokenized_with_last_line(code)


@pytest.mark.parametrize("code", ["a $ b", "s = 'unterminated", 's = """open', "x = 1 ? 2"])
def test_code_the_scanner_cannot_read_goes_to_tokenize(code):
    assert token_scan.scan(code) is None
    assert normalize_with_last_line(code) == tokenized_with_last_line(code)


def test_the_fast_operator_pattern_splits_every_operator_pair_as_tokenize_does():
    if frozenset(token.EXACT_TOKEN_TYPES) != token_scan.KNOWN_OPERATORS:
        assert token_scan.FAST_OPERATOR not in token_scan._ANY_TOKEN  # another Python: tokenize's own pattern is used
        return
    fast, reference = re.compile(token_scan.FAST_OPERATOR), re.compile(tokenize.Special)
    for first, second in itertools.product(sorted(token.EXACT_TOKEN_TYPES) + [""], repeat=2):
        text = first + second
        if text:
            assert fast.match(text).group() == reference.match(text).group(), text


@pytest.mark.parametrize("code", [" " * 20000 + "$", "#" * 5000 + "\n$", "x" + " \\\n" * 3000 + "$", "'" + "\\'" * 5000])
def test_long_unreadable_input_is_refused_in_linear_time(code):
    started = time.perf_counter()
    assert token_scan.scan(code) is None
    assert time.perf_counter() - started < 1.0
