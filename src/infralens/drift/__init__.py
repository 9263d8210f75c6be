"""Stage 4, drift: the lock (what each step was reviewed against) and the check of the sources against it.

The lock: :mod:`.entries` (the values), :mod:`.lockformat` (their text), :mod:`.lock` (reading,
composing and atomically writing the file). The check: :mod:`.check` (lock versus annotation files,
then every step classified by :mod:`.match`: container first, then propose, evidence, a one-to-one
assignment and one decision with named rules; it reads through :mod:`.reader` and :mod:`.facts`; kinds and
results in :mod:`.results`), rendered by
:mod:`.report`. The commands: :mod:`.run` (``check``, with the :mod:`.fastpath` result cache),
:mod:`.update` (``lock`` and ``lock --update``), :mod:`.history` (``history``: the same classifier over
many upstream releases, printed by :mod:`.history_view`); :mod:`.cli` only parses and prints.
May import: :mod:`infralens.annotations`, :mod:`infralens.source`, :mod:`infralens.resolve`,
:mod:`infralens.project`, :mod:`infralens.errors`, :mod:`infralens.hashing`, :mod:`infralens.commands`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .check import (
        CheckedTree as CheckedTree,
        CheckReport as CheckReport,
        LockFinding as LockFinding,
        LockFindingKind as LockFindingKind,
        run_check as run_check,
    )
    from .entries import (
        AnnotationLock as AnnotationLock,
        EntryKind as EntryKind,
        Lock as Lock,
        LockEntry as LockEntry,
        Place as Place,
        StepLock as StepLock,
    )
    from .facts import entries_for as entries_for
    from .lock import (
        compose as compose,
        read_lock as read_lock,
        read_lock_text as read_lock_text,
        write_atomically as write_atomically,
        writer_lock as writer_lock,
    )
    from .lockformat import PREAMBLE as PREAMBLE, LockText as LockText, RawBlock as RawBlock, parse_lock as parse_lock, render_entry as render_entry
    from .match import DistributionMatcher as DistributionMatcher
    from .report import render_github as render_github, render_json as render_json, render_text as render_text, report_json as report_json
    from .request import CheckRequest as CheckRequest, OutputFormat as OutputFormat
    from .results import (
        Candidate as Candidate,
        Scores as Scores,
        StepKind as StepKind,
        StepResult as StepResult,
        TargetKind as TargetKind,
        TargetResult as TargetResult,
    )
    from .update import (
        BuiltEntries as BuiltEntries,
        LockAction as LockAction,
        LockOutcome as LockOutcome,
        build_entries as build_entries,
        write_lock as write_lock,
    )

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "AnnotationLock": "entries",
        "BuiltEntries": "update",
        "Candidate": "results",
        "CheckReport": "check",
        "CheckRequest": "request",
        "CheckedTree": "check",
        "DistributionMatcher": "match",
        "EntryKind": "entries",
        "Lock": "entries",
        "LockAction": "update",
        "LockEntry": "entries",
        "LockFinding": "check",
        "LockFindingKind": "check",
        "LockOutcome": "update",
        "LockText": "lockformat",
        "OutputFormat": "request",
        "PREAMBLE": "lockformat",
        "Place": "entries",
        "RawBlock": "lockformat",
        "Scores": "results",
        "StepKind": "results",
        "StepLock": "entries",
        "StepResult": "results",
        "TargetKind": "results",
        "TargetResult": "results",
        "build_entries": "update",
        "compose": "lock",
        "entries_for": "facts",
        "parse_lock": "lockformat",
        "read_lock": "lock",
        "read_lock_text": "lock",
        "render_entry": "lockformat",
        "render_github": "report",
        "render_json": "report",
        "render_text": "report",
        "report_json": "report",
        "run_check": "check",
        "write_atomically": "lock",
        "write_lock": "update",
        "writer_lock": "lock",
    },
)
