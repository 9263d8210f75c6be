"""The tokens of a piece of valid Python, read with one regular expression instead of :mod:`tokenize`.

Indexing another release (``check --against``, ``history``) normalises tens of thousands of
statements, and :mod:`tokenize`'s per-token generator was most of that time. This scanner yields
the same token strings for ordinary code, about three times faster; whenever it is not sure
(an unknown character, an unterminated string, an f-string on a Python whose tokenizer splits
f-strings) it answers None and the caller tokenizes the reference way.
``benchmarks/bench_normal_form.py`` compares both on every statement of real wheels.
"""

from __future__ import annotations

import re
import sys
import token
import tokenize


def _without_captures(pattern: str) -> str:
    """``pattern`` with its capturing groups made non-capturing (tokenize's patterns capture; findall must not)."""
    return re.sub(r"(?<!\\)\((?!\?)", "(?:", pattern)


_PREFIX = _without_captures(tokenize.StringPrefix)  # every valid string prefix, in any case
_STRING = (
    rf"{_PREFIX}(?:'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    rf'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'[^\n'\\]*(?:\\.[^\n'\\]*)*'"
    r'|"[^\n"\\]*(?:\\.[^\n"\\]*)*")'
)
_LAYOUT = r"(?>[ \t\f]++|\\\r?\n|#[^\r\n]*+|\r?\n|\r)*+"  # atomic: layout is never re-split on a failed match
# The operators tokenize knows on Python 3.11, longest first, as one cheap pattern; another Python uses tokenize's own.
KNOWN_OPERATORS = frozenset(
    [
        "!=",
        "%",
        "%=",
        "&",
        "&=",
        "(",
        ")",
        "*",
        "**",
        "**=",
        "*=",
        "+",
        "+=",
        ",",
        "-",
        "-=",
        "->",
        ".",
        "...",
        "/",
        "//",
        "//=",
        "/=",
        ":",
        ":=",
        ";",
        "<",
        "<<",
        "<<=",
        "<=",
        "=",
        "==",
        ">",
        ">=",
        ">>",
        ">>=",
        "@",
        "@=",
        "[",
        "]",
        "^",
        "^=",
        "{",
        "|",
        "|=",
        "}",
        "~",
    ]
)
FAST_OPERATOR = r"\*\*=?|//=?|>>=?|<<=?|->|\.\.\.|!=|[-+*/%@&|^<>=:]=?|[~()\[\]{};,.]"
_OPERATOR = FAST_OPERATOR if frozenset(token.EXACT_TOKEN_TYPES) == KNOWN_OPERATORS else _without_captures(tokenize.Special)
# One token: a plain name first (most tokens; one followed by a quote is a string prefix), then strings, numbers
# before operators (``.5``), and names again for what the fast form left (a prefix-like name before a quote). The
# lookaheads let the regex engine skip an alternative on its first character.
_ANY_TOKEN = (
    rf"(?:[^\W\d]\w*+(?!['\"])|(?=[rRbBuUfF]{{0,2}}['\"]){_STRING}|(?=\.?[0-9]){_without_captures(tokenize.Number)}"
    rf"|{_OPERATOR}|\w+)"
)
_TOKENS = re.compile(rf"{_LAYOUT}({_ANY_TOKEN})", re.DOTALL)  # findall: the token texts, in C
_READABLE_PREFIX = re.compile(rf"(?:{_LAYOUT}{_ANY_TOKEN})*+", re.DOTALL)  # where the tokens end
_ONLY_LAYOUT = re.compile(_LAYOUT, re.DOTALL)
_FSTRING_START = re.compile(r"(?<!\w)[rRbB]?[fF][rRbB]?['\"]")
_SPLITS_FSTRINGS = sys.version_info >= (3, 12)  # PEP 701: the tokenizer yields an f-string's parts


def scan(code: str) -> tuple[list[str], int] | None:
    """The token texts of ``code`` and the offset where the last one ends, or None to use :mod:`tokenize`."""
    end = _READABLE_PREFIX.match(code).end()  # type: ignore[union-attr]  # (?:...)*+ always matches
    if end != len(code) and _ONLY_LAYOUT.match(code, end).end() != len(code):  # type: ignore[union-attr]
        return None  # a character no rule reads, or an unterminated string: not ordinary code
    if _SPLITS_FSTRINGS and _FSTRING_START.search(code):
        return None
    return _TOKENS.findall(code, 0, end), end
