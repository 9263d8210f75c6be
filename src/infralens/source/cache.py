"""Index cache: parse each file once per run, and reuse indexes across runs.

Entries are keyed by the SHA-256 of the source text and the index format, so
a changed file is simply a different entry. Entries are JSON, written
atomically. An entry that is not what it should be (not a regular file, not a
JSON object, truncated, for another file) is removed with a one-line message on
stderr, counted in :attr:`IndexCache.discarded`, and rebuilt; reads never block.
libcst is imported only when something actually has to be parsed.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

from infralens.atomic import write_quietly
from infralens.cachedir import NotRegularFile, cache_root, read_regular
from infralens.errors import printable_line
from infralens.hashing import sha256_bytes
from infralens.source.fast_index import fast_index_source
from infralens.source.models import Definition, DefinitionKind, ModuleIndex, Statement, StatementKind

INDEX_FORMAT = 5

PARALLEL_MIN_MISSES = 4
"""Below this many files to parse, worker start-up costs more than it saves."""
_STATEMENT_KINDS = {kind.value: kind for kind in StatementKind}
_DEFINITION_KINDS = {kind.value: kind for kind in DefinitionKind}
"""The kinds by stored value: a dict lookup, where calling the enum per statement was a fifth of a warm check's time."""


def default_cache_dir() -> Path:
    """The cache root (:func:`infralens.cachedir.cache_root`) as a path."""
    return Path(cache_root())


FINGERPRINTED_MODULES = ("infralens.source.normal_form", "infralens.source.index", "infralens.source.fast_index", "infralens.source.models")
"""The modules whose code decides what an index contains, by import path."""


@lru_cache(maxsize=4)
def code_fingerprint(modules: tuple[str, ...] = FINGERPRINTED_MODULES) -> str:
    """Hash of the import path and the source of each module that decides what an index contains.

    Part of every cache key, so editing the normaliser or the indexer can never
    serve indexes built by the old code (a bumped INDEX_FORMAT alone cannot stop a
    process that loaded the old modules from writing under the new number). Modules
    are named by import path, not file name, and a module that cannot be found is an
    error: after a move, a stale name must fail loudly rather than hash nothing.
    """
    parts = []
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin or not os.path.isfile(spec.origin):
            raise RuntimeError(f"index cache: cannot find the source of {name} to fingerprint it")
        parts += [f"{name}\0".encode(), Path(spec.origin).read_bytes(), b"\0"]
    return sha256_bytes(b"".join(parts))[:12]


def _encode(index: ModuleIndex) -> dict:
    return {
        "format": INDEX_FORMAT,
        "sha256": index.sha256,
        "syntax_error": index.syntax_error,
        "definitions": [
            [d.qualname, d.kind.value, d.start_line, d.def_line, d.end_line, list(d.decorators), d.conditional, d.accessor, d.overload]
            for d in index.definitions
        ],
        "statements": [[s.start_line, s.end_line, s.header_end_line, s.text, s.kind.value, s.scope] for s in index.statements],
    }


def store(index: ModuleIndex, entry: str | os.PathLike[str]) -> None:
    """Write ``index`` as the cache entry ``entry`` (quietly: an unwritable cache costs speed, never the run)."""
    write_quietly(entry, json.dumps(_encode(index), separators=(",", ":")))


def _decode(data: dict) -> ModuleIndex:
    definitions = tuple(
        Definition(q, _DEFINITION_KINDS[k], a, d, e, tuple(dec), bool(c), acc, bool(o)) for q, k, a, d, e, dec, c, acc, o in data["definitions"]
    )
    statements = tuple(Statement(a, b, h, t, _STATEMENT_KINDS[k], sc) for a, b, h, t, k, sc in data["statements"])
    return ModuleIndex(data["sha256"], definitions, statements, data.get("syntax_error"))


class _BadEntry(Exception):
    """An entry file that is not what the cache writes; ``reason`` says how."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _read(entry: Path) -> bytes | None:
    """The bytes of ``entry`` if it is a regular file; None if absent or unreadable.

    Read through :func:`~infralens.cachedir.read_regular` (opened non-blocking and checked with
    ``fstat``), so a FIFO or device where an entry should be is reported, never waited on.
    """
    try:
        return read_regular(entry)
    except NotRegularFile as error:
        raise _BadEntry("a folder, not a file" if error.errno == errno.EISDIR else "not a regular file") from None
    except OSError:
        return None  # absent, or unreadable: a plain miss


def _load(entry: Path, sha256: str) -> ModuleIndex | None:
    """The index stored at ``entry``; None if there is none; :class:`_BadEntry` if it is broken."""
    raw = _read(entry)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        raise _BadEntry("not valid JSON, e.g. truncated") from None
    if not isinstance(data, dict):
        raise _BadEntry("JSON that is not an object")
    if data.get("format") != INDEX_FORMAT or data.get("sha256") != sha256:
        raise _BadEntry("written for another file or format")
    try:
        return _decode(data)
    except (KeyError, TypeError, ValueError):
        raise _BadEntry("fields missing or malformed") from None


class IndexCache:
    """In-memory memo for this run, backed by a directory shared across runs."""

    def __init__(self, directory: Path | None = None, *, persistent: bool = True) -> None:
        self.directory = directory or default_cache_dir()
        self.persistent = persistent
        self._memory: dict[str, ModuleIndex] = {}
        self._pending: dict[str, Callable[[], ModuleIndex | None]] = {}
        self.hits = 0
        self.misses = 0
        self.discarded = 0
        """Entries found broken and removed in this run (each also named on stderr)."""

    def _entry(self, sha256: str) -> Path:
        return self.directory / f"index-v{INDEX_FORMAT}-{code_fingerprint()}" / sha256[:2] / f"{sha256}.json"

    def get(self, sha256: str) -> ModuleIndex | None:
        if sha256 in self._memory:
            return self._memory[sha256]
        wait = self._pending.pop(sha256, None)
        index = wait() if wait is not None else None
        if index is not None:
            self._memory[sha256] = index
            return index
        if not self.persistent:
            return None
        entry = self._entry(sha256)
        try:
            index = _load(entry, sha256)
        except _BadEntry as bad:
            self._discard(entry, bad.reason)
            return None
        if index is not None:
            self._memory[sha256] = index
        return index

    def _discard(self, entry: Path, reason: str) -> None:
        """Remove a bad entry (so :meth:`put` can replace it) and say so once."""
        self.discarded += 1
        with contextlib.suppress(OSError):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        print(printable_line(f"infralens: index cache: discarded {entry} ({reason}); rebuilding it"), file=sys.stderr)

    def put(self, index: ModuleIndex) -> None:
        self._memory[index.sha256] = index
        if not self.persistent:
            return
        store(index, self._entry(index.sha256))

    def entry_for(self, sha256: str) -> str | None:
        """Where the index of ``sha256`` is stored across runs (None for a cache kept in memory only): a worker that
        builds an index writes it there itself (:func:`store`), and the cache waits for it (:meth:`expect`)."""
        return str(self._entry(sha256)) if self.persistent else None

    def expect(self, sha256: str, wait: Callable[[], ModuleIndex | None]) -> None:
        """The index of ``sha256`` is being built elsewhere (a worker, which stores it where :meth:`entry_for` says):
        :meth:`get` calls ``wait`` for it when it is first asked for, and looks no further when ``wait`` gives it."""
        self._pending[sha256] = wait

    def awaiting(self, sha256: str) -> bool:
        """Whether the index of ``sha256`` is being built elsewhere and not yet asked for."""
        return sha256 in self._pending

    def index_of(self, text: str, sha256: str, *, fast: bool = False) -> ModuleIndex:
        """The index of ``text`` (whose hash is ``sha256``), parsing only on a miss.

        With ``fast``, a miss is indexed by the ``ast`` twin (:mod:`.fast_index`) when it can, else by libcst.
        """
        cached = self.get(sha256)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        index = fast_index_source(text) if fast else None
        if index is None:
            from infralens.source.index import index_source  # libcst is imported only when needed

            index = index_source(text)
        self.put(index)
        return index

    def index_many(self, sources: Iterable[tuple[str, str]], *, jobs: int | None = None) -> None:
        """Make sure every ``(text, sha256)`` is indexed by libcst, parsing misses in parallel processes.

        Only worth it on a cold cache with several files to parse (libcst costs
        ~15-60x ``ast.parse``). Falls back to parsing here if processes cannot start.
        (Files the ``ast`` twin indexes go to :mod:`.prefetch`'s workers instead.)
        """
        missing: dict[str, str] = {}
        for text, sha256 in sources:
            if sha256 not in missing and self.get(sha256) is None:
                missing[sha256] = text
        workers = min(jobs or os.cpu_count() or 1, len(missing))
        if workers < 2 or len(missing) < PARALLEL_MIN_MISSES:
            return  # index_of parses them one by one when asked
        texts = sorted(missing.values(), key=len, reverse=True)  # biggest first: better balance
        try:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            from infralens.source.index import index_source

            context = multiprocessing.get_context("spawn")  # no fork of a threaded host (Sphinx)
            with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
                for index in pool.map(index_source, texts):
                    self.misses += 1
                    self.put(index)
        except (OSError, RuntimeError, ImportError):
            return  # e.g. no /dev/shm or a frozen interpreter: parse serially instead
