"""Writing a user's files: whole or not at all, and never over an edit made meanwhile.

Every file InfraLens writes for a user (annotations, the lock, reports, lab pages) goes through
:func:`write_atomically` or :func:`write_together`: the new text goes to a temporary file in the same
folder, is flushed and fsync'ed, keeps the old file's permission bits, and replaces the old file with
``os.replace`` — so Ctrl-C, a full disk or a crash leaves either the old text or the new one, never a
truncated file, and a reader never sees an empty one. :func:`write_together` does the same for several
files as one change: it refuses before touching anything when a file is read-only or no longer holds the
text the change was computed from, and puts back the files already replaced when a later one fails.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from infralens.errors import InfralensError


class UserFileError(InfralensError):
    """A user's file could not be written (read-only, changed meanwhile, disk full); nothing was changed.

    Besides the whole message it carries its parts, so a caller can word the error its own way (the lock does):
    ``path``, ``reason`` (what went wrong, without the path or advice) and ``denied`` (making the file or its
    folder writable would fix it).
    """

    def __init__(self, message: str, *, path: Path | None = None, reason: str = "", denied: bool = False) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason or message
        self.denied = denied


@dataclass(frozen=True)
class FileChange:
    """Replace ``path``'s text with ``new``; ``old`` is the text it was computed from (``None``: the file is new
    or its current text does not matter)."""

    path: Path
    new: str
    old: str | None = None


def write_atomically(path: Path, text: str, *, expect: str | None = None, what: str = "file") -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``.

    ``expect``: the text ``path`` must still hold (raises :class:`UserFileError` when someone edited it).
    ``what`` names the file in messages ("annotation file", "report", "lock").
    """
    write_together([FileChange(Path(path), text, expect)], what=what)


def write_together(changes: Sequence[FileChange], *, what: str = "file") -> None:
    """Apply every change or none: checks first, then temporary files, then one ``os.replace`` each.

    When a replace fails part-way, the files already replaced get their old text back before the error is raised.
    """
    for change in changes:
        _check_writable(change.path, what)
        _check_unchanged(change, what)
    staged: list[tuple[FileChange, str]] = []
    try:
        for change in changes:
            staged.append((change, _stage(change.path, change.new, what)))
        done: list[tuple[FileChange, bytes | None]] = []
        try:
            for change, temporary in staged:
                before = _read_bytes(change.path)
                os.replace(temporary, change.path)
                done.append((change, before))
        except BaseException:
            _undo(done)
            raise
    except OSError as error:
        failed = next((c.path for c in changes if error.filename and str(c.path) == str(error.filename)), None)
        raise _unwritable(failed or changes[len(staged) - 1 if staged else 0].path, error, what) from None
    finally:
        for _, temporary in staged:
            _discard(temporary)


def _stage(path: Path, text: str, what: str) -> str:
    """A temporary file beside ``path`` holding ``text``, flushed to disk, with ``path``'s permission bits."""
    mode = _mode_for(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.chmod(temporary, mode)
            os.fsync(stream.fileno())
    except BaseException:
        _discard(temporary)
        raise
    return temporary


def _undo(done: list[tuple[FileChange, bytes | None]]) -> None:
    """Put back what the already-replaced files held (best effort: each restore is itself atomic)."""
    for change, before in reversed(done):
        with contextlib.suppress(OSError):
            if before is None:
                change.path.unlink()
                continue
            handle, temporary = tempfile.mkstemp(dir=change.path.parent, prefix=f".{change.path.name}.", suffix=".tmp")
            with os.fdopen(handle, "wb") as stream:
                stream.write(before)
                stream.flush()
                os.fsync(stream.fileno())
            os.chmod(temporary, _mode_for(change.path))
            os.replace(temporary, change.path)


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _check_unchanged(change: FileChange, what: str) -> None:
    if change.old is None:
        return
    current = _read_bytes(change.path)
    if current is None or current.decode("utf-8", "replace") != change.old:
        raise UserFileError(
            f"{change.path}: the {what} changed while InfraLens was working on it; nothing was written — run the command again on the file as it is now",
            path=change.path,
            reason=f"the {what} changed meanwhile",
        )


def _check_writable(path: Path, what: str) -> None:
    """Refuse before writing anything when the file or its folder is read-only."""
    if path.is_dir():
        raise UserFileError(f"{path}: is a folder, not a {what}; nothing was written — name a file path", path=path, reason="it is a folder")
    if path.exists() and not os.access(path, os.W_OK):
        message = f"{path}: the {what} is read-only; nothing was written — make it writable and run again"
        raise UserFileError(message, path=path, reason="the file is read-only", denied=True)
    folder = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
    if folder is not None and not os.access(folder, os.W_OK | os.X_OK):
        message = f"{path}: its folder {folder} is read-only; nothing was written — make it writable"
        raise UserFileError(message, path=path, reason=f"{folder} is read-only", denied=True)


def _mode_for(path: Path) -> int:
    """Permission bits for the rewritten ``path``: the existing file's, else ``0o666`` less the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode) & 0o777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def _unwritable(path: Path, error: OSError, what: str) -> UserFileError:
    denied = error.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
    hint = " — make the file and its folder writable" if denied else ""
    reason = error.strerror or str(error)
    return UserFileError(f"{path}: cannot write the {what} ({reason}); nothing was changed{hint}", path=path, reason=reason, denied=denied)


def _discard(temporary: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(temporary)
