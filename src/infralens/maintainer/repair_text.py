"""Statement text for ``fix``'s review messages: as written in the source, never as spaced-out tokens."""

from __future__ import annotations

import io
import keyword
import tokenize
from typing import TYPE_CHECKING

from infralens.maintainer.scaffold import original_text

if TYPE_CHECKING:
    from infralens.drift import Place
    from infralens.resolve import Resolver

_NO_SPACE_BEFORE = {")", "]", "}", ",", ".", ":", ";"}
_NO_SPACE_AFTER = {"(", "[", "{", ".", "~"}
_UNARY_AFTER = {"(", "[", "{", ",", "=", ":", "return", "yield", "lambda", "in", "not", "and", "or", "if", "else", "*", "**", "+", "-", "/", "//", "%", "@"}
_SKIP = {tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT}


def readable(text: str) -> str:
    """``self . sigmas [ i + 1 ]`` → ``self.sigmas[i + 1]``: a normalised statement spaced as people write it."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text + "\n").readline) if t.type not in _SKIP]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text
    out: list[str] = []
    depth = 0
    previous: tokenize.TokenInfo | None = None
    before: tokenize.TokenInfo | None = None
    for token in tokens:
        word = token.string
        if previous is not None and _spaced(previous, token, before, depth):
            out.append(" ")
        out.append(word)
        if word in "([{":
            depth += 1
        elif word in ")]}":
            depth = max(0, depth - 1)
        before, previous = previous, token
    return "".join(out)


def _spaced(previous: tokenize.TokenInfo, token: tokenize.TokenInfo, before: tokenize.TokenInfo | None, depth: int) -> bool:
    left, word = previous.string, token.string
    if word in _NO_SPACE_BEFORE or left in _NO_SPACE_AFTER:
        return False
    if word in ("(", "[") and ((previous.type in (tokenize.NAME, tokenize.STRING) and not keyword.iskeyword(left)) or left in (")", "]")):
        return False
    if depth and (word == "=" or left == "="):
        return False  # a keyword argument
    # no space after a sign or an unpacking star
    return not (left in ("-", "+", "*", "**") and (before is None or before.string in _UNARY_AFTER))


def source_text(resolver: Resolver, distribution: str, place: Place) -> str:
    """The statement at ``place`` as written in the source now (its first statement, for a block)."""
    try:
        source = resolver.source_file(resolver.tree(distribution), place.relpath)
        index = resolver.index(source)
    except Exception:
        return readable(place.texts[0]) if place.texts else ""
    statement = next((s for s in index.statements if s.start_line == place.lines[0]), None)
    written = original_text(statement, source.lines) if statement is not None else None
    shown = written or (readable(place.texts[0]) if place.texts else "")
    return shown + (" …" if len(place.texts) > 1 else "")
