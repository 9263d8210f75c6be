"""Render a :class:`~infralens.drift.check.CheckReport` as text, JSON or GitHub annotations.

Every format goes through :func:`findings`, one flat list of lines to report,
so the wording of ``old -> new`` is written once.
"""

from __future__ import annotations

from dataclasses import dataclass

from infralens.ci_output import CiCase, Outcome, in_repository, render
from infralens.drift.check import CheckReport, LockFindingKind
from infralens.drift.diffs import statement_diff
from infralens.drift.lock.entries import Place
from infralens.drift.match.results import Candidate, StepKind, StepResult, TargetKind
from infralens.drift.record import STEP_SEVERITY, TARGET_SEVERITY, drift_record
from infralens.errors import github_data, github_property, json_text, printable_line
from infralens.reports import dumps_report


@dataclass(frozen=True)
class Finding:
    """One reportable line: where in the annotations, which id, what happened."""

    path: str
    line: int
    id: str
    kind: str
    severity: str
    old: str
    new: str
    detail: str
    diff: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()


def _old_step(step: StepResult) -> str:
    e = step.entry
    return f"{e.relpath}:{e.lines[0]} {e.target}"


def _new(place: Place | None) -> str:
    return place.describe() if place else "(nothing)"


def _candidate_text(candidate: Candidate) -> str:
    s = candidate.scores
    return f"{candidate.place.describe()} (similarity {s.similarity:.2f}, context {s.context:.2f}, locality {s.locality:.2f})"


def findings(report: CheckReport, *, everything: bool = False) -> list[Finding]:
    """Findings in file order: lock bookkeeping, targets, then steps."""
    found: list[Finding] = []
    for item in report.lock_findings:
        old = "(not in the lock)" if item.kind is LockFindingKind.UNLOCKED else "locked entry"
        new = "(not in the annotations)" if item.kind is LockFindingKind.STALE else f"{item.path}:{item.line}"
        todo = {
            LockFindingKind.UNDER_REVIEW: "re-read the note against the code, then remove its 'review:' line",
            LockFindingKind.TODO: "write it, then remove TODO",
        }.get(item.kind, "run 'infralens lock --update'")
        found.append(Finding(item.path, item.line, item.id, item.kind.value, "warning", old, new, f"{item.message} — {todo}"))
    versions = {t.distribution: t.version for t in report.trees}
    for target in report.targets:
        if target.kind is TargetKind.UNCHANGED and not everything:
            continue
        t = target.entry
        found.append(
            Finding(
                t.path,
                report.yaml_line(t.id, t.yaml_line),
                t.id,
                f"target {target.kind.value}",
                TARGET_SEVERITY[target.kind].value,
                f"{t.relpath}:{t.span[0]} {t.target}",
                _new(target.new),
                target.message,
            )
        )
    for step in report.steps:
        if step.kind is StepKind.UNCHANGED and not everything:
            continue
        e = step.entry
        detail = step.message
        if step.scores is not None:
            s = step.scores
            detail += f" [similarity {s.similarity:.2f}, context {s.context:.2f}, locality {s.locality:.2f}, quality {s.quality.value}, rule {step.rule}]"
        elif step.rule:
            detail += f" [rule {step.rule}]"
        diff: tuple[str, ...] = ()
        if step.kind is StepKind.CHANGED and step.new is not None:
            now = versions.get(e.distribution, "?")
            diff = statement_diff(
                e.texts,
                step.new.texts,
                f"reviewed ({e.distribution} {e.version}) {e.relpath}:{e.lines[0]}",
                f"now ({e.distribution} {now}) {step.new.relpath}:{step.new.lines[0]}",
            )
        found.append(
            Finding(
                report.annotation_path(e.annotation),
                report.yaml_line(e.step_id, e.yaml_line),
                e.step_id,
                step.kind.value,
                STEP_SEVERITY[step.kind].value,
                _old_step(step),
                _new(step.new),
                detail,
                diff,
                tuple(_candidate_text(c) for c in step.candidates),
            )
        )
    found.sort(key=lambda f: (f.path, f.line, f.id))
    return found


def summary(report: CheckReport) -> str:
    counts = report.counts()
    trees = ", ".join(f"{t.distribution} {t.version}" for t in report.trees) or "nothing"
    parts = ", ".join(f"{n} {k}" for k, n in counts.items())
    targets = len(report.target_findings)
    text = (
        f"checked {len(report.steps)} steps of {len(report.targets)} annotations against {trees}: {parts}; "
        f"{targets} target finding(s); {len(report.lock_findings)} lock finding(s)"
    )
    return text + (" — clean" if report.clean else " — drift found")


def explain(report: CheckReport, step_id: str) -> str:
    """``check --explain STEP``: the rule that decided each matching step, the evidence it weighed, its target's rule,
    and the chain of every rule that fired, vetoed, removed a candidate or was switched off, in order."""
    lines = []
    for step in report.steps:
        if step_id not in (step.entry.step_id, step.entry.annotation):
            continue
        lines.append(f"explain {step.entry.step_id}: {step.kind.value} by rule {step.rule!r}: {step.message}")
        lines.append(f"    evidence: {step.evidence or 'none (nothing corresponds)'}")
        lines.append(f"    now: {_new(step.new)}")
        lines.extend(f"    candidate: {_candidate_text(c)}" for c in step.candidates)
        target = next((t for t in report.targets if t.entry.id == step.entry.annotation), None)
        if target is not None:
            lines.append(f"    target {target.entry.target}: {target.kind.value} by rule {target.rule!r}: {target.message}")
        lines.append("    rules, in order:")
        lines.extend(f"      {n}. {event.describe()}" for n, event in enumerate(step.trace, 1))
    lines = lines or [f"explain {step_id}: not checked"]
    return "\n".join(printable_line(line) for line in lines) + "\n"  # places, statements and evidence come from upstream


def render_text(report: CheckReport, *, everything: bool = False) -> str:
    lines: list[str] = []
    for f in findings(report, everything=everything):
        lines.append(f"{f.path}:{f.line}: {f.id}: {f.kind}: {f.old} -> {f.new}")
        lines.append(f"    {f.detail}")
        for candidate in f.candidates:
            lines.append(f"    candidate: {candidate}")
        lines.extend(f"    {d}" for d in f.diff)
    lines.append(summary(report))
    return "\n".join(printable_line(line) for line in lines) + "\n"  # file names, targets and diffs come from upstream


def render_github(report: CheckReport, prefix: str = "") -> str:
    """GitHub Actions workflow commands (``::warning file=...,line=...::message``), each one log line whose fields
    cannot start another command (see :func:`infralens.errors.github_data`); the summary is a plain line.
    *prefix*: the project's folder inside its git repository (:func:`infralens.ci_output.repository_prefix`), so
    that the paths are the repository's and GitHub places the annotations on the pull request's files."""
    lines = []
    for f in findings(report):
        level = {"error": "error", "notice": "notice"}.get(f.severity, "warning")
        body = f"{f.id}: {f.kind}: {f.old} -> {f.new}\n{f.detail}"
        if f.candidates:
            body += "\ncandidates:\n" + "\n".join(f.candidates)
        if f.diff:
            body += "\n" + "\n".join(f.diff)
        title = github_property(f"infralens drift: {f.kind}")
        lines.append(f"::{level} file={github_property(in_repository(f.path, prefix))},line={f.line},title={title}::{github_data(body)}")
    lines.append(printable_line(summary(report)))  # the checked versions come from upstream metadata
    return "\n".join(lines) + "\n"


def ci_cases(report: CheckReport) -> list[CiCase]:
    """Every checked step, target and lock finding as a CI case: a finding that makes the check fail is a failed
    case (a notice only under ``--strict``), every unchanged step a passed one."""
    cases = []
    for f in findings(report, everything=True):
        failing = f.severity in ("warning", "error") or (f.severity == "notice" and report.strict)
        level = f.severity if f.severity in ("error", "warning", "notice") else "error"
        body = f"{f.kind}: {f.old} -> {f.new}\n{f.detail}"
        if f.candidates:
            body += "\ncandidates:\n" + "\n".join(f.candidates)
        if f.diff:
            body += "\n" + "\n".join(f.diff)
        outcome = Outcome.FAILED if failing else Outcome.PASSED
        cases.append(CiCase(f.id, f.path, f.path, f.line, outcome, level, f"drift/{f.kind.replace(' ', '-')}", f"infralens drift: {f.kind}", body))
    return cases


def render_ci(report: CheckReport, fmt: str, prefix: str) -> str:
    """``check --format junit`` or ``sarif`` (:mod:`infralens.ci_output`)."""
    from infralens import __version__

    return render(fmt, ci_cases(report), tool="check", prefix=prefix, summary=summary(report), version=__version__)


def report_json(report: CheckReport, exit_code: int) -> dict[str, object]:
    """The ``--format json`` document (its schema: ``infralens/reports/schema/reports.schema.json``)."""
    return drift_record(report, exit_code).to_json()


def render_json(report: CheckReport, exit_code: int) -> str:
    """The JSON report as printed: valid UTF-8 and inert in a log whatever file names and statements hold."""
    return json_text(dumps_report(drift_record(report, exit_code)))
