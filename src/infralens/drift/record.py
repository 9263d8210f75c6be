"""A finished check as the drift report's typed record (:class:`infralens.reports.DriftReport`): the one mapping.

The check already works in the report's records where they are the same thing (a :class:`~infralens.reports.Place`,
its :class:`~infralens.reports.Scores`, a :class:`~infralens.reports.CheckedTree`); :func:`drift_record` adds what
the report says about them (the checked release of a match, rounded scores, severities, the annotation files'
lines) and drops what only the matcher needs (a candidate's function fingerprint, the evidence in words).
The report is written, never read back into the check's values, so there is one direction.
``infralens check --format json`` and the committed ``reports/check.json`` are this record written
by :func:`infralens.reports.dumps_report`; the site reads it back through the same package.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from infralens import __version__
from infralens.drift.check import CheckReport, LockFinding
from infralens.drift.diffs import statement_diff
from infralens.drift.match.results import Candidate, StepKind, StepResult, TargetKind, TargetResult
from infralens.reports import (
    Candidate as CandidateRecord,
    DriftReport,
    DriftSeverity,
    DriftStep,
    DriftTarget,
    LockedPlace,
    LockFindingRecord,
    Scores,
    TargetPlace,
)

STEP_SEVERITY = {
    StepKind.UNCHANGED: DriftSeverity.NONE,
    StepKind.MOVED: DriftSeverity.WARNING,
    StepKind.CHANGED: DriftSeverity.WARNING,
    StepKind.DELETED: DriftSeverity.ERROR,
    StepKind.UNREADABLE: DriftSeverity.ERROR,
}
TARGET_SEVERITY = {
    TargetKind.UNCHANGED: DriftSeverity.NONE,
    TargetKind.BODY_CHANGED: DriftSeverity.NOTICE,
    TargetKind.DECORATORS_CHANGED: DriftSeverity.NOTICE,
    TargetKind.MOVED: DriftSeverity.WARNING,
    TargetKind.RENAMED: DriftSeverity.WARNING,
    TargetKind.DELETED: DriftSeverity.ERROR,
    TargetKind.UNREADABLE: DriftSeverity.ERROR,
}


def drift_record(report: CheckReport, exit_code: int) -> DriftReport:
    """The report of *report*, stamped now, with the exit code ``infralens check`` returns for it."""
    versions = {t.distribution: t.version for t in report.trees}
    return DriftReport(
        created=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        infralens=__version__,
        lock=report.lock.display,
        checked=report.trees,
        clean=report.clean,
        exit_code=exit_code,
        step_counts={kind: sum(1 for s in report.steps if s.kind is kind) for kind in StepKind},
        target_counts={kind: sum(1 for t in report.targets if t.kind is kind) for kind in TargetKind},
        steps={s.entry.step_id: _step(report, s, versions) for s in report.steps},
        targets={t.entry.id: _target(report, t) for t in report.targets},
        lock_findings=tuple(_lock_finding(f) for f in report.lock_findings),
    )


def _rounded(scores: Scores) -> Scores:
    return replace(scores, similarity=round(scores.similarity, 4), context=round(scores.context, 4), locality=round(scores.locality, 4))


def _candidate(candidate: Candidate) -> CandidateRecord:
    s = candidate.scores
    return CandidateRecord(candidate.place, s.similarity, s.context, s.locality)


def _step(report: CheckReport, step: StepResult, versions: dict[str, str]) -> DriftStep:
    e = step.entry
    diff: tuple[str, ...] = ()
    if step.kind is StepKind.CHANGED and step.new is not None:
        diff = statement_diff(e.texts, step.new.texts, "reviewed", "now")
    return DriftStep(
        annotation=e.annotation,
        file=report.annotation_path(e.annotation),
        line=report.yaml_line(e.step_id, e.yaml_line),
        kind=step.kind,
        severity=STEP_SEVERITY[step.kind],
        message=step.message,
        ambiguous=step.ambiguous,
        old=LockedPlace(e.distribution, e.version, e.relpath, e.module, e.target, e.lines, e.scope, e.texts),
        new=None if step.new is None else replace(step.new, version=versions.get(e.distribution, "unknown")),
        scores=None if step.scores is None else _rounded(step.scores),
        diff=diff,
        candidates=tuple(_candidate(c) for c in step.candidates),
        rule=step.rule,
        trace=tuple(event.describe() for event in step.trace),
    )


def _target(report: CheckReport, target: TargetResult) -> DriftTarget:
    e = target.entry
    new = target.new
    return DriftTarget(
        file=e.path,
        line=report.yaml_line(e.id, e.yaml_line),
        kind=target.kind,
        severity=TARGET_SEVERITY[target.kind],
        message=target.message,
        similarity=round(target.similarity, 4),
        old=LockedPlace(e.distribution, e.version, e.relpath, e.module, e.target, e.span),
        new=None if new is None else TargetPlace(new.relpath, new.module, new.target, new.lines),
        rule=target.rule,
    )


def _lock_finding(item: LockFinding) -> LockFindingRecord:
    return LockFindingRecord(item.kind, item.id, item.path, item.line, item.message)
