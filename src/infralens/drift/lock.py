"""The lock file on disk: read it with clear errors, compose a new text, write it atomically.

``infralens lock --update`` rewrites single entries and keeps every other byte of
the file (:func:`compose`). Writes go through a temporary file and ``os.replace``
(:func:`write_atomically`) and are serialised across processes by :func:`writer_lock`.
The text format itself is :mod:`.lockformat`; the entries are :mod:`.entries`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from infralens.drift.entries import Lock, LockEntry
from infralens.drift.lockformat import PREAMBLE, LockText, parse_lock, problem, render_entry
from infralens.errors import LockfileError
from infralens.hashing import sha256_text

if TYPE_CHECKING:
    from filelock import FileLock


def read_lock(path: Path, display: str | None = None) -> Lock:
    """The parsed lock at ``path`` (``display``: how messages name it)."""
    return read_lock_text(path, display).lock


def read_lock_text(path: Path, display: str | None = None) -> LockText:
    """The lock at ``path`` with the raw text of every entry; problems raise :class:`LockfileError`."""
    display = display or str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise LockfileError(f"{display}: no lock file — run 'infralens lock' to create it") from None
    except OSError as error:
        raise LockfileError(f"{display}: cannot read ({error.strerror})") from None
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


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def writer_lock(path: Path, timeout: float = 60.0) -> FileLock:
    """A cross-process lock serialising writers of ``path``.

    The lock file lives in the temporary folder, named by a hash of the lock's
    absolute path, so every writer of the same lock agrees on it and the
    project folder stays clean.
    """
    from filelock import FileLock

    folder = Path(tempfile.gettempdir()) / "infralens-writers"
    folder.mkdir(parents=True, exist_ok=True)
    digest = sha256_text(str(path.resolve()))[:24]
    return FileLock(str(folder / f"{digest}.lock"), timeout=timeout)
