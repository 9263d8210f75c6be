"""Reading one checked source tree for the drift check: files, indexes, and a cheap search across it.

A :class:`TreeReader` remembers what it read (bytes, parsed files) for the length of a check. Its
search (:meth:`TreeReader.files_with_text`) prefilters files by words of a statement (an index of
each file's words, built once) and a whitespace-tolerant regex before anything is parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from infralens.errors import InfralensError
from infralens.resolve import Resolver
from infralens.source import ModuleIndex, SourceFile, SourceTree

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_WORD_BYTES = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{3,}")
_COMMON = {
    "self",
    "None",
    "True",
    "False",
    "return",
    "import",
    "from",
    "else",
    "elif",
    "lambda",
    "while",
    "with",
    "yield",
    "assert",
    "raise",
    "pass",
    "break",
    "continue",
    "class",
    "async",
    "await",
    "torch",
}
"""Words too common to prefilter files by."""


class TreeReader:
    """The files of one source tree, read and indexed at most once."""

    def __init__(self, resolver: Resolver, tree: SourceTree, *, fast: bool = False) -> None:
        self.resolver = resolver
        self.tree = tree
        self.fast = fast
        """Index with the ``ast`` twin (another release than the one the lock was made from)."""
        self._bytes: dict[str, bytes | None] = {}
        self._sources: dict[str, SourceFile | None] = {}
        self._problems: dict[str, str] = {}
        self._words: dict[bytes, set[str]] | None = None

    def source(self, relpath: str) -> SourceFile | None:
        """The file at ``relpath``, or None when it does not exist or cannot be read (see :meth:`problem`)."""
        if relpath not in self._sources:
            found = None
            if self._exists(relpath):
                try:
                    found = self.resolver.source_file(self.tree, relpath)
                except InfralensError as error:
                    self._problems[relpath] = str(error)
            self._sources[relpath] = found
        return self._sources[relpath]

    def problem(self, relpath: str) -> str | None:
        """Why ``relpath`` exists but cannot be used (unreadable, too big, does not parse); None when fine or absent."""
        source = self.source(relpath)
        if source is not None:
            index = self.resolver.index(source, fast=self.fast)
            if index.syntax_error:
                return f"{self.tree.describe()}/{relpath} does not parse: {index.syntax_error}"
        return self._problems.get(relpath)

    def indexed(self, relpath: str) -> tuple[SourceFile, ModuleIndex] | None:
        """The file at ``relpath`` with its index, or None when it is missing or does not parse."""
        source = self.source(relpath)
        if source is None:
            return None
        index = self.resolver.index(source, fast=self.fast)
        return None if index.syntax_error else (source, index)

    def _exists(self, relpath: str) -> bool:
        try:
            return self.tree._exists(relpath)
        except InfralensError:
            return False

    def read_bytes(self, relpath: str) -> bytes | None:
        """The raw bytes of ``relpath`` (None when unreadable)."""
        if relpath not in self._bytes:
            try:
                self._bytes[relpath] = self.tree.read_bytes(relpath)
            except InfralensError:
                self._bytes[relpath] = None
        return self._bytes[relpath]

    def files_with_words(self, words: list[str]) -> set[str] | None:
        """Python files holding every one of ``words`` as a whole word (only words of 4+ characters
        narrow the search; None when none of them does: every file may match)."""
        narrowing = [w.encode() for w in words if _WORD.fullmatch(w)]
        if not narrowing:
            return None
        index = self._word_index()
        return set.intersection(*(index.get(word, set()) for word in narrowing))

    def _word_index(self) -> dict[bytes, set[str]]:
        """Every identifier-like word of 4+ characters → the files holding it as a whole word."""
        if self._words is None:
            words: dict[bytes, set[str]] = {}
            for relpath in self.tree.iter_python_files():
                data = self.read_bytes(relpath)
                for word in set(_WORD_BYTES.findall(data)) if data is not None else ():
                    words.setdefault(word, set()).add(relpath)
            self._words = words
        return self._words

    def files_matching(self, patterns: list[re.Pattern[bytes]], *, words: list[str], skip: str = "") -> Iterator[str]:
        """Python files (except ``skip``) holding every one of ``words`` whose bytes match every pattern."""
        candidates = self.files_with_words(words)
        for relpath in self.tree.iter_python_files():
            if relpath == skip or (candidates is not None and relpath not in candidates):
                continue
            data = self.read_bytes(relpath)
            if data is not None and all(p.search(data) for p in patterns):
                yield relpath

    def files_defining(self, names: list[str], *, skip: str = "") -> Iterator[str]:
        """Python files (except ``skip``) with a ``def``, ``async def`` or ``class`` line of each of ``names``."""
        patterns = [re.compile(rb"(?m)^\s*(?:async\s+def|def|class)\s+" + re.escape(n.encode()) + rb"\b") for n in names]
        return self.files_matching(patterns, words=names, skip=skip)

    def files_holding(self, texts: list[str], *, near: str, hints: list[str], per_text: int = 4) -> list[str]:
        """The best-ranked ``per_text`` files holding each of ``texts`` (:meth:`files_with_text`), each file once."""
        found: list[str] = []
        for text in texts:
            found.extend(r for r in self.files_with_text(text, near=near, hints=hints)[:per_text] if r not in found)
        return found

    def indexed_files(self, relpaths: list[str]) -> Iterator[tuple[str, SourceFile, ModuleIndex]]:
        """``(relpath, source, index)`` for each of ``relpaths`` that exists and parses."""
        for relpath in relpaths:
            indexed = self.indexed(relpath)
            if indexed is not None:
                yield relpath, indexed[0], indexed[1]

    def files_with_text(self, text: str, *, near: str, hints: list[str]) -> list[str]:
        """Files whose text contains the statement's tokens in order, best-ranked first.

        Files holding more of ``hints`` (parts of the target's qualname), then those sharing
        more folders with ``near``, rank first.
        """
        words = sorted({w for w in _WORD.findall(text) if w not in _COMMON}, key=len, reverse=True)[:3]
        pattern = _flexible_pattern(text)
        encoded_hints = [h.encode() for h in hints]
        hits: list[tuple[tuple[int, int], str]] = []
        candidates = self.files_with_words(words)
        for relpath in self.tree.iter_python_files():
            if candidates is not None and relpath not in candidates:
                continue
            data = self.read_bytes(relpath)
            if data is None:
                continue
            if pattern is not None and not pattern.search(data):
                continue
            rank = (sum(1 for h in encoded_hints if h in data), _common_prefix(relpath, near))
            hits.append((rank, relpath))
        hits.sort(key=lambda item: item[0], reverse=True)
        return [relpath for _, relpath in hits]


@lru_cache(maxsize=4096)
def _flexible_pattern(text: str) -> re.Pattern[bytes] | None:
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


def _common_prefix(left: str, right: str) -> int:
    """How many leading path components two relative paths share."""
    count = 0
    for a, b in zip(left.split("/"), right.split("/"), strict=False):
        if a != b:
            break
        count += 1
    return count
