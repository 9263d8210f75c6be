"""``infralens history``: plan, run, and print the release history as a table or JSON.

The text form is one table per distribution (a row per step, a column per release, one symbol per
cell, and the span where the step holds), then what a maintainer acts on: each step that differs
somewhere, with where it went and the diff, its releases grouped into ranges.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from infralens.drift.history.build import chosen_annotations, plan_history, run_history
from infralens.drift.lock.file import read_lock
from infralens.errors import json_text, printable_line
from infralens.project import Project
from infralens.reports import STATE_WORDS, HistoryReport, ReleaseState, describe_holding, dumps_report, release_ranges
from infralens.resolve import Resolver

SYMBOLS = {
    ReleaseState.UNCHANGED: "=",
    ReleaseState.CHANGED: "~",
    ReleaseState.MOVED: ">",
    ReleaseState.DELETED: "x",
    ReleaseState.ABSENT: ".",
    ReleaseState.UNREADABLE: "?",
}
LEGEND = "= holds as reviewed   ~ changed   > moved   x deleted   . not yet present   ? unreadable"


@dataclass(frozen=True)
class HistoryRequest:
    """What ``infralens history`` was asked."""

    ids: tuple[str, ...]
    since: tuple[str, ...]
    until: tuple[str, ...]
    offline: bool
    json: bool
    quiet: bool = False
    per_series: bool = False
    walk: bool = False
    """``--walk``: reach each release from the lock's through the planned releases in between."""


def history(request: HistoryRequest, project: Project, resolver: Resolver) -> str:
    """The history of the requested steps, rendered as the request asks (progress goes to stderr)."""
    lock = read_lock(project.lock_path, project.relative(project.lock_path))
    annotations = chosen_annotations(lock, request.ids)
    progress = None if request.quiet else _progress
    plans = plan_history(annotations, request.since, request.until, offline=request.offline, per_series=request.per_series, progress=progress)
    for plan in plans:
        if plan.note and not request.quiet:
            print(printable_line(f"infralens history: {plan.distribution}: {plan.note}"), file=sys.stderr)
    step_ids = {i for i in request.ids if "/" in i} if all("/" in i for i in request.ids) else set()
    report = run_history(project, resolver, lock, annotations, plans, step_ids=step_ids, progress=progress, walk=request.walk)
    if sys.stderr.isatty() and progress:
        print("\r\033[K", end="", file=sys.stderr)
    return json_text(dumps_report(report)) if request.json else render_text(report, offline=request.offline)


def _progress(message: str) -> None:
    if sys.stderr.isatty():
        print(f"\r\033[K{printable_line(message)}", end="", file=sys.stderr, flush=True)  # release names come from the registry


def render_text(report: HistoryReport, *, offline: bool = True) -> str:
    lines: list[str] = []
    for span in report.spans:
        annotations = [a for a in report.annotations if a.distribution == span.distribution]
        steps = [(a, s) for a in annotations for s in a.steps]
        first, last = (span.releases[0], span.releases[-1]) if span.releases else ("-", "-")
        lines.append(f"{span.distribution}: {len(span.releases)} releases ({first} … {last}), notes reviewed against {span.baseline}")
        if span.missing:
            hint = "run without --offline to fetch" if offline else "could not be fetched: see the note above; run again to retry"
            lines.append(f"  not read (no cached wheel; {hint}): {', '.join(span.missing)}")
        if not span.releases:
            lines.append("")
            continue
        width = max([len(s.id) for _, s in steps] + [4])
        header = "step".ljust(width) + "  " + " ".join(r.center(max(len(r), 3)) for r in span.releases) + "  holds"
        lines += [f"  {LEGEND}", "", header, "-" * len(header)]
        for _, step in steps:
            cells = " ".join(SYMBOLS[state].center(max(len(r), 3)) for state, r in zip(step.states, span.releases, strict=True))
            lines.append(f"{step.id.ljust(width)}  {cells}  {describe_holding(step.states, span.releases, span.baseline)}")
        lines.append("")
        differing = [(a, s) for a, s in steps if s.differences]
        for annotation, step in differing:
            lines.append(f"{annotation.path}:{step.line}: {step.id}")
            for difference in step.differences:
                where = f": {difference.where}" if difference.where else ""
                lines.append(f"    {STATE_WORDS[difference.state]} in {release_ranges(difference.releases, span.releases)}{where} — {difference.message}")
                lines.extend(f"        {d}" for d in difference.diff)
        holding = sum(1 for _, s in steps if all(state.holds for state in s.states))
        lines.append(f"{span.distribution}: {len(steps)} steps over {len(span.releases)} releases: {holding} hold in all, {len(differing)} differ somewhere")
        lines.append("")
    return "\n".join(printable_line(line) for line in lines).rstrip("\n") + "\n"  # names and diffs come from upstream wheels
