"""Render a :class:`~infralens.drift.check.CheckReport` as text, JSON or GitHub annotations.

Every format goes through :func:`findings`, one flat list of lines to report,
so the wording of ``old -> new`` is written once.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from infralens import __version__
from infralens.drift.check import CheckReport, LockFinding, LockFindingKind
from infralens.drift.entries import Place
from infralens.drift.results import Candidate, StepKind, StepResult, TargetKind, TargetResult
from infralens.source import display_lines

REPORT_FORMAT = 1
_STEP_SEVERITY = {
    StepKind.UNCHANGED: "none",
    StepKind.MOVED: "warning",
    StepKind.CHANGED: "warning",
    StepKind.DELETED: "error",
}
_TARGET_SEVERITY = {
    TargetKind.UNCHANGED: "none",
    TargetKind.BODY_CHANGED: "notice",
    TargetKind.MOVED: "warning",
    TargetKind.RENAMED: "warning",
    TargetKind.DELETED: "error",
}


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


def statement_diff(old: tuple[str, ...], new: tuple[str, ...], old_label: str, new_label: str) -> tuple[str, ...]:
    """Unified diff of statement texts (laid out readably), split at commas so edits inside long calls stand out."""
    return tuple(difflib.unified_diff(_split(old), _split(new), old_label, new_label, lineterm="", n=2))


def _split(texts: tuple[str, ...]) -> list[str]:
    lines: list[str] = []
    for text in texts:
        lines.extend(display_lines(text))
    return lines


def _candidate_text(candidate: Candidate) -> str:
    s = candidate.scores
    return f"{candidate.place.describe()} (similarity {s.similarity:.2f}, context {s.context:.2f}, locality {s.locality:.2f})"


def findings(report: CheckReport, *, everything: bool = False) -> list[Finding]:
    """Findings in file order: lock bookkeeping, targets, then steps."""
    found: list[Finding] = []
    for item in report.lock_findings:
        old = "(not in the lock)" if item.kind is LockFindingKind.UNLOCKED else "locked entry"
        new = "(not in the annotations)" if item.kind is LockFindingKind.STALE else f"{item.path}:{item.line}"
        found.append(Finding(item.path, item.line, item.id, item.kind.value, "warning", old, new, item.message + " — run 'infralens lock --update'"))
    versions = {t.distribution: t.version for t in report.trees}
    for target in report.targets:
        if target.kind is TargetKind.UNCHANGED and not everything:
            continue
        t = target.entry
        found.append(
            Finding(
                t.path,
                t.yaml_line,
                t.id,
                f"target {target.kind.value}",
                _TARGET_SEVERITY[target.kind],
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
            detail += f" [similarity {s.similarity:.2f}, context {s.context:.2f}, locality {s.locality:.2f}, quality {s.quality}, layer {step.layer}]"
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
                e.yaml_line,
                e.step_id,
                step.kind.value,
                _STEP_SEVERITY[step.kind],
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
    text = f"checked {len(report.steps)} steps of {len(report.targets)} annotations against {trees}: {parts}; {targets} target finding(s); {len(report.lock_findings)} lock finding(s)"
    return text + (" — clean" if report.clean else " — drift found")


def render_text(report: CheckReport, *, everything: bool = False) -> str:
    lines: list[str] = []
    for f in findings(report, everything=everything):
        lines.append(f"{f.path}:{f.line}: {f.id}: {f.kind}: {f.old} -> {f.new}")
        lines.append(f"    {f.detail}")
        for candidate in f.candidates:
            lines.append(f"    candidate: {candidate}")
        lines.extend(f"    {d}" for d in f.diff)
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: CheckReport) -> str:
    """GitHub Actions workflow commands (``::warning file=...,line=...::message``)."""
    lines = []
    for f in findings(report):
        level = {"error": "error", "notice": "notice"}.get(f.severity, "warning")
        body = f"{f.id}: {f.kind}: {f.old} -> {f.new}\n{f.detail}"
        if f.candidates:
            body += "\ncandidates:\n" + "\n".join(f.candidates)
        if f.diff:
            body += "\n" + "\n".join(f.diff)
        title = _escape_property(f"infralens drift: {f.kind}")
        lines.append(f"::{level} file={_escape_property(f.path)},line={f.line},title={title}::{_escape_data(body)}")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def _place_json(place: Place) -> dict[str, object]:
    return {
        "source": place.relpath,
        "module": place.module,
        "target": place.target,
        "scope": place.scope,
        "lines": list(place.lines),
        "text": list(place.texts),
    }


def _step_json(report: CheckReport, step: StepResult, versions: dict[str, str]) -> dict[str, object]:
    e = step.entry
    data: dict[str, object] = {
        "annotation": e.annotation,
        "file": report.annotation_path(e.annotation),
        "line": e.yaml_line,
        "kind": step.kind.value,
        "severity": _STEP_SEVERITY[step.kind],
        "layer": step.layer,
        "message": step.message,
        "ambiguous": step.ambiguous,
        "old": {"distribution": e.distribution, "version": e.version, **_place_json(e)},
        "new": None if step.new is None else {**_place_json(step.new), "version": versions.get(e.distribution, "unknown")},
        "scores": None,
        "diff": [],
        "candidates": [
            {**_place_json(c.place), "similarity": c.scores.similarity, "context": c.scores.context, "locality": c.scores.locality} for c in step.candidates
        ],
    }
    if step.scores is not None:
        s = step.scores
        data["scores"] = {"similarity": round(s.similarity, 4), "context": round(s.context, 4), "locality": round(s.locality, 4), "quality": s.quality}
    if step.kind is StepKind.CHANGED and step.new is not None:
        data["diff"] = list(statement_diff(e.texts, step.new.texts, "reviewed", "now"))
    return data


def _target_json(target: TargetResult) -> dict[str, object]:
    e = target.entry
    return {
        "file": e.path,
        "line": e.yaml_line,
        "kind": target.kind.value,
        "severity": _TARGET_SEVERITY[target.kind],
        "message": target.message,
        "similarity": round(target.similarity, 4),
        "old": {"distribution": e.distribution, "version": e.version, "source": e.relpath, "module": e.module, "target": e.target, "lines": list(e.span)},
        "new": None
        if target.new is None
        else {"source": target.new.relpath, "module": target.new.module, "target": target.new.target, "lines": list(target.new.lines)},
    }


def _lock_json(item: LockFinding) -> dict[str, object]:
    return {"kind": item.kind.value, "id": item.id, "file": item.path, "line": item.line, "message": item.message}


def report_json(report: CheckReport, exit_code: int) -> dict[str, object]:
    """The ``--format json`` document (see ``schema/check-report.schema.json``)."""
    versions = {t.distribution: t.version for t in report.trees}
    return {
        "format": REPORT_FORMAT,
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "infralens": __version__,
        "lock": report.lock.display,
        "checked": [{"distribution": t.distribution, "version": t.version, "origin": t.origin} for t in report.trees],
        "clean": report.clean,
        "exit_code": exit_code,
        "summary": {
            "steps": report.counts(),
            "targets": {k.value: sum(1 for t in report.targets if t.kind is k) for k in TargetKind},
            "lock": len(report.lock_findings),
        },
        "steps": {s.entry.step_id: _step_json(report, s, versions) for s in report.steps},
        "targets": {t.entry.id: _target_json(t) for t in report.targets},
        "lock_findings": [_lock_json(f) for f in report.lock_findings],
    }


def render_json(report: CheckReport, exit_code: int) -> str:
    return json.dumps(report_json(report, exit_code), indent=2, ensure_ascii=False) + "\n"
