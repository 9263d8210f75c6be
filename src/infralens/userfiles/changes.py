"""Writing a user's files: whole or not at all, only where the policy allows, never over an edit made meanwhile.

Every file InfraLens writes for a user (annotations, the lock, reports, lab pages) goes through
:func:`write_atomically` or :func:`write_together`. Where the bytes go is decided first by
:func:`~.targets.write_target` (a device, FIFO, folder or socket is refused; a link inside the boundary is written
through to its target). The new text goes to a temporary file beside the file it replaces, is flushed and fsync'ed,
keeps the old file's permission bits, and replaces the old file — both through :mod:`infralens.atomic`, the one writer
(:func:`~infralens.atomic.stage`: no Ctrl-C can leave a temporary file behind) — so Ctrl-C, a full disk or a crash
leaves either the old text or the new one, never a truncated file. :func:`write_together` does the same for several
files as one change: it refuses before touching anything when a file is read-only or no longer holds the text the
change was computed from, compares each file again just before replacing it, puts back the files already replaced when
a later one fails, and, given a ``journal``, records the change first so that a run killed between two replaces is
completed or rolled back by the next command (:mod:`.journal`).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from infralens.atomic import discard, replace, stage
from infralens.errors import printable_line
from infralens.hashing import sha256_bytes
from infralens.userfiles.journal import JournalEntry, record
from infralens.userfiles.problems import UserFileError
from infralens.userfiles.staging import current_bytes, mode_for
from infralens.userfiles.targets import Placement, WriteTarget, write_target


@dataclass(frozen=True)
class FileChange:
    """Replace ``path``'s text with ``new``; ``old`` is the text it was computed from (``None``: the file is new
    or its current text does not matter)."""

    path: Path
    new: str
    old: str | None = None


def write_atomically(path: Path, text: str, *, expect: str | None = None, what: str = "file", within: Path | None = None, output: bool = False) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed over it.

    ``expect``: the text ``path`` must still hold (raises :class:`UserFileError` when someone edited it).
    ``what`` names the file in messages ("annotation file", "report", "lock"). ``within`` and ``output``: see
    :func:`~.targets.write_target`.
    """
    write_together([FileChange(Path(path), text, expect)], what=what, within=within, output=output)


def write_together(changes: Sequence[FileChange], *, what: str = "file", within: Path | None = None, output: bool = False, journal: Path | None = None) -> None:
    """Apply every change or none: checks first, then temporary files, then one rename each.

    When a replace fails part-way, the files already replaced get their old text back before the error is raised.
    ``journal``: where to record a change of several files before its first replace (see :mod:`.journal`).
    """
    targets = [write_target(change.path, within=within, output=output) for change in changes]
    for target in targets:
        _check_writable(target, what)
    befores = [_read_current(target, what) for target in targets]
    for change, before in zip(changes, befores, strict=True):
        _check_unchanged(change.path, change.old, before, what)
    run = _Together(targets, changes, befores, what)
    try:
        news, backups = run.stage_all()
        if journal is not None and run.several:
            entries = [_entry(t, n, b, c, o) for t, n, b, c, o in zip(targets, news, backups, changes, befores, strict=True)]
            record(journal, entries, run.staged)
            run.recorded = True
        run.replace_all(news, backups)
    except OSError as error:
        raise run.unwritable(error) from None
    finally:
        run.clean_up(journal)


@dataclass
class _Together:
    """One :func:`write_together` under way: its checked targets, their texts before, and what it staged so far."""

    targets: list[WriteTarget]
    changes: Sequence[FileChange]
    befores: list[bytes | None]
    what: str
    staged: list[str] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)
    """Temporary files a recorded journal still needs (a failed undo): left for the next command to finish."""
    recorded: bool = False
    step: int = 0
    """The file being staged or replaced: an error that names no file is reported for it."""

    @property
    def several(self) -> bool:
        return len(self.changes) > 1

    def stage_all(self) -> tuple[list[str], list[str | None]]:
        """A temporary file with each new text, and (several files) one with each old text to put back on failure."""
        news: list[str] = []
        backups: list[str | None] = []
        for index, (target, change, before) in enumerate(zip(self.targets, self.changes, self.befores, strict=True)):
            self.step = index
            if target.placement is Placement.NEW:
                target.real.parent.mkdir(parents=True, exist_ok=True)
            news.append(stage(target.real, change.new.encode("utf-8"), mode_for(target.real), self.staged))
            backups.append(stage(target.real, before, mode_for(target.real), self.staged) if self.several and before is not None else None)
        return news, backups

    def replace_all(self, news: list[str], backups: list[str | None]) -> None:
        """Replace each file after a last look at it; on any failure put back the files already replaced."""
        done: list[int] = []
        try:
            for step, target in enumerate(self.targets):
                self.step = step
                if (self.several or self.changes[step].old is not None) and _read_current(target, self.what) != self.befores[step]:  # the last look
                    raise _changed(self.changes[step].path, self.what)
                replace(news[step], target.real)
                done.append(step)
        except BaseException:
            still_needed = _undo(done, self.targets, backups, self.befores)
            self.kept = still_needed if self.recorded else set()  # without a journal nothing could use them
            raise

    def unwritable(self, error: OSError) -> UserFileError:
        """The error for an OSError: on the file it names, else on the file being written when it happened."""
        failed = next((t.named for t in self.targets if error.filename and str(error.filename) in (str(t.real), str(t.named))), None)
        return _unwritable(failed or self.targets[min(self.step, len(self.targets) - 1)].named, error, self.what)

    def clean_up(self, journal: Path | None) -> None:
        """Remove the temporary files (but those still needed) and, once nothing needs it, the journal."""
        for temporary in self.staged:
            if temporary not in self.kept:
                discard(temporary)
        if self.recorded and journal is not None and not self.kept:
            discard(journal)


def _entry(target: WriteTarget, new: str, backup: str | None, change: FileChange, before: bytes | None) -> JournalEntry:
    old = None if before is None else sha256_bytes(before)
    return JournalEntry(target.real, Path(new), None if backup is None else Path(backup), sha256_bytes(change.new.encode("utf-8")), old)


def _undo(done: list[int], targets: list[WriteTarget], backups: list[str | None], befores: list[bytes | None]) -> set[str]:
    """Put back what the already-replaced files held; returns the backups still needed (their journal is kept)."""
    kept: set[str] = set()
    for index in reversed(done):
        backup = backups[index]
        try:
            if befores[index] is None:
                os.unlink(targets[index].real)
            elif backup is not None:
                replace(backup, targets[index].real)
        except OSError:
            kept.update(b for b in backups if b is not None)
    return kept


def _read_current(target: WriteTarget, what: str) -> bytes | None:
    try:
        return current_bytes(target.real)
    except OSError as error:
        raise _unwritable(target.named, error, what) from None


def _changed(path: Path, what: str) -> UserFileError:
    return UserFileError(
        printable_line(f"{path}: the {what} changed while InfraLens was working on it; nothing was written — run the command again on the file as it is now"),
        path=path,
        reason=f"the {what} changed meanwhile",
    )


def _check_unchanged(path: Path, old: str | None, current: bytes | None, what: str) -> None:
    if old is None:
        return
    if current is None or current.decode("utf-8", "replace") != old:
        raise _changed(path, what)


def _check_writable(target: WriteTarget, what: str) -> None:
    """Refuse before writing anything when the file or its folder is read-only."""
    path, real = target.named, target.real
    if os.path.lexists(real) and not os.access(real, os.W_OK):
        message = f"{path}: the {what} is read-only; nothing was written — make it writable and run again"
        raise UserFileError(printable_line(message), path=path, reason="the file is read-only", denied=True)
    folder = next((p for p in (real.parent, *real.parent.parents) if p.exists()), None)
    if folder is not None and not os.access(folder, os.W_OK | os.X_OK):
        message = f"{path}: its folder {folder} is read-only; nothing was written — make it writable"
        raise UserFileError(printable_line(message), path=path, reason=f"{folder} is read-only", denied=True)


def _unwritable(path: Path, error: OSError, what: str) -> UserFileError:
    denied = error.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
    hint = " — make the file and its folder writable" if denied else ""
    reason = error.strerror or str(error)
    return UserFileError(printable_line(f"{path}: cannot write the {what} ({reason}); nothing was changed{hint}"), path=path, reason=reason, denied=denied)
