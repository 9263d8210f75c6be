"""Canonical text for statements and selectors.

Two pieces of code normalise to the same string when they differ only in
whitespace, line breaks inside brackets, or comments. The canonical form is
the Python tokens joined by single spaces; a trailing comma before a closing
bracket is dropped (formatters add and remove it with the line length). Partial snippets (a ``contains``
needle with an unclosed bracket) still normalise: tokenizing stops cleanly.
"""

from __future__ import annotations

import io
import re
import tokenize

_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
_FALLBACK_SPLIT = re.compile(r"\s+|(#[^\n]*)")
_CLOSING = {")", "]", "}"}


def _append(tokens: list[str], text: str) -> None:
    """Add a token, dropping a trailing comma before a closing bracket (black's "magic comma" is layout)."""
    if text in _CLOSING and tokens and tokens[-1] == ",":
        tokens.pop()
    tokens.append(text)


def normalize(code: str) -> str:
    """Return the canonical token string of ``code`` (comments and layout dropped)."""
    tokens: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code.strip("\n") + "\n").readline):
            if token.type in _SKIPPED:
                continue
            if token.type == tokenize.ERRORTOKEN and token.string.isspace():
                continue
            _append(tokens, token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # An unclosed bracket or string at the end of a partial snippet: keep what we have,
        # and fall back to whitespace splitting for any unread remainder.
        if not tokens:
            return _fallback(code)
    return " ".join(tokens)


def _fallback(code: str) -> str:
    words = [w for w in _FALLBACK_SPLIT.split(code) if w and not w.startswith("#") and not w.isspace()]
    return " ".join(words)


def strip_header_colon(text: str) -> str:
    """Drop a trailing ``:`` so ``for x in y:`` and ``for x in y`` compare equal."""
    return text[:-2] if text.endswith(" :") else (text[:-1] if text.endswith(":") else text)


def contains(haystack: str, needle: str) -> bool:
    """Substring test on canonical forms (both already normalised)."""
    return needle in haystack


def normalize_with_last_line(code: str) -> tuple[str, int]:
    """Like :func:`normalize`, and also the 0-based row (within ``code``) of the last real token."""
    tokens: list[str] = []
    last_row = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(code + "\n").readline):
            if token.type in _SKIPPED:
                continue
            if token.type == tokenize.ERRORTOKEN and token.string.isspace():
                continue
            _append(tokens, token.string)
            last_row = token.end[0] - 1
    except (tokenize.TokenError, IndentationError, SyntaxError):
        if not tokens:
            return _fallback(code), code.rstrip().count("\n")
    return " ".join(tokens), last_row
