"""Linear, exact text scans over a release's raw bytes: words per file, a statement's text, a definition line.

Everything here reads upstream text, which may be hostile (a 10,000-``#`` comment, a 1 MB line), so no
pattern has nested or overlapping repetition, and each scan is a cheap necessary test (a word set, a
substring) before any regex runs. :class:`~infralens.drift.match.reader.TreeReader` uses these to find
candidate files without parsing them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from infralens.source import WORD_BYTES, WordCache, file_words

__all__ = ["WORD", "WORD_BYTES", "DefinitionProbe", "TextProbe", "WordIndex", "file_words", "flexible_pattern", "ranked"]

WORD = re.compile(WORD_BYTES.pattern.decode())
"""An identifier-like word of 4+ characters (:data:`~infralens.source.words.WORD_BYTES` as text): the words files are indexed by."""


class WordIndex:
    """Which files hold a word as a whole word: each file's words once (from ``stored``, a word cache and the tree's
    listing key, when it has them; else read and stored there), each asked word's files once. The words are those of
    ``pattern`` (:data:`~infralens.source.words.WORD_BYTES` unless told)."""

    def __init__(
        self,
        files: tuple[str, ...],
        read: Callable[[str], bytes | None],
        stored: tuple[WordCache, str] | None = None,
        pattern: re.Pattern[bytes] = WORD_BYTES,
        pending: Callable[[], list[frozenset[bytes]] | None] | None = None,
    ) -> None:
        if stored is not None and stored[0].pattern != pattern:
            raise ValueError("a word index is stored by a cache of its own pattern")
        self._files = files
        self._read = read
        self._stored = stored
        self._pattern = pattern
        self._pending = pending
        """Waits for the same sets found in worker processes, in the background (None when it failed or none started)."""
        self._sets: list[frozenset[bytes]] | None = None
        self._by_word: dict[bytes, frozenset[str]] = {}

    def _word_sets(self) -> list[frozenset[bytes]]:
        if self._stored is not None:
            cache, key = self._stored
            found = cache.get(key, self._files)
            if found is not None:
                return found
        sets = self._pending() if self._pending is not None else None
        if sets is not None and len(sets) == len(self._files):
            return sets  # kept by whoever found them
        sets = [file_words(data, self._pattern) if (data := self._read(relpath)) is not None else frozenset() for relpath in self._files]
        if self._stored is not None:
            cache.put(key, sets)
        return sets

    def files_with(self, word: bytes) -> frozenset[str]:
        """The files holding ``word`` (4+ identifier characters) as a whole word."""
        found = self._by_word.get(word)
        if found is None:
            if self._sets is None:
                self._sets = self._word_sets()
            found = self._by_word[word] = frozenset(relpath for relpath, words in zip(self._files, self._sets, strict=True) if word in words)
        return found


@lru_cache(maxsize=4096)
def flexible_pattern(text: str) -> re.Pattern[bytes] | None:
    """A bytes regex matching ``text``'s tokens separated by any layout, comments or line continuations."""
    tokens = text.split()[:400]  # any whitespace, no empty pieces (adjacent gaps would backtrack badly)
    if not tokens:
        return None
    # Possessive: a gap is whitespace, line continuations and whole comments, taken all at once and never given
    # back (no token starts with any of them). Backtracking into it split a comment of k "#" in 2^(k-1) ways.
    gap = rb"(?:\s|\\\n|#[^\n]*+)*+"
    pieces = []
    for token in tokens:
        piece = re.escape(token.encode("utf-8"))
        if token in (")", "]", "}"):
            piece = b"(?:," + gap + b")?" + piece  # the normaliser drops magic trailing commas
        pieces.append(piece)
    try:
        return re.compile(gap.join(pieces))
    except re.error:
        return None


class TextProbe:
    """Whether a file's bytes hold a statement's text in any layout (:func:`flexible_pattern`).

    Every token is matched literally by the pattern, so a file lacking one of them as a substring is
    rejected by ``in`` (a fast substring search) before the pattern runs; the pattern is compiled only
    for the first file holding every token. Where there is no pattern (no tokens, or one that does not
    compile), every file holds the text: :attr:`everything` says so once known.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        pieces = text.split()[:400]
        self.everything = not pieces
        self.tokens = sorted({t.encode("utf-8") for t in pieces if len(t) > 2}, key=len, reverse=True)
        self._pattern: re.Pattern[bytes] | None = None

    def __call__(self, data: bytes) -> bool:
        if self.everything:
            return True
        if not all(token in data for token in self.tokens):
            return False
        if self._pattern is None:
            self._pattern = flexible_pattern(self.text)
            if self._pattern is None:  # it did not compile: every file holds the text, also those rejected above
                self.everything = True
                return True
        return self._pattern.search(data) is not None


def ranked(files: Iterable[str], rank: Callable[[str], tuple[int, int]]) -> list[str]:
    """``files`` best rank first; files that rank the same keep their order."""
    return [relpath for _, relpath in sorted(((rank(r), r) for r in files), key=lambda item: item[0], reverse=True)]


_LINE_SPACE = re.compile(rb"[ \t\r\f\v]*")
_ASYNC_WORD = re.compile(rb"async[ \t\r\f\v]+")


class DefinitionProbe:
    """Whether a file's bytes hold a ``def``, ``async def`` or ``class`` line of ``name``.

    The same files as ``(?m)^\\s*(?:async\\s+def|def|class)\\s+NAME\\b``, which tries every line start; this
    finds ``def NAME``/``class NAME`` (literal-led, so a fast scan) and then checks that only spaces, or
    ``async`` between spaces, stand before the keyword on its line (each line's lead measured once, so many
    matches on one long line stay linear). ``top_level`` True keeps only lines that open at column 0 (a module's own
    definitions), False only indented ones (methods and nested functions); None keeps both.
    """

    def __init__(self, name: str, top_level: bool | None = None) -> None:
        escaped = re.escape(name.encode())
        self.top_level = top_level
        self.keyed = ((b"def", re.compile(rb"def\s+" + escaped + rb"\b")), (b"class", re.compile(rb"class\s+" + escaped + rb"\b")))

    def __call__(self, data: bytes) -> bool:
        for keyword, pattern in self.keyed:
            line, seen, lead = 0, 0, (-1, -1)
            for match in pattern.finditer(data):
                start = match.start()
                newline = data.rfind(b"\n", seen, start)  # only the bytes since the last match: linear in all
                if newline >= 0 or lead[0] < 0:
                    line = newline + 1 if newline >= 0 else line
                    lead = _line_lead(data, line)
                seen = start
                opens = start == lead[0] or (keyword == b"def" and start == lead[1])
                if opens and (self.top_level is None or self.top_level == (lead[0] == line)):
                    return True
        return False


def _line_lead(data: bytes, line: int) -> tuple[int, int]:
    """Where the spaces opening the line at ``line`` end, and where ``async`` and the spaces after it end there (-1: none)."""
    spaces = _LINE_SPACE.match(data, line).end()  # type: ignore[union-attr]
    after = _ASYNC_WORD.match(data, spaces)
    return spaces, after.end() if after else -1
