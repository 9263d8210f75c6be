"""The lock: what each annotated function and step looked like when a maintainer reviewed it.

:mod:`.entries` holds the values (a step's normalised text, neighbours and place; a target's body
fingerprint), :mod:`.facts` measures them from an index (the same measures the matcher compares
with), :mod:`.text` turns them into the lock's diff-friendly text and back, and :mod:`.file` reads the
file with clear errors and writes it atomically under a cross-process writer lock. Nothing here
matches or checks: this is the bottom of ``drift/`` (``match/`` and the check import it, never the reverse).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .entries import (
        CONTEXT_SIZE as CONTEXT_SIZE,
        AnnotationLock as AnnotationLock,
        EntryKind as EntryKind,
        Lock as Lock,
        LockEntry as LockEntry,
        Place as Place,
        StepLock as StepLock,
        annotation_of as annotation_of,
        lock_key as lock_key,
        short_hash as short_hash,
        text_hash as text_hash,
    )
    from .facts import entries_for as entries_for
    from .file import (
        compose as compose,
        read_lock as read_lock,
        read_lock_text as read_lock_text,
        write_lock_file as write_lock_file,
        writer_lock as writer_lock,
    )
    from .text import PREAMBLE as PREAMBLE, LockText as LockText, RawBlock as RawBlock, parse_lock as parse_lock, render_entry as render_entry

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "AnnotationLock": "entries",
        "CONTEXT_SIZE": "entries",
        "EntryKind": "entries",
        "Lock": "entries",
        "LockEntry": "entries",
        "LockText": "text",
        "PREAMBLE": "text",
        "Place": "entries",
        "RawBlock": "text",
        "StepLock": "entries",
        "annotation_of": "entries",
        "compose": "file",
        "entries_for": "facts",
        "lock_key": "entries",
        "parse_lock": "text",
        "read_lock": "file",
        "read_lock_text": "file",
        "render_entry": "text",
        "short_hash": "entries",
        "text_hash": "entries",
        "write_lock_file": "file",
        "writer_lock": "file",
    },
)
