"""The one registry of live function objects: by real file path, and within a file by qualname.

Both the instrument backend (which swaps rewritten code into every function of a watched file) and ``--mutate``
(which swaps a mutant into the functions of one qualname) need the function objects alive in this process.
Finding them takes a walk over ``gc.get_objects()`` (about 0.1-0.2 s with torch and diffusers loaded), so one
:class:`FunctionRegistry` per process (:data:`FUNCTIONS`) does that walk once for both indexes and repeats it
only when what is asked for may have changed: a module imported since, a file never seen, or a lookup that
finds nothing alive (its module was reloaded). Only weak references are kept.
"""

from __future__ import annotations

import gc
import os
import sys
import weakref
from types import FunctionType

_Refs = list[weakref.ref[FunctionType]]


def _alive(refs: _Refs) -> list[FunctionType]:
    return [function for function in (ref() for ref in refs) if function is not None]


class FunctionRegistry:
    """Function objects alive in this process, from one scan of the collector's objects."""

    def __init__(self) -> None:
        self.by_file: dict[str, _Refs] = {}
        self.by_name: dict[str, dict[str, _Refs]] = {}
        """Real path → qualname → functions: grouped from ``by_file`` the first time a file is asked by name."""
        self.real: dict[str, str] = {}
        """``co_filename`` → its real path (resolved once each)."""
        self.scanned_with = -1
        """``len(sys.modules)`` at the last scan."""
        self.noted: set[str] = set()
        """Module names seen by the last scan or :meth:`_note_imports`."""
        self.noted_count = -1
        self.fresh: set[str] = set()
        """Real paths of modules imported since the last scan."""
        self.missed: set[str] = set()
        """Real paths a scan found no function in."""
        self.scans = 0

    def scan(self) -> None:
        """Index every function object alive now by real file path (one walk over ``gc.get_objects()``)."""
        by_filename: dict[str, _Refs] = {}
        for obj in gc.get_objects():
            if type(obj) is FunctionType:
                refs = by_filename.get(obj.__code__.co_filename)
                if refs is None:
                    refs = by_filename[obj.__code__.co_filename] = []
                refs.append(weakref.ref(obj))
        by_file: dict[str, _Refs] = {}
        real = self.real
        for filename, refs in by_filename.items():
            path = real.get(filename)
            if path is None:
                path = real[filename] = os.path.realpath(filename)
            by_file.setdefault(path, []).extend(refs)
        self.by_file, self.by_name = by_file, {}
        self.noted, self.noted_count = set(sys.modules), len(sys.modules)
        self.scanned_with = len(sys.modules)
        self.fresh, self.missed = set(), set()
        self.scans += 1

    def in_file(self, path: str) -> list[FunctionType]:
        """Every function alive now whose code comes from the file at real path *path* (instrument backend).

        Rescanned only when that file's module was imported since the last scan, the file was never seen,
        or none of its functions is alive any more.
        """
        if len(sys.modules) != self.noted_count:
            self._note_imports()
        if path in self.fresh or (path not in self.by_file and path not in self.missed):
            self.scan()
            if path not in self.by_file:
                self.missed.add(path)
        alive = _alive(self.by_file.get(path, []))
        if not alive and self.by_file.get(path):  # the module was reloaded: its old functions are gone
            self.scan()
            alive = _alive(self.by_file.get(path, []))
        return alive

    def indexed_in_file(self, path: str) -> list[FunctionType]:
        """The functions of *path* the last scan found that are still alive (no new scan)."""
        return _alive(self.by_file.get(path, []))

    def named(self, path: str, qualname: str) -> list[FunctionType]:
        """Function objects alive now whose code is *qualname* in the file at *path* (``--mutate``).

        Rescanned when any module was imported since the last scan (a decorator in it may have made a
        wrapper of *qualname*), or when nothing alive is found.
        """
        path = os.path.realpath(path)
        if len(sys.modules) != self.scanned_with:
            self.scan()
        alive = _alive(self._named_in(path).get(qualname, []))
        if not alive:
            self.scan()
            alive = _alive(self._named_in(path).get(qualname, []))
        return alive

    def _named_in(self, path: str) -> dict[str, _Refs]:
        """qualname → the last scan's functions of *path* (grouped once per scan and file)."""
        names = self.by_name.get(path)
        if names is None:
            names = self.by_name[path] = {}
            for ref in self.by_file.get(path, []):
                function = ref()
                if function is not None:
                    names.setdefault(function.__code__.co_qualname, []).append(ref)
        return names

    def _note_imports(self) -> None:
        names = set(sys.modules)
        for name in names - self.noted:
            filename = getattr(sys.modules.get(name), "__file__", None)
            if isinstance(filename, str):
                self.fresh.add(os.path.realpath(filename))
                self.missed.discard(os.path.realpath(filename))
        self.noted, self.noted_count = names, len(sys.modules)


FUNCTIONS = FunctionRegistry()
"""This process's registry (the tracer backends and the mutants share it, and so share its scans)."""
