"""``infralens history``: plan, run, and print the release history as a table or JSON.

The text form is one table per distribution (a row per step, a column per release, one symbol per
cell, and the span where the step holds), then what a maintainer acts on: each step that differs
somewhere, with where it went and the diff, its releases grouped into ranges.
"""

from __future__ import annotations

import sys
from collections.abc import Collection
from dataclasses import dataclass

from infralens.drift.history import chosen_annotations, plan_history, run_history
from infralens.drift.lock import read_lock
from infralens.project import Project
from infralens.reports import HistoryReport, ReleaseSpan, ReleaseState, StepHistory, dumps_report
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


def history(request: HistoryRequest, project: Project, resolver: Resolver) -> str:
    """The history of the requested steps, rendered as the request asks (progress goes to stderr)."""
    lock = read_lock(project.lock_path, project.relative(project.lock_path))
    annotations = chosen_annotations(lock, request.ids)
    progress = None if request.quiet else _progress
    plans = plan_history(annotations, request.since, request.until, offline=request.offline, per_series=request.per_series, progress=progress)
    for plan in plans:
        if plan.note and not request.quiet:
            print(f"infralens history: {plan.distribution}: {plan.note}", file=sys.stderr)
    step_ids = {i for i in request.ids if "/" in i} if all("/" in i for i in request.ids) else set()
    report = run_history(project, resolver, lock, annotations, plans, step_ids=step_ids, progress=progress)
    if sys.stderr.isatty() and progress:
        print("\r\033[K", end="", file=sys.stderr)
    return dumps_report(report) if request.json else render_text(report)


def _progress(message: str) -> None:
    if sys.stderr.isatty():
        print(f"\r\033[K{message}", end="", file=sys.stderr, flush=True)


def release_ranges(chosen: Collection[str], releases: tuple[str, ...]) -> str:
    """``0.30.0–0.33.1, 0.35.0``: the chosen releases as runs of consecutive ones."""
    runs: list[list[str]] = []
    previous = -2
    for position, release in enumerate(releases):
        if release not in chosen:
            continue
        if position == previous + 1:
            runs[-1].append(release)
        else:
            runs.append([release])
        previous = position
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)


def holds_text(step: StepHistory, span: ReleaseSpan) -> str:
    """``holds in 0.35.0–0.42.1; changed in 0.34.0`` (or that it holds in none of the releases read)."""
    if step.holds_from is None:
        return "holds in none of these releases"
    text = f"holds in {step.holds_from}" if step.holds_from == step.holds_to else f"holds in {step.holds_from}–{step.holds_to}"
    if step.before is not None:
        state = step.state_in(span.releases, step.before)
        text += f"; {_state_words(state)} in {step.before}"
    if step.holds_to != span.releases[-1]:
        after = span.releases[span.releases.index(step.holds_to) + 1] if step.holds_to else None
        if after:
            text += f"; {_state_words(step.state_in(span.releases, after))} in {after}"
    return text


def _state_words(state: ReleaseState | None) -> str:
    return "not yet present" if state is ReleaseState.ABSENT else (state.value if state else "?")


def render_text(report: HistoryReport) -> str:
    lines: list[str] = []
    for span in report.spans:
        annotations = [a for a in report.annotations if a.distribution == span.distribution]
        steps = [(a, s) for a in annotations for s in a.steps]
        first, last = (span.releases[0], span.releases[-1]) if span.releases else ("-", "-")
        lines.append(f"{span.distribution}: {len(span.releases)} releases ({first} … {last}), notes reviewed against {span.baseline}")
        if span.missing:
            lines.append(f"  not read (no cached wheel; run without --offline to fetch): {', '.join(span.missing)}")
        if not span.releases:
            lines.append("")
            continue
        width = max([len(s.id) for _, s in steps] + [4])
        header = "step".ljust(width) + "  " + " ".join(r.center(max(len(r), 3)) for r in span.releases) + "  holds"
        lines += [f"  {LEGEND}", "", header, "-" * len(header)]
        for _, step in steps:
            cells = " ".join(SYMBOLS[state].center(max(len(r), 3)) for state, r in zip(step.states, span.releases, strict=True))
            lines.append(f"{step.id.ljust(width)}  {cells}  {holds_text(step, span)}")
        lines.append("")
        differing = [(a, s) for a, s in steps if s.differences]
        for annotation, step in differing:
            lines.append(f"{annotation.path}:{step.line}: {step.id}")
            for difference in step.differences:
                where = f": {difference.where}" if difference.where else ""
                lines.append(f"    {_state_words(difference.state)} in {release_ranges(difference.releases, span.releases)}{where} — {difference.message}")
                lines.extend(f"        {d}" for d in difference.diff)
        holding = sum(1 for _, s in steps if all(state.holds for state in s.states))
        lines.append(f"{span.distribution}: {len(steps)} steps over {len(span.releases)} releases: {holding} hold in all, {len(differing)} differ somewhere")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
