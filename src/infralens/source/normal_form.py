"""Canonical text for statements and selectors.

Two pieces of code normalise to the same string when they differ only in
whitespace, line breaks inside brackets, or comments. The canonical form is
the Python tokens joined by single spaces; a trailing comma before a closing
bracket is dropped (formatters add and remove it with the line length). Partial snippets (a ``contains``
needle with an unclosed bracket) still normalise: tokenizing stops cleanly.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize

from infralens.source.token_scan import scan

_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
_FALLBACK_SPLIT = re.compile(r"\s+|(#[^\n]*)")
_CLOSING = {")", "]", "}"}
_OPENING = {"(", "[", "{"}


class _Joiner:
    """Collects tokens; drops a layout-only trailing comma before a closing bracket.

    Formatters add and remove a "magic" trailing comma with the line length, so
    ``f(a, b,)`` equals ``f(a, b)`` and ``[1,]`` equals ``[1]``. A comma that changes
    meaning is kept: ``(x,)`` is a one-element tuple and ``d[x,]`` indexes with one.
    """

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self._open: list[list] = []  # [bracket, follows_an_operand, commas seen]

    def add(self, text: str) -> None:
        tokens = self.tokens
        if text in _OPENING:
            previous = tokens[-1] if tokens else ""
            follows_operand = previous in _CLOSING or (previous.isidentifier() and not keyword.iskeyword(previous))
            self._open.append([text, follows_operand, 0])
        elif text == "," and self._open:
            self._open[-1][2] += 1
        elif text in _CLOSING and self._open:
            bracket, follows_operand, commas = self._open.pop()
            if tokens and tokens[-1] == "," and self._layout_comma(bracket, follows_operand, commas):
                tokens.pop()
        tokens.append(text)

    @staticmethod
    def _layout_comma(bracket: str, follows_operand: bool, commas: int) -> bool:
        if bracket == "{" or (bracket == "[" and not follows_operand) or (bracket == "(" and follows_operand):
            return True  # displays and calls: the trailing comma never changes meaning
        return commas >= 2  # tuples and subscripts: only when another comma makes it a tuple anyway


def normalize(code: str) -> str:
    """Return the canonical token string of ``code`` (comments and layout dropped)."""
    joiner = _Joiner()
    tokens = joiner.tokens
    try:
        for token in tokenize.generate_tokens(io.StringIO(code.strip("\n") + "\n").readline):
            if token.type in _SKIPPED:
                continue
            if token.type == tokenize.ERRORTOKEN and token.string.isspace():
                continue
            joiner.add(token.string)
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
    """Like :func:`normalize`, and also the 0-based row (within ``code``) of the last real token.

    Ordinary code is read by the regex scanner (:mod:`.token_scan`); anything it is unsure of, by :mod:`tokenize`.
    """
    scanned = scan(code)
    if scanned is None:
        return tokenized_with_last_line(code)
    tokens, end = scanned
    text = " ".join(tokens)
    if ", )" in text or ", ]" in text or ", }" in text:  # a trailing comma may be layout: let the joiner decide
        joiner = _Joiner()
        for token in tokens:
            joiner.add(token)
        text = " ".join(joiner.tokens)
    return text, code.count("\n", 0, end)


def tokenized_with_last_line(code: str) -> tuple[str, int]:
    """:func:`normalize_with_last_line` by :mod:`tokenize` alone: the reference the scanner is compared with."""
    joiner = _Joiner()
    tokens = joiner.tokens
    last_row = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(code + "\n").readline):
            if token.type in _SKIPPED:
                continue
            if token.type == tokenize.ERRORTOKEN and token.string.isspace():
                continue
            joiner.add(token.string)
            last_row = token.end[0] - 1
    except (tokenize.TokenError, IndentationError, SyntaxError):
        if not tokens:
            return _fallback(code), code.rstrip().count("\n")
    return " ".join(tokens), last_row


_OPEN = {"(", "[", "{"}
_TIGHT_BEFORE = {")", "]", "}", ",", ":", ".", ";"}
_UNARY = {"-", "+", "~", "*", "**"}


def display(text: str) -> str:
    """Readable Python from canonical text, for messages and diffs only: ``f ( a , b = 1 )`` → ``f(a, b=1)``.

    Spacing follows common formatter habits (no space inside brackets or around a keyword
    argument's ``=``, none after a unary operator); anything that does not tokenize is
    returned unchanged. Matching always uses the canonical form, never this one.
    """
    pieces = _laid_out(text)
    return text if pieces is None else "".join(pieces)


def display_lines(text: str) -> list[str]:
    """:func:`display`, broken after every comma: one argument per line, for diffs of long calls."""
    pieces = _laid_out(text)
    if pieces is None:
        return [text]
    lines = [""]
    for piece in pieces:
        lines[-1] += piece if lines[-1] else piece.lstrip()
        if piece == ",":
            lines.append("")
    return [line for line in lines if line]


def _laid_out(text: str) -> list[str] | None:
    """Each token with the space that goes before it, or None when ``text`` does not tokenize."""
    tokens = _tokens(text)
    if tokens is None:
        return None
    out: list[str] = []
    brackets: list[str] = []
    previous: tuple[int, str] | None = None
    unary_pending = False
    for kind, string in tokens:
        space = _space_before(string, previous, brackets, unary_pending, first=len(out) == 1)
        out.append((" " if space else "") + string)
        unary_pending = string in _UNARY and _before_unary(previous)
        if string in _OPEN:
            brackets.append(string)
        elif string in (")", "]", "}") and brackets:
            brackets.pop()
        previous = (kind, string)
    return out


def _tokens(text: str) -> list[tuple[int, str]] | None:
    """The tokens of ``text`` that are laid out (as far as it tokenizes), or None when there are none or one is an error."""
    tokens: list[tuple[int, str]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text + "\n").readline):
            if token.type not in _SKIPPED:
                tokens.append((token.type, token.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a partial snippet (unclosed bracket): lay out the tokens read so far
    if not tokens or any(kind == tokenize.ERRORTOKEN and not string.isspace() for kind, string in tokens):
        return None
    return tokens


def _space_before(string: str, previous: tuple[int, str] | None, brackets: list[str], unary_pending: bool, *, first: bool) -> bool:
    """Whether a space goes before the token *string*, after *previous* (*first*: the token after a leading ``@``)."""
    if previous is None or (previous[1] == "@" and first):
        return False
    if string == ":" and previous[1] == ",":
        return True  # a[1:2, :, i]
    if string in _TIGHT_BEFORE or previous[1] in _OPEN or previous[1] == "." or unary_pending:
        return False
    if string in ("(", "[") and (previous[1] in (")", "]", "}") or (previous[0] in (tokenize.NAME, tokenize.STRING) and not keyword.iskeyword(previous[1]))):
        return False  # a call or a subscript
    if brackets and brackets[-1] == "(" and (string == "=" or previous[1] == "="):
        return False  # keyword argument
    return not (brackets and brackets[-1] == "[" and previous[1] == ":")  # no space in a slice


def _before_unary(previous: tuple[int, str] | None) -> bool:
    """Whether an operator of :data:`_UNARY` after *previous* is unary or a star (no space after it)."""
    return (
        previous is None
        or previous[1] in _OPEN
        or previous[1] in (",", "=", ":", "(")
        or (previous[0] == tokenize.OP and previous[1] not in (")", "]", "}"))
        or keyword.iskeyword(previous[1])
    )
