"""The words of every Python file of a source tree, found once per release and kept in the cache across runs.

A word is an identifier-like run of 4+ characters (:data:`WORD_BYTES`). The drift check narrows its searches to the
files holding a statement's words; finding the words of every file of a big package costs most of a second
(transformers: 2,900 files, 54 MB), so :class:`WordCache` stores each tree's word sets under a key of the tree's
listing (:meth:`~infralens.source.SourceTree.listing_key`: names and content checksums, or sizes and modification
times) and reads them back in a fraction of that. An entry that is not what this module writes (another format, a
truncated file, the wrong number of files) is reported on stderr and rebuilt, like the index cache's entries.
"""

from __future__ import annotations

import json
import re
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from infralens.atomic import write_quietly
from infralens.cachedir import read_cache_entry
from infralens.errors import InfralensError, printable_line
from infralens.hashing import sha256_text

if TYPE_CHECKING:
    from infralens.source.distributions import SourceTree

WORD_BYTES = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{3,}")
"""An identifier-like word of 4+ characters, as bytes: the words files are indexed by."""
METHOD_DEF_BYTES = re.compile(rb"\n[ \t]+(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
"""The name of an indented ``def`` line (a method or a nested function; also one quoted in an indented string): the
names a file may define as methods. Literal-led after a newline, so one pass over a file is linear and fast."""
_DEFINITION_LINE = rb"(?=(?:async[ \t\r\f\v]+def|def|class)\s+([A-Za-z_][A-Za-z0-9_]*))"
TOP_DEFINITION_BYTES = re.compile(rb"\n" + _DEFINITION_LINE)
"""The name of a ``def``, ``async def`` or ``class`` line at column 0 (a module's own definitions; also one quoted in a
string): the same lines as :class:`~infralens.drift.match.textscan.DefinitionProbe` with ``top_level`` True. Led by a
newline (so a linear scan): :func:`file_words` reads a file as if a newline came first, and the first line counts. The
keyword and name are a lookahead, so a match takes no line past its own (``def`` alone on a line, then ``class NAME``)."""
INDENTED_DEFINITION_BYTES = re.compile(rb"\n[ \t\r\f\v]+" + _DEFINITION_LINE)
"""The name of an indented ``def``, ``async def`` or ``class`` line (methods, nested classes and functions): the probe's
lines with ``top_level`` False."""
WORDS_FORMAT = 1
_MAGIC = b"infralens-words\n"
MAX_ENTRY_BYTES = 64 << 20
"""A stored entry larger than this is not one this module wrote (transformers' is about 3 MB)."""
MAX_WORDS_BYTES = 512 << 20
"""Nor is one whose words take more than this once decompressed (transformers' take about 10 MB)."""


def file_words(data: bytes, pattern: re.Pattern[bytes] = WORD_BYTES) -> frozenset[bytes]:
    """The words ``pattern`` finds in ``data`` (by default those of 4+ characters: each maximal identifier run, less its
    leading digits; with a group, the group's text). The file is read as if a newline came first, so a pattern led by
    a newline (a line's start) also finds the first line."""
    return _words_after_newline(b"\n" + data, pattern)


def _words_after_newline(lined: bytes, pattern: re.Pattern[bytes]) -> frozenset[bytes]:
    """:func:`file_words` of a file already read with a newline before it (``lined``)."""
    return frozenset(pattern.findall(lined))


class WordCache:
    """Each tree's per-file word sets (words of ``pattern``), stored under ``<cache>/words-v<format>/`` by the tree's
    listing key and the pattern."""

    def __init__(self, directory: Path, pattern: re.Pattern[bytes] = WORD_BYTES) -> None:
        self.directory = directory / f"words-v{WORDS_FORMAT}"
        self.pattern = pattern

    def _entry(self, listing_key: str) -> Path:
        return self.directory / f"{sha256_text(f'{self.pattern.pattern!r}|{listing_key}')[:40]}.bin"

    def has(self, listing_key: str) -> bool:
        """Whether an entry for the tree with ``listing_key`` is stored (it is checked only when read)."""
        return self._entry(listing_key).is_file()

    def get(self, listing_key: str, files: Sequence[str]) -> list[frozenset[bytes]] | None:
        """The word set of each of ``files`` (in order) stored for the tree with ``listing_key``; None on a miss."""
        entry = self._entry(listing_key)
        raw = read_cache_entry(entry)
        if raw is None:
            return None
        sets = _decoded(raw, listing_key, len(files))
        if sets is None:
            print(printable_line(f"infralens: word cache: discarded {entry} (not an entry this version wrote); rebuilding it"), file=sys.stderr)
        return sets

    def put(self, listing_key: str, sets: Sequence[frozenset[bytes]]) -> None:
        """Store ``sets`` (one per file of the tree, in its order) for the tree with ``listing_key``; an unwritable
        cache only costs the next run the time to find them again."""
        payload = zlib.compress(joined_words(sets), 1)
        header = json.dumps({"format": WORDS_FORMAT, "key": listing_key, "files": len(sets), "bytes": len(payload)}).encode()
        write_quietly(self._entry(listing_key), _MAGIC + header + b"\n" + payload)


def _decoded(raw: bytes, listing_key: str, count: int) -> list[frozenset[bytes]] | None:
    """The word sets an entry holds when it is whole and for this tree, else None."""
    if len(raw) > MAX_ENTRY_BYTES or not raw.startswith(_MAGIC):
        return None
    header_line, _, payload = raw[len(_MAGIC) :].partition(b"\n")
    try:
        header = json.loads(header_line)
        expected = {"format": WORDS_FORMAT, "key": listing_key, "files": count, "bytes": len(payload)}
        if header != expected:
            return None
        inflater = zlib.decompressobj()
        data = inflater.decompress(payload, MAX_WORDS_BYTES)
    except (ValueError, zlib.error):
        return None
    if inflater.unconsumed_tail or not inflater.eof or (not count and data):
        return None
    return word_sets(data, count)


def words_in_files(tree: SourceTree, relpaths: Sequence[str], patterns: Sequence[bytes]) -> list[bytes]:
    """For each of ``patterns``, one line per file of ``relpaths`` with its words (:func:`file_words`) joined by spaces,
    the lines joined by newlines; an unreadable file has no words. Run in a worker process
    (:meth:`~infralens.source.prefetch.Prefetcher.words`), so one pass reads each file once for every pattern."""
    compiled = [re.compile(pattern) for pattern in patterns]
    sets: list[list[frozenset[bytes]]] = [[] for _ in compiled]
    for relpath in relpaths:
        try:
            data: bytes | None = tree.read_bytes(relpath)
        except InfralensError:
            data = None
        lined = b"\n" + data if data is not None else None  # once per file, for every pattern
        for found, pattern in zip(sets, compiled, strict=True):
            found.append(_words_after_newline(lined, pattern) if lined is not None else frozenset())
    return [joined_words(found) for found in sets]


def joined_words(sets: Sequence[frozenset[bytes]]) -> bytes:
    """Word sets as bytes: one line per file, its words joined by spaces (:func:`word_sets` reads them back)."""
    return b"\n".join(b" ".join(words) for words in sets)


def word_sets(joined: bytes, count: int) -> list[frozenset[bytes]] | None:
    """The word sets of ``count`` files from :func:`joined_words`'s lines (None when the count does not match)."""
    lines = joined.split(b"\n") if count else []
    return [frozenset(line.split(b" ")) if line else frozenset() for line in lines] if len(lines) == count else None
