"""One writer at a time per project: the cross-process writer lock every command that writes the project holds.

``add``, ``fix`` and ``lock`` (and ``lock --update``) read, compare and replace inside :func:`project_writes`:
the writer lock keyed by the project's lock file, with an interrupted write of several files finished first
(:mod:`.journal`). So ``lock`` never hashes a file that ``add`` is rewriting, and an ``add`` never lands between
``fix``'s comparison and its replace.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from infralens.errors import LockfileError
from infralens.hashing import sha256_text
from infralens.userfiles.journal import finish_interrupted, journal_for

if TYPE_CHECKING:
    from filelock import FileLock

STALE_LOCK_S = 86_400.0
"""A writer-lock file untouched this long (every acquisition rewrites it) belongs to no running writer."""


def writer_lock(path: Path, timeout: float = 60.0) -> FileLock:
    """A cross-process lock serialising one user's writers of ``path`` (the project's lock file).

    The lock file lives in a private folder of the current user in the temporary
    folder (``infralens-writers-<uid>``, mode 0700), named by a hash of the lock's
    absolute path, so every writer of the same lock agrees on it, the project folder
    stays clean, and users never share (or block each other with) a lock file.
    """
    from filelock import FileLock

    digest = sha256_text(str(path.resolve()))[:24]
    folder = writer_lock_folder()
    _prune_stale(folder, keep=f"{digest}.lock")
    return FileLock(str(folder / f"{digest}.lock"), timeout=timeout)


@contextlib.contextmanager
def project_writes(lock_path: Path, root: Path, timeout: float = 60.0) -> Iterator[Path]:
    """Hold the writer lock of the project at ``root`` (whose lock is ``lock_path``), finish an interrupted write
    first, and yield the journal path to give :func:`~.changes.write_together` for the writes made inside."""
    with writer_lock(lock_path, timeout):
        journal = journal_for(lock_path)
        finish_interrupted(journal, root)
        yield journal


def writer_lock_folder() -> Path:
    """``<tmp>/infralens-writers-<uid>``, created 0700; refused unless it is a folder only this user can write."""
    user = str(os.getuid()) if hasattr(os, "getuid") else getpass.getuser()
    folder = Path(tempfile.gettempdir()) / f"infralens-writers-{user}"
    try:
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        info = folder.lstat()
    except OSError as error:
        raise LockfileError(f"{folder}: cannot create the folder for writer locks ({error.strerror}); set TMPDIR to a writable folder") from None
    owned = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    if not stat.S_ISDIR(info.st_mode) or not owned or info.st_mode & 0o022:
        raise LockfileError(f"{folder}: not a private folder of this user (writer locks live there); remove it and try again")
    return folder


def _prune_stale(folder: Path, keep: str) -> None:
    """Remove writer-lock files of other locks not used for :data:`STALE_LOCK_S`, so the folder does not only grow."""
    horizon = time.time() - STALE_LOCK_S
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            with contextlib.suppress(OSError):
                if entry.name.endswith(".lock") and entry.name != keep and entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < horizon:
                    os.unlink(entry.path)
