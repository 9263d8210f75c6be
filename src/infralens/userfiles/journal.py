"""The journal of a write that spans several files, so a killed run is finished or undone by the next one.

Before the first rename of a multi-file change (``infralens fix``), :func:`record` writes, atomically, a
small JSON file beside the lock (:func:`journal_for`) naming each file, the temporary file holding its new text,
the temporary file holding its old text, and both texts' SHA-256. It is removed after the last replace. A run
killed in between (SIGKILL, a power cut) leaves it, and the next command that writes (``add``, ``fix``, ``lock``)
calls :func:`recover` under the writer lock; ``check`` only warns (:func:`pending_note`).

Each file is in one :class:`EntryState`, read from the disk; the rule (:func:`decide`):

==================================================  ===============================================================
States                                               What :func:`recover` does
==================================================  ===============================================================
every file ``replaced`` or ``pending``               completes the write: the pending files get their new text
any file ``untouched`` or ``foreign``                rolls back: each replaced file gets its old text again; a
                                                     foreign file (changed since by someone else) is left as it is
==================================================  ===============================================================

The journal is project data a checkout could carry, so it is read as untrusted: bounded, strict JSON, every file
inside the project and a regular file (the policy of :mod:`.targets`), and one of the kinds of file InfraLens
writes there (:data:`JOURNALED_SUFFIXES`, never inside a hidden folder such as ``.git``); every temporary file
named as :func:`infralens.atomic.stage` names them beside its file, and nothing is replaced unless its hash matches the
journal. A rollback never deletes: a file the interrupted write created is moved aside (``NAME.rolled-back``), so a
planted journal can at most rename a file InfraLens itself would write.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, TypeGuard

from infralens.atomic import discard, is_temporary_name, replace, stage
from infralens.bounds import leads_outside
from infralens.cachedir import read_regular
from infralens.errors import printable_line
from infralens.hashing import sha256_bytes
from infralens.userfiles.problems import UserFileError
from infralens.userfiles.staging import current_bytes
from infralens.userfiles.targets import write_target

JOURNAL_NAME = ".infralens-write.journal"
JOURNAL_FORMAT = "infralens-write-journal 1"
MAX_JOURNAL_BYTES = 1 << 20
JOURNALED_SUFFIXES = (".yaml", ".yml", ".md", ".lock")
"""The files a multi-file write may touch: annotations, the concept map, lab pages and the lock."""
ROLLED_BACK_SUFFIX = ".rolled-back"
"""What a file created by an interrupted write is renamed to when that write is rolled back."""


def journal_for(lock_path: Path) -> Path:
    """Where the journal of a project whose lock is ``lock_path`` lives: beside the lock."""
    return Path(lock_path).parent / JOURNAL_NAME


@dataclass(frozen=True)
class JournalEntry:
    """One file of a multi-file write."""

    path: Path
    """The file replaced (a link's target, never the link)."""
    new: Path
    """The temporary file holding its new text (gone once it replaced ``path``)."""
    backup: Path | None
    """The temporary file holding its old text; ``None`` when the write creates ``path``."""
    new_sha256: str
    old_sha256: str | None


class EntryState(Enum):
    """Where one file of an interrupted write stands."""

    REPLACED = "replaced"
    """It holds the new text."""
    PENDING = "pending"
    """It holds the old text (or does not exist yet), and the new text waits in its temporary file."""
    UNTOUCHED = "untouched"
    """It holds the old text, and the new text is gone (an undo already ran): nothing to complete."""
    FOREIGN = "foreign"
    """It holds neither: someone changed it since. Recovery leaves it as it is."""


class RecoveryAction(Enum):
    COMPLETED = "completed"
    ROLLED_BACK = "rolled back"


@dataclass(frozen=True)
class Recovery:
    """What :func:`recover` did."""

    action: RecoveryAction
    files: int
    """Files the interrupted write changes."""
    changed: tuple[str, ...]
    """Files it wrote (completed, or put back), relative to the project root."""
    left: tuple[str, ...]
    """Files changed by someone else since, left as they are."""
    moved_aside: tuple[str, ...] = ()
    """Files the interrupted write had created, renamed to ``NAME.rolled-back`` by the rollback (never deleted)."""

    @property
    def message(self) -> str:
        parts = [f"wrote {', '.join(self.changed)}"] if self.changed else []
        if self.moved_aside:
            parts.append(f"moved aside the files it had created: {', '.join(self.moved_aside)} (delete them if you do not need them)")
        if self.left:
            parts.append(f"left as they are (changed since): {', '.join(self.left)}")
        done = "; ".join(parts) or "nothing needed writing"
        return printable_line(f"infralens: an interrupted write of {self.files} file(s) was {self.action.value} ({done})")


def decide(states: list[EntryState]) -> RecoveryAction:
    """Complete when every file is replaced or pending (the run was killed between its replaces); else roll back."""
    if all(state in (EntryState.REPLACED, EntryState.PENDING) for state in states):
        return RecoveryAction.COMPLETED
    return RecoveryAction.ROLLED_BACK


def record(journal: Path, entries: list[JournalEntry], staged: list[str]) -> None:
    """Write the journal atomically (its temporary file is listed in ``staged``, like the others)."""
    folder = Path(os.path.abspath(journal.parent))
    document = {
        "format": JOURNAL_FORMAT,
        "files": [
            {
                "path": os.path.relpath(os.path.abspath(entry.path), folder),
                "new": os.path.relpath(os.path.abspath(entry.new), folder),
                "backup": None if entry.backup is None else os.path.relpath(os.path.abspath(entry.backup), folder),
                "new-sha256": entry.new_sha256,
                "old-sha256": entry.old_sha256,
            }
            for entry in entries
        ],
    }
    temporary = stage(journal, (json.dumps(document, indent=1) + "\n").encode("utf-8"), 0o644, staged)
    replace(temporary, journal)


def pending_note(journal: Path) -> str | None:
    """A warning for ``check`` when an interrupted write waits to be completed or rolled back."""
    if not os.path.lexists(journal):
        return None
    return printable_line(
        f"infralens: warning: {journal}: a write of several files (infralens fix) was interrupted; "
        "the next 'infralens fix', 'add' or 'lock' completes or rolls it back — run one before trusting this check"
    )


def recover(journal: Path, within: Path) -> Recovery | None:
    """Complete or roll back the write ``journal`` describes, then remove it (call under the writer lock)."""
    if not os.path.lexists(journal):
        return None
    entries = read_journal(journal, within)
    states = [state_of(entry) for entry in entries]
    action = decide(states)
    changed: list[str] = []
    left: list[str] = []
    aside: list[str] = []
    try:
        for entry, state in zip(entries, states, strict=True):
            shown = os.path.relpath(os.path.realpath(entry.path), os.path.realpath(within))
            if state is EntryState.FOREIGN:
                left.append(shown)
            elif action is RecoveryAction.COMPLETED and state is EntryState.PENDING:
                replace(entry.new, entry.path)
                changed.append(shown)
            elif action is RecoveryAction.ROLLED_BACK and state is EntryState.REPLACED and entry.old_sha256 is None:
                replace(entry.path, _aside(entry.path))
                aside.append(f"{shown} -> {shown}{ROLLED_BACK_SUFFIX}")
            elif action is RecoveryAction.ROLLED_BACK and state is EntryState.REPLACED:
                (changed if _put_back(entry) else left).append(shown)
    except OSError as error:
        reason = error.strerror or str(error)
        message = f"{journal}: cannot finish the interrupted write it describes ({reason}); nothing else was written — make the files writable and run again"
        raise UserFileError(printable_line(message), path=journal, reason=reason, denied=True) from None
    for entry in entries:
        discard(entry.new)
        if entry.backup is not None:
            discard(entry.backup)
    discard(journal)
    return Recovery(action, len(entries), tuple(changed), tuple(left), tuple(aside))


def finish_interrupted(journal: Path, within: Path) -> Recovery | None:
    """:func:`recover`, saying on standard error what it did."""
    recovery = recover(journal, within)
    if recovery is not None:
        print(recovery.message, file=sys.stderr)
    return recovery


def state_of(entry: JournalEntry) -> EntryState:
    now = _digest(entry.path)
    if now == entry.new_sha256:
        return EntryState.REPLACED
    if now != entry.old_sha256:
        return EntryState.FOREIGN
    return EntryState.PENDING if _digest(entry.new) == entry.new_sha256 else EntryState.UNTOUCHED


def _aside(path: Path) -> Path:
    """A free name beside ``path`` for a file a rollback moves aside: ``NAME.rolled-back``, then ``.rolled-back-2``, …"""
    candidate = path.with_name(path.name + ROLLED_BACK_SUFFIX)
    number = 2
    while os.path.lexists(candidate):
        candidate = path.with_name(f"{path.name}{ROLLED_BACK_SUFFIX}-{number}")
        number += 1
    return candidate


def _put_back(entry: JournalEntry) -> bool:
    """Give a replaced file its old text again from its backup; False when that is impossible."""
    if entry.backup is None or _digest(entry.backup) != entry.old_sha256:
        return False
    replace(entry.backup, entry.path)
    return True


def _digest(path: Path) -> str | None:
    """SHA-256 of what ``path`` holds (``None``: missing or unreadable)."""
    try:
        data = current_bytes(path)
    except OSError:
        return "unreadable"
    return None if data is None else sha256_bytes(data)


# --------------------------------------------------------------------------
# Reading a journal: untrusted data
# --------------------------------------------------------------------------


def read_journal(journal: Path, within: Path) -> list[JournalEntry]:
    """The journal's entries, each checked against the rules above; anything else raises :class:`UserFileError`."""
    try:
        raw = read_regular(journal, limit=MAX_JOURNAL_BYTES)
        if len(raw) > MAX_JOURNAL_BYTES:
            raise ValueError("it is larger than 1 MB")
        document = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        if not isinstance(document, dict) or document.get("format") != JOURNAL_FORMAT or not isinstance(document.get("files"), list):
            raise ValueError(f"it does not start with the format {JOURNAL_FORMAT!r}")
        folder = Path(os.path.abspath(journal.parent))
        return [_entry(item, folder, within) for item in document["files"]]
    except (OSError, ValueError, UnicodeDecodeError, UserFileError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise UserFileError(
            printable_line(
                f"{journal}: not a journal of an interrupted InfraLens write ({reason}); nothing was written — "
                "if no infralens fix was interrupted, remove the file and run again"
            ),
            path=journal,
            reason=reason,
        ) from None


def _entry(item: Any, folder: Path, within: Path) -> JournalEntry:
    if not isinstance(item, dict):
        raise ValueError("an entry is not an object")
    path = _place(item.get("path"), folder)
    target = write_target(path, within=within)  # a regular file (or none yet), never a device, a link only inside the project
    if leads_outside(target.real, within):
        raise ValueError(f"{path} is outside the project")
    real = Path(os.path.realpath(target.real))
    inner = real.relative_to(os.path.realpath(within)).parts
    if real.suffix not in JOURNALED_SUFFIXES or any(part.startswith(".") for part in inner):
        raise ValueError(f"{printable_line(str(path))} is not a file InfraLens writes (an annotation, lab page, concept map or lock)")
    new = _place(item.get("new"), folder)
    backup = None if item.get("backup") is None else _place(item.get("backup"), folder)
    for temporary in (new, backup):
        if temporary is not None and not (is_temporary_name(target.real, temporary) and _regular_or_missing(temporary)):
            raise ValueError(f"{temporary.name} is not a temporary file of {target.real.name}")
    new_sha256, old_sha256 = item.get("new-sha256"), item.get("old-sha256")
    if not _is_digest(new_sha256) or not (old_sha256 is None or _is_digest(old_sha256)) or (backup is None) != (old_sha256 is None):
        raise ValueError("an entry's hashes are malformed")
    return JournalEntry(target.real, new, backup, new_sha256, old_sha256)


def _place(value: Any, folder: Path) -> Path:
    if not isinstance(value, str) or not value or "\x00" in value:
        raise ValueError("an entry names no file")
    return Path(os.path.normpath(folder / value))


def _regular_or_missing(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True


def _is_digest(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
