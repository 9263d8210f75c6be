"""The lock file on disk: read it with clear errors, compose a new text, write it atomically.

``infralens lock --update`` rewrites single entries and keeps every other byte of
the file (:func:`compose`). Writes go through :mod:`infralens.userfiles` (a temporary file and
a rename, by :mod:`infralens.atomic`: :func:`write_lock_file`) and are serialised across processes by the writer lock
(:func:`infralens.userfiles.writer_lock`, offered here too), which every writer of the project holds.
The text format itself is :mod:`.lockformat`; the entries are :mod:`.entries`.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from infralens.cachedir import read_regular
from infralens.drift.lock.entries import Lock, LockEntry
from infralens.drift.lock.text import PREAMBLE, LockText, parse_lock, problem, render_entry
from infralens.errors import LockfileError
from infralens.userfiles import UserFileError, finish_interrupted, journal_for, write_atomically as write_user_file, writer_lock_folder

if TYPE_CHECKING:
    from filelock import FileLock


def read_lock(path: Path, display: str | None = None) -> Lock:
    """The parsed lock at ``path`` (``display``: how messages name it)."""
    return read_lock_text(path, display).lock


MAX_LOCK_BYTES = 64 * 1024 * 1024
"""The largest lock read: the project's own (242 annotations, 1,123 steps) is 1.4 MB, so this leaves room for some
forty times as many, and a huge or sparse file planted as the lock is refused before it fills memory."""


def read_lock_text(path: Path, display: str | None = None) -> LockText:
    """The lock at ``path`` with the raw text of every entry; problems raise :class:`LockfileError`."""
    display = display or str(path)
    try:
        data = read_regular(path, MAX_LOCK_BYTES)
    except FileNotFoundError:
        raise LockfileError(f"{display}: no lock file — run 'infralens lock' to create it") from None
    except OSError as error:
        raise LockfileError(f"{display}: cannot read ({error.strerror}) — it must be a regular file; run 'infralens lock' to write one") from None
    if len(data) > MAX_LOCK_BYTES:
        limit = MAX_LOCK_BYTES // (1024 * 1024)
        raise LockfileError(
            f"{display}: the lock is larger than {limit} MB, so it was not read — it is not a lock infralens wrote; run 'infralens lock' to write it again"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise problem(display, line, "not valid UTF-8") from None
    return parse_lock(text, path, display)


# --------------------------------------------------------------------------
# Composing a new text
# --------------------------------------------------------------------------


def compose(old: LockText | None, entries: list[LockEntry], replace: Collection[str] | None, remove: Collection[str]) -> str:
    """New lock text.

    ``replace`` None rewrites every entry (full lock); otherwise only entries whose
    key (``kind:id``, see :attr:`StepLock.key`) is in ``replace`` are rewritten or added,
    and those in ``remove`` dropped; every other block keeps its exact bytes.
    """
    preamble = old.preamble if old else PREAMBLE
    if not preamble.endswith("\n\n"):
        preamble = preamble.rstrip("\n") + "\n\n"
    old_comments = {b.key: b.comments for b in old.blocks} if old else {}
    if replace is None:
        parts = [preamble, *(render_entry(entry, old_comments.get(entry.key, ())) for entry in entries)]
        return "".join(parts).rstrip("\n") + "\n"
    if old is None:
        raise ValueError("a partial rewrite needs the old lock text")
    return _compose_partial(old, preamble, entries, replace, remove)


def _compose_partial(old: LockText, preamble: str, entries: list[LockEntry], replace: Collection[str], remove: Collection[str]) -> str:
    """Keep old blocks in place, rewrite the chosen ones, then insert new ones after their annotation's group."""
    new_by_key = {e.key: e for e in entries}
    parts: list[tuple[str, str]] = [("", preamble)]  # (owning annotation id, text); the preamble has no owner
    written: set[str] = set()
    for block in old.blocks:
        if block.key in remove:
            continue
        if block.key in replace and block.key in new_by_key:
            text = render_entry(new_by_key[block.key], block.comments)
            written.add(block.key)
        else:
            text = block.text if block.text.endswith("\n") else block.text + "\n"
        parts.append((block.owner, text))
    for entry in entries:
        if entry.key in replace and entry.key not in written:
            parts = _insert(parts, entry)
    result = "".join(text for _, text in parts)
    return result if result.endswith("\n") else result + "\n"


def _insert(parts: list[tuple[str, str]], entry: LockEntry) -> list[tuple[str, str]]:
    """Place a new entry after the last block of the same annotation (or at the end)."""
    position = len(parts)
    for index, (owner, _) in enumerate(parts):
        if owner == entry.owner:
            position = index + 1
    before_owner, before = parts[position - 1]
    if not before.endswith("\n\n"):
        parts[position - 1] = (before_owner, before.rstrip("\n") + "\n\n")
    return [*parts[:position], (entry.owner, render_entry(entry)), *parts[position:]]


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def write_lock_file(path: Path, text: str, *, within: Path | None = None) -> None:
    """Write ``text`` to ``path`` whole or not at all, through :func:`infralens.userfiles.write_atomically`.

    That is the one atomic write of every user's file: a temporary file in the same folder, a rename over the old one,
    the old file's permission bits (a new lock gets the umask's default, as ``open`` would give it). A lock that
    is a symbolic link is written through to its target when that lies ``within`` the project (refused otherwise),
    so the link stays a link. A folder or file that cannot be written raises :class:`LockfileError` naming the
    path; the old file is then untouched.
    """
    try:
        write_user_file(path, text, what="lock", within=within)
    except UserFileError as error:
        if error.refused:  # a device, a FIFO, a link leading outside: the message says what to do
            raise LockfileError(str(error)) from None
        raise _unwritable(path, error.reason, permissions=error.denied) from None


def _unwritable(path: Path, reason: str, *, permissions: bool = True) -> LockfileError:
    """The error for a lock that could not be written; ``permissions``: say how to make it writable."""
    hint = " — make the file and its folder writable, or work in a writable checkout" if permissions else ""
    return LockfileError(f"{path}: cannot write the lock ({reason}); nothing was changed{hint}")


def writer_lock(path: Path, timeout: float = 60.0) -> FileLock:
    """The project's cross-process writer lock (:func:`infralens.userfiles.writer_lock`), keyed by the lock's path."""
    from infralens.userfiles import writer_lock as user_writer_lock

    return user_writer_lock(path, timeout)


def finish_interrupted_write(lock_path: Path, root: Path) -> None:
    """Complete or roll back a write of several files killed part-way (hold :func:`writer_lock` when calling it)."""
    finish_interrupted(journal_for(lock_path), root)


def _private_folder() -> Path:
    """The per-user folder of writer-lock files (kept here for callers of the lock's old API)."""
    return writer_lock_folder()
