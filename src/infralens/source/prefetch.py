"""Index several files of another release at once, on every core, before a check reads them one by one.

A check against another release parses the files its search proposes (up to sixteen per step) with the
``ast`` twin (:mod:`.fast_index`), one after the other, and that parsing is most of a cold check. A
:class:`Prefetcher` hands the files not yet in the index cache to worker processes (started once, on first
need) and stores what they return in the cache, so the reads that follow are memory hits. The workers
run the very function a serial miss runs (:meth:`IndexCache.index_of`'s choice: the twin, else libcst),
so an index is the same either way; only the time differs.
"""

from __future__ import annotations

import atexit
import os
import signal
from collections.abc import Callable, Iterable
from concurrent.futures import BrokenExecutor, Executor, Future
from functools import partial
from typing import TYPE_CHECKING

from infralens.atomic import interrupts_held
from infralens.source.cache import IndexCache, store
from infralens.source.models import ModuleIndex
from infralens.source.words import word_sets, words_in_files

if TYPE_CHECKING:
    from infralens.source.distributions import SourceTree

MIN_MISSES = 2
"""Fewer misses than this are parsed where they are asked for (a round trip to a worker costs more)."""
MAX_WORKERS = 4
"""Most worker processes (parsing a handful of files at a time gains nothing from more)."""
MIN_WORD_FILES = 100
"""A tree of fewer files has its words found where they are asked for (starting the workers costs more)."""


def index_text(text: str, fast: bool, entry: str | None = None) -> ModuleIndex:
    """The index :meth:`IndexCache.index_of` builds on a miss (in a worker process), also written as the cache entry
    ``entry`` when one is given (so the checker waiting for it does not spend its own time encoding it)."""
    from infralens.source.fast_index import fast_index_source

    index = fast_index_source(text) if fast else None
    if index is None:
        from infralens.source.index import index_source

        index = index_source(text)
    if entry is not None:
        store(index, entry)
    return index


class Prefetcher:
    """Worker processes that index cache misses in parallel (one set per process, started on first need); none
    when there is one core or they cannot start, and then every file is parsed where it is asked for."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers if workers is not None else min(MAX_WORKERS, _cores())
        self._pool: Executor | None = None
        self._broken = self.workers < 2

    def index(self, cache: IndexCache, sources: Iterable[tuple[str, str]], *, fast: bool) -> int:
        """Start indexing each ``(text, sha256)`` not in ``cache`` on the workers, in the order given, and return at once:
        the cache waits for a file's index only when it is first asked for (:meth:`IndexCache.expect`), so the reads of
        the first files overlap the parsing of the others. The number handed to the workers."""
        missing: dict[str, str] = {}
        for text, sha256 in sources:
            if sha256 not in missing and not cache.awaiting(sha256) and cache.get(sha256) is None:
                missing[sha256] = text
        pool = self._start() if len(missing) >= MIN_MISSES else None
        if pool is None:
            return 0
        try:
            with interrupts_held():  # threads and processes the pool starts now keep Ctrl-C and SIGTERM blocked for good
                futures = {sha256: pool.submit(index_text, text, fast, cache.entry_for(sha256)) for sha256, text in missing.items()}
        except (BrokenExecutor, RuntimeError):  # a worker died, or the pool was shut: parse where asked from now on
            self._broken = True
            self.close()
            return 0
        for sha256, future in futures.items():
            cache.expect(sha256, partial(self._wait, future, cache))
        return len(futures)

    def _wait(self, future: Future[ModuleIndex], cache: IndexCache) -> ModuleIndex | None:
        """The index a worker built (the main thread waits unblocked: a Ctrl-C reaches it); None when it failed, and the
        file is then parsed where it is asked for, as without workers (raising there whatever indexing raised)."""
        try:
            index = future.result()
        except BrokenExecutor:  # a worker died (killed, out of memory)
            self._broken = True
            self.close()
            return None
        except Exception:
            return None
        cache.misses += 1
        return index

    def words(self, tree: SourceTree, relpaths: tuple[str, ...], patterns: tuple[bytes, ...]) -> Callable[[], list[list[frozenset[bytes]]] | None] | None:
        """Start finding the words of each of ``patterns`` in every file of ``relpaths`` in the workers (one share of the
        files each), in the background; a function that waits for them (each pattern's sets, in file order; None when a
        worker failed: the caller then finds them itself). None when there are no workers."""
        pool = self._start() if len(relpaths) >= MIN_WORD_FILES else None
        if pool is None:
            return None
        size = -(-len(relpaths) // self.workers)
        shares = [relpaths[i : i + size] for i in range(0, len(relpaths), size)]
        try:
            with interrupts_held():
                futures = [pool.submit(words_in_files, tree, share, patterns) for share in shares]
        except (BrokenExecutor, RuntimeError):
            return None

        def wait() -> list[list[frozenset[bytes]]] | None:
            try:
                parts = [future.result() for future in futures]
            except BrokenExecutor:
                self._broken = True
                self.close()
                return None
            except Exception:  # an unpicklable tree, a worker's error: found where asked, as without workers
                return None
            found = []
            for index in range(len(patterns)):
                sets = [word_sets(part[index], len(share)) for part, share in zip(parts, shares, strict=True)]
                if any(s is None for s in sets):
                    return None
                found.append([words for share in sets for words in share or ()])
            return found

        return wait

    def _start(self) -> Executor | None:
        if self._pool is None and not self._broken:
            try:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                context = multiprocessing.get_context("spawn")  # no fork of a threaded host (Sphinx)
                self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context, initializer=_worker_signals)
                atexit.register(self.close)
            except (OSError, RuntimeError, ImportError):
                self._broken = True
        return self._pool

    def close(self) -> None:
        """Stop the workers (also at exit)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _worker_signals() -> None:
    """A worker takes SIGTERM again (the pool stops a broken worker with it); Ctrl-C stays with the main process."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


SHARED = Prefetcher()
"""The workers of this process, shared by every reader."""
