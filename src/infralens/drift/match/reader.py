"""Reading one checked source tree for the drift check: files, indexes, and a cheap search across it.

A :class:`TreeReader` remembers what it read (bytes, parsed files) for the length of a check. Its
search (:meth:`TreeReader.files_with_text`) prefilters files by words of a statement (an index of
each file's words, built once), ranks them by cheap substring checks, and runs a whitespace-tolerant
regex only on files holding every token of the statement, best-ranked first, until it has as many
hits as the caller reads (:class:`_RankedSearch`); nothing is parsed before that. Files about to be
parsed together (a search's hits, :meth:`TreeReader.indexed_files`) are indexed in worker processes
when several are missing (:mod:`infralens.source.prefetch`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import partial

from infralens.drift.lock.facts import body_hashes
from infralens.drift.match.textscan import WORD, DefinitionProbe, TextProbe, WordIndex, ranked
from infralens.errors import InfralensError
from infralens.resolve import Resolver
from infralens.source import (
    INDENTED_DEFINITION_BYTES,
    METHOD_DEF_BYTES,
    SHARED,
    TOP_DEFINITION_BYTES,
    WORD_BYTES,
    Definition,
    DefinitionKind,
    ModuleIndex,
    SourceFile,
    SourceTree,
    WordCache,
)

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


WORD_PATTERNS = (WORD_BYTES, METHOD_DEF_BYTES, TOP_DEFINITION_BYTES, INDENTED_DEFINITION_BYTES)
"""The word indexes a check reads: words of every file (to narrow searches), names of indented ``def`` lines, and
names of definition lines at column 0 and indented (where a name is defined)."""
_ASCII_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A name the definition indexes hold (any other is looked for by scanning the files)."""


class _Once:
    """Calls ``wait`` the first time it is asked, hands what it found to ``store`` (the cache), and gives that answer
    every time after."""

    def __init__(self, wait: Callable[[], list[list[frozenset[bytes]]] | None], store: Callable[[list[list[frozenset[bytes]]]], None]) -> None:
        self._wait: Callable[[], list[list[frozenset[bytes]]] | None] | None = wait
        self._store = store
        self._found: list[list[frozenset[bytes]]] | None = None

    def __call__(self) -> list[list[frozenset[bytes]]] | None:
        if self._wait is not None:
            self._found, self._wait = self._wait(), None
            if self._found is not None:
                self._store(self._found)
        return self._found

    def share(self, position: int) -> list[frozenset[bytes]] | None:
        """The sets of the ``position``-th pattern (None when the workers failed)."""
        found = self()
        return found[position] if found is not None else None


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
        self._indexes: dict[bytes, WordIndex] = {}
        self._files: tuple[str, ...] | None = None
        self._searches: dict[tuple[str, str, tuple[str, ...]], _RankedSearch] = {}
        self._hinted: dict[tuple[str, ...], dict[str, int]] = {}
        self._shared: dict[str, dict[str, int]] = {}
        self._bodies: dict[tuple[str, Definition], tuple[str, ...]] = {}
        self._sole: dict[str, tuple[str, Definition] | None] = {}
        self._memos: dict[str, dict] = {}
        self._started = False
        self._key: str | None = None
        self._pending: dict[bytes, Callable[[], list[frozenset[bytes]] | None]] = {}

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

    def prefetch(self, relpaths: list[str]) -> None:
        """Index those of ``relpaths`` not yet indexed, in parallel (:mod:`infralens.source.prefetch`), so that
        :meth:`indexed` finds them in memory; the indexes are the ones :meth:`indexed` would build."""
        sources = [s for s in (self.source(r) for r in relpaths) if s is not None]
        SHARED.index(self.resolver.cache, [(s.text, s.sha256) for s in sources], fast=self.fast)

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

    def python_files(self) -> tuple[str, ...]:
        """The tree's Python files, in the tree's order (listed once)."""
        if self._files is None:
            self._files = tuple(self.tree.iter_python_files())
        return self._files

    def files_with_words(self, words: list[str]) -> set[str] | None:
        """Python files holding every one of ``words`` as a whole word (only words of 4+ characters
        narrow the search; None when none of them does: every file may match)."""
        narrowing = [w.encode() for w in words if WORD.fullmatch(w)]
        if not narrowing:
            return None
        index = self._word_index(WORD_BYTES)
        return set(frozenset.intersection(*(index.files_with(word) for word in narrowing)))

    def start_word_indexes(self) -> None:
        """Find the words of every file (:data:`WORD_PATTERNS`) in the worker processes, in the background, when the cache
        lacks them (a release checked for the first time): the search that needs them comes after the container
        decisions, which parse files here meanwhile. Once per reader."""
        if self._started:
            return
        self._started = True
        cache, key = self.resolver.cache, self._listing_key()
        if cache.persistent and WordCache(cache.directory, WORD_BYTES).has(key):
            return  # kept from an earlier run (the method names, when not kept, are found here if ever asked)
        wait = SHARED.words(self.tree, self.python_files(), tuple(p.pattern for p in WORD_PATTERNS))
        if wait is not None:
            shared = _Once(wait, partial(self._store_words, key) if cache.persistent else lambda found: None)
            for position, pattern in enumerate(WORD_PATTERNS):
                self._pending[pattern.pattern] = partial(shared.share, position)

    def _listing_key(self) -> str:
        """The tree's :meth:`~infralens.source.SourceTree.listing_key`, once per reader (a folder's is one ``stat`` a file)."""
        if self._key is None:
            self._key = self.tree.listing_key()
        return self._key

    def _store_words(self, key: str, found: list[list[frozenset[bytes]]]) -> None:
        """Keep every pattern's sets the workers found, also those of an index this check never asks for."""
        for pattern, sets in zip(WORD_PATTERNS, found, strict=True):
            WordCache(self.resolver.cache.directory, pattern).put(key, sets)

    def _word_index(self, pattern: re.Pattern[bytes]) -> WordIndex:
        """The index of the words ``pattern`` finds in each file (made once per reader), kept in the cache across runs
        when the cache is."""
        if pattern.pattern not in self._indexes:
            cache = self.resolver.cache
            stored = (WordCache(cache.directory, pattern), self._listing_key()) if cache.persistent else None
            self._indexes[pattern.pattern] = WordIndex(self.python_files(), self.read_bytes, stored, pattern, self._pending.get(pattern.pattern))
        return self._indexes[pattern.pattern]

    def files_matching(self, patterns: list[re.Pattern[bytes]], *, words: list[str], skip: str = "") -> Iterator[str]:
        """Python files (except ``skip``) holding every one of ``words`` whose bytes match every pattern."""
        return self._files_where([p.search for p in patterns], words=words, skip=skip)

    def files_defining(self, names: list[str], *, skip: str = "", top_level: bool | None = None) -> Iterator[str]:
        """Python files (except ``skip``) with a ``def``, ``async def`` or ``class`` line of each of ``names`` (``top_level``:
        only at column 0, only indented, or either; see :class:`~.textscan.DefinitionProbe`), in the tree's order. Looked
        up in the indexes of definition lines (built once per release, no file read); a name they cannot hold is scanned for."""
        if not names or not all(_ASCII_NAME.fullmatch(n) for n in names):
            return self._files_where([DefinitionProbe(n, top_level) for n in names], words=names, skip=skip)
        found = frozenset.intersection(*(self._defining(n.encode(), top_level) for n in names))
        return (r for r in self.python_files() if r != skip and r in found)

    def _defining(self, name: bytes, top_level: bool | None) -> frozenset[str]:
        """The files with a definition line of ``name`` at column 0 (``top_level`` True), indented (False), or either."""
        top = self._word_index(TOP_DEFINITION_BYTES).files_with(name) if top_level is not False else frozenset()
        indented = self._word_index(INDENTED_DEFINITION_BYTES).files_with(name) if top_level is not True else frozenset()
        return top | indented

    def _files_where(self, tests: list[Callable[[bytes], object]], *, words: list[str], skip: str) -> Iterator[str]:
        candidates = self.files_with_words(words)
        for relpath in self.python_files():
            if relpath == skip or (candidates is not None and relpath not in candidates):
                continue
            data = self.read_bytes(relpath)
            if data is not None and all(test(data) for test in tests):
                yield relpath

    def memo(self, kind: str) -> dict:
        """A dict, one per ``kind``, where a module keeps facts of this tree it derives once per check."""
        return self._memos.setdefault(kind, {})

    def sole_method(self, name: str) -> tuple[str, Definition] | None:
        """``(relpath, method)`` when exactly one method of a top-level class in the whole tree is named ``name`` (a property's
        setter or deleter is that method too), else None (the files with an indented ``def`` of it come from an index of
        such names, built once per release)."""
        if name not in self._sole:
            found = None
            files = sorted(self.method_files(name))
            indexed = self.indexed(files[0]) if len(files) == 1 else None
            if indexed is not None:
                named = [d for d in indexed[1].definitions if d.qualname.endswith(f".{name}") and d.qualname.count(".") == 1 and d.accessor is None]
                classes = {d.qualname for d in indexed[1].definitions if d.kind is DefinitionKind.CLASS}
                if len(named) == 1 and named[0].kind is not DefinitionKind.CLASS and named[0].qualname.split(".")[0] in classes:
                    found = (files[0], named[0])
            self._sole[name] = found
        return self._sole[name]

    def method_files(self, name: str) -> frozenset[str]:
        """The files with an indented ``def name`` (a method, or a function nested in another), from an index of such
        names built once per release."""
        return self._word_index(METHOD_DEF_BYTES).files_with(name.encode())

    def sole_property(self, name: str) -> tuple[str, Definition] | None:
        """:meth:`sole_method` when that method is a property; the one file's bytes are read first, so that no file is
        parsed for a plain method (most names a target calls on ``self``); read once per name."""
        memo = self.memo("sole_property")
        if name not in memo:
            memo[name] = self._sole_property(name)
        return memo[name]

    def _sole_property(self, name: str) -> tuple[str, Definition] | None:
        files = self.method_files(name)
        data = self.read_bytes(next(iter(files))) if len(files) == 1 else None
        if data is None or re.search(rb"@property\s+def " + re.escape(name.encode()) + rb"\b", data) is None:
            return None
        found = self.sole_method(name)
        return found if found is not None and "property" in found[1].decorators else None

    def files_holding(self, texts: list[str], *, near: str, hints: list[str], per_text: int = 4) -> list[str]:
        """The best-ranked ``per_text`` files holding each of ``texts`` (:meth:`files_with_text`), each file once."""
        found: list[str] = []
        for text in texts:
            found.extend(r for r in self.files_with_text(text, near=near, hints=hints, limit=per_text) if r not in found)
        return found

    def indexed_files(self, relpaths: list[str]) -> Iterator[tuple[str, SourceFile, ModuleIndex]]:
        """``(relpath, source, index)`` for each of ``relpaths`` that exists and parses."""
        self.prefetch(relpaths)
        for relpath in relpaths:
            indexed = self.indexed(relpath)
            if indexed is not None:
                yield relpath, indexed[0], indexed[1]

    def body_hashes(self, index: ModuleIndex, definition: Definition) -> tuple[str, ...]:
        """The short hashes of ``definition``'s body statements (:func:`~infralens.drift.lock.facts.body_hashes`), once per
        definition of a file's text."""
        key = (index.sha256, definition)
        if key not in self._bodies:
            self._bodies[key] = body_hashes(index, definition)
        return self._bodies[key]

    def _hint_counts(self, hints: tuple[str, ...]) -> Callable[[str], int]:
        """How many of ``hints`` a file's bytes hold (as substrings), remembered per file."""
        counts = self._hinted.setdefault(hints, {})
        encoded = [h.encode() for h in hints]

        def held(relpath: str) -> int:
            if relpath not in counts:
                data = self.read_bytes(relpath) or b""
                counts[relpath] = sum(1 for h in encoded if h in data)
            return counts[relpath]

        return held

    def _shared_folders(self, near: str) -> Callable[[str], int]:
        """How many leading path components a file shares with ``near``, remembered per file."""
        shared = self._shared.setdefault(near, {})

        def count(relpath: str) -> int:
            if relpath not in shared:
                shared[relpath] = _common_prefix(relpath, near)
            return shared[relpath]

        return count

    def files_with_text(self, text: str, *, near: str, hints: list[str], limit: int | None = None) -> list[str]:
        """Files whose text contains the statement's tokens in order, best-ranked first (the first ``limit`` of them).

        Files holding more of ``hints`` (parts of the target's qualname), then those sharing
        more folders with ``near``, rank first; files that rank the same keep the tree's order.
        """
        key = (text, near, tuple(hints))
        search = self._searches.get(key)
        if search is None:
            words = sorted({w for w in WORD.findall(text) if w not in _COMMON}, key=len, reverse=True)[:3]
            candidates = self.files_with_words(words)
            files = [r for r in self.python_files() if candidates is None or r in candidates]
            search = self._searches[key] = _RankedSearch(self, text, files, near=near, hints=hints)
        return search.first(limit)


class _RankedSearch:
    """One statement's text searched across candidate files, lazily, in rank order.

    The rank (hints held, folders shared with ``near``) needs only substring checks, so the candidates are
    sorted first and the text probe runs on them in that order until as many hits as asked for are found:
    the first ``n`` hits are the first ``n`` of the full ranked list.
    """

    def __init__(self, reader: TreeReader, text: str, files: list[str], *, near: str, hints: list[str]) -> None:
        self.reader = reader
        self.probe = TextProbe(text)
        readable = [r for r in files if reader.read_bytes(r) is not None]
        held, shared = reader._hint_counts(tuple(hints)), reader._shared_folders(near)
        self.order = ranked(readable, lambda r: (held(r), shared(r)))
        self.pending = self.order[::-1]  # popped from the end, best first
        self.hits: list[str] = []

    def first(self, limit: int | None) -> list[str]:
        """The best-ranked ``limit`` hits (all of them when ``limit`` is None)."""
        while self.pending and (limit is None or len(self.hits) < limit):
            relpath = self.pending.pop()
            if self.probe(self.reader.read_bytes(relpath) or b""):
                self.hits.append(relpath)
            if self.probe.everything:  # no pattern after all: every candidate is a hit
                self.hits, self.pending = list(self.order), []
        return self.hits[:limit] if limit is not None else list(self.hits)


def _common_prefix(left: str, right: str) -> int:
    """How many leading path components two relative paths share."""
    count = 0
    for a, b in zip(left.split("/"), right.split("/"), strict=False):
        if a != b:
            break
        count += 1
    return count
