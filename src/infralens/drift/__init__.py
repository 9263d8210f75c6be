"""Stage 4, drift: the lock (what each step was reviewed against) and the check of the sources against it.

Three sub-packages, each importing only the ones before it: :mod:`.lock` (the entries, their text
and the file), :mod:`.match` (what became of each locked function and step in a source tree:
container first, then propose, evidence, a one-to-one assignment and one decision with named rules;
the kinds and results), and :mod:`.history` (the same check over many upstream releases, and the
walk through the releases between two). At the top, the check and its commands: :mod:`.check`
(lock versus annotation files, then every step classified by :mod:`.match`), rendered by
:mod:`.report` from the records of :mod:`.record`; :mod:`.run` (``check``, with the
:mod:`.fastpath` result cache and the light values of :mod:`.request`), :mod:`.update` (``lock``
and ``lock --update``: it runs the check, so it sits above ``lock/``, not in it); :mod:`.cli` only
parses and prints.
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
    from .lock.entries import (
        AnnotationLock as AnnotationLock,
        EntryKind as EntryKind,
        Lock as Lock,
        LockEntry as LockEntry,
        Place as Place,
        StepLock as StepLock,
    )
    from .lock.facts import entries_for as entries_for
    from .lock.file import (
        compose as compose,
        read_lock as read_lock,
        read_lock_text as read_lock_text,
        write_lock_file as write_lock_file,
        writer_lock as writer_lock,
    )
    from .lock.text import PREAMBLE as PREAMBLE, LockText as LockText, RawBlock as RawBlock, parse_lock as parse_lock, render_entry as render_entry
    from .match import DistributionMatcher as DistributionMatcher
    from .match.results import (
        Candidate as Candidate,
        Scores as Scores,
        StepKind as StepKind,
        StepResult as StepResult,
        TargetKind as TargetKind,
        TargetResult as TargetResult,
    )
    from .report import render_github as render_github, render_json as render_json, render_text as render_text, report_json as report_json
    from .request import CheckRequest as CheckRequest, OutputFormat as OutputFormat
    from .run import against_trees as against_trees
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
        "AnnotationLock": "lock.entries",
        "against_trees": "run",
        "BuiltEntries": "update",
        "Candidate": "match.results",
        "CheckReport": "check",
        "CheckRequest": "request",
        "CheckedTree": "check",
        "DistributionMatcher": "match",
        "EntryKind": "lock.entries",
        "Lock": "lock.entries",
        "LockAction": "update",
        "LockEntry": "lock.entries",
        "LockFinding": "check",
        "LockFindingKind": "check",
        "LockOutcome": "update",
        "LockText": "lock.text",
        "OutputFormat": "request",
        "PREAMBLE": "lock.text",
        "Place": "lock.entries",
        "RawBlock": "lock.text",
        "Scores": "match.results",
        "StepKind": "match.results",
        "StepLock": "lock.entries",
        "StepResult": "match.results",
        "TargetKind": "match.results",
        "TargetResult": "match.results",
        "build_entries": "update",
        "compose": "lock.file",
        "entries_for": "lock.facts",
        "parse_lock": "lock.text",
        "read_lock": "lock.file",
        "read_lock_text": "lock.file",
        "render_entry": "lock.text",
        "render_github": "report",
        "render_json": "report",
        "render_text": "report",
        "report_json": "report",
        "run_check": "check",
        "write_lock_file": "lock.file",
        "write_lock": "update",
        "writer_lock": "lock.file",
    },
)
