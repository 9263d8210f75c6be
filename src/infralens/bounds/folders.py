"""The one walk over a user's or an upstream folder: iterative, depth-limited, never through a link.

Python 3.11's :func:`os.walk` and :meth:`pathlib.Path.rglob` recurse once per folder level, so a folder
nested 1,200 deep ended a run in a ``RecursionError``. :func:`walk` keeps its own stack: a folder deeper
than the limit raises :class:`FolderTooDeep` naming it, at once and in constant stack depth. A symbolic
link (to a folder or anything else) is listed among the files, never entered, so a link loop cannot loop.
:func:`leads_outside` says whether a path, its links followed, leaves a folder (the project): what a reader
of a user's file asks before it opens a link.
Only :mod:`os` is imported: the warm ``check`` path (:mod:`infralens.drift.fastpath`) walks with it too.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

MAX_FOLDER_DEPTH = 64
"""Folder levels read below the top of a walk. diffusers 0.42 nests 6 below its package folder, DiffSynth 5,
an annotations folder 2: 64 leaves a wide margin and keeps every path far below the 4,096-byte limit."""


class FolderTooDeep(Exception):
    """A folder lies more than ``limit`` levels below the top of a walk; nothing under it was read."""

    def __init__(self, folder: str, top: str, limit: int) -> None:
        self.folder, self.top, self.limit = folder, top, limit
        super().__init__(self.describe(top))

    def describe(self, shown_top: str) -> str:
        """The message, with the top of the walk shown as ``shown_top`` and the deep folder shortened to a line."""
        parts = os.path.relpath(self.folder, self.top).split(os.sep)
        inner = "/".join(parts) if len(parts) <= 4 else "/".join([*parts[:2], "…", parts[-1]])
        shown = inner if shown_top in ("", ".") else f"{shown_top.rstrip('/')}/{inner}"
        return f"{shown}: folders nested more than {self.limit} levels deep are not read — flatten the folder or remove it"


def walk(top: str | os.PathLike[str], *, max_depth: int = MAX_FOLDER_DEPTH) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(folder, subfolders, files)`` for ``top`` and every folder below it, top-down, names sorted.

    Like ``os.walk(top)`` with ``followlinks=False``, except that a symbolic link to a folder is among the files
    (it is not a folder of this tree), the caller may prune ``subfolders`` in place, an unreadable folder is
    skipped, and a folder more than ``max_depth`` levels below ``top`` raises :class:`FolderTooDeep`.
    """
    root = os.fspath(top)
    pending: list[tuple[str, int]] = [(root, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue  # vanished or unreadable since its parent was listed
        folders: list[str] = []
        files: list[str] = []
        for entry in entries:
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_folder = False
            (folders if is_folder else files).append(entry.name)
        folders.sort()
        files.sort()
        yield folder, folders, files
        if folders and depth >= max_depth:
            raise FolderTooDeep(os.path.join(folder, folders[0]), root, max_depth)
        pending.extend((os.path.join(folder, name), depth + 1) for name in reversed(folders))


def leads_outside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether ``path``, once every symbolic link on the way to it is followed, lies outside ``root``.

    Links are followed as far as they lead (a link to nothing is judged by where it points; one that loops, by
    the loop's own path), so the answer is known before anything is opened.
    """
    real, inside = os.path.realpath(path), os.path.realpath(root)
    return real != inside and not real.startswith(inside.rstrip(os.sep) + os.sep)
