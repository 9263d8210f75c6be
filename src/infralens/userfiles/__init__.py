"""Every write of a user's file, and where it may go.

:mod:`.targets` is the policy (a device, FIFO, folder or socket is refused; a symbolic link is written through to its
target only inside the project, or for an output inside its own folder); :mod:`.changes` writes one file or several
together, whole or not at all, never over an edit made meanwhile, on top of :mod:`infralens.atomic` (the one writer:
temporary files, fsync, the replace); :mod:`.staging` reads back what a file holds before it is replaced;
:mod:`.journal` records a write of several files so that a run killed between two replaces is completed or rolled back
by the next one; :mod:`.exclusive` is the project's writer lock, held by every command that writes the project
(``add``, ``fix``, ``lock``); :mod:`.outputs` is ``--output``, ``--report`` and ``--json`` (``-`` is standard output).
May import: :mod:`infralens.errors`, :mod:`infralens.cachedir`, :mod:`infralens.hashing`, :mod:`infralens.bounds`,
:mod:`infralens.atomic` and the standard library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .changes import FileChange as FileChange, write_atomically as write_atomically, write_together as write_together
    from .exclusive import project_writes as project_writes, writer_lock as writer_lock, writer_lock_folder as writer_lock_folder
    from .journal import (
        JOURNAL_NAME as JOURNAL_NAME,
        EntryState as EntryState,
        Recovery as Recovery,
        RecoveryAction as RecoveryAction,
        finish_interrupted as finish_interrupted,
        journal_for as journal_for,
        pending_note as pending_note,
        recover as recover,
    )
    from .outputs import (
        STANDARD_OUTPUT as STANDARD_OUTPUT,
        check_output as check_output,
        report_on_standard_output as report_on_standard_output,
        write_output as write_output,
    )
    from .problems import UserFileError as UserFileError
    from .targets import Placement as Placement, WriteTarget as WriteTarget, write_target as write_target

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "EntryState": "journal",
        "FileChange": "changes",
        "JOURNAL_NAME": "journal",
        "Placement": "targets",
        "Recovery": "journal",
        "RecoveryAction": "journal",
        "STANDARD_OUTPUT": "outputs",
        "UserFileError": "problems",
        "WriteTarget": "targets",
        "check_output": "outputs",
        "finish_interrupted": "journal",
        "project_writes": "exclusive",
        "writer_lock": "exclusive",
        "writer_lock_folder": "exclusive",
        "journal_for": "journal",
        "pending_note": "journal",
        "recover": "journal",
        "report_on_standard_output": "outputs",
        "write_atomically": "changes",
        "write_output": "outputs",
        "write_target": "targets",
        "write_together": "changes",
    },
)
