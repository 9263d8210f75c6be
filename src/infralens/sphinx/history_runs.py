"""Runs on other releases, beside the release history: ``reports/history-runs.json`` on the site.

The release history (:mod:`.history`) says where each note's statement *is* in every release, read
statically. ``infralens history --runs`` (after ``make history-verify``) adds, for the few releases the
scenarios were run on, whether each claim *held when run* there. This module draws that beside the
history: a mark inside the release's cell of the strip and of the matrix (``▶`` held, ``✗`` failed, …,
:data:`~infralens.reports.RUN_MARKS`), a sentence after the strip ("when run: held on 0.39.0–0.41.0;
failed on 0.38.0"), a list per step on the function page, and ``data-il-runs`` on each note for the
release picker. Every mark has its words beside it, visible or for screen readers; every value from the
file is escaped. A summary that is missing (while ``verify-against/`` holds reports) or does not load is
a warning naming the file, and the site is built without it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from infralens.reports import RUN_MARKS, RUN_WORDS, HistoryRuns, ReportError, RunCell, RunState, load_history_runs, release_key, release_ranges
from infralens.sphinx.myst_text import code, text
from infralens.sphinx.warnings import Subtype, warn

RUNS_FILE = "history-runs.json"
ORDER = (RunState.FAILED, RunState.NOT_RUN, RunState.HELD, RunState.RAN, RunState.ABSENT)
"""Which state stands for several steps on one release: the first of these any of them has."""
SHOWN = (RunState.HELD, RunState.FAILED, RunState.NOT_RUN, RunState.RAN, RunState.ABSENT)
"""The order states are named in: legend, counts, sentences."""
LEGEND = (
    '<p class="il-history-legend il-runs-legend">When run: '
    + " ".join(f'<span class="il-run-key il-run-{s.letter}" aria-hidden="true">{RUN_MARKS[s]}</span> {escape(RUN_WORDS[s])}' for s in SHOWN)
    + "</p>"
)


def overall(counts: Counter[RunState]) -> RunState | None:
    """The state that stands for several steps on one release (None when none of them was run there)."""
    return next((state for state in ORDER if counts[state]), None)


def counted(counts: Counter[RunState]) -> str:
    """``5 held, 2 not in this release``."""
    return ", ".join(f"{counts[s]} {RUN_WORDS[s]}" for s in SHOWN if counts[s])


@dataclass(frozen=True)
class Runs:
    """The summary, looked up by distribution, step and release."""

    summary: HistoryRuns
    source: str
    """The file, as the site names it."""
    cells: dict[str, dict[str, RunCell]]
    """step id → release → its cell."""
    releases: dict[str, tuple[str, ...]]
    """distribution → the releases run, oldest first."""

    @classmethod
    def of(cls, summary: HistoryRuns, source: str = f"reports/{RUNS_FILE}") -> Runs:
        cells: dict[str, dict[str, RunCell]] = {}
        for series in summary.series:
            for step in series.steps:
                cells[step.id] = dict(zip(series.releases, step.runs, strict=True))
        return cls(summary, source, cells, {s.distribution: s.releases for s in summary.series})

    def counts(self, step_ids: Iterable[str], release: str) -> Counter[RunState]:
        """How many of the steps were in each state on ``release`` (steps never run there are not counted)."""
        found: Counter[RunState] = Counter()
        for step_id in step_ids:
            cell = self.cells.get(step_id, {}).get(release)
            if cell is not None:
                found[cell.state] += 1
        return found

    def note_value(self, distribution: str, step_id: str) -> str:
        """``0.38.0=f 0.39.0=h``: the note's state per release run (``data-il-runs``), or ""."""
        cells = self.cells.get(step_id, {})
        return " ".join(f"{release}={cells[release].state.letter}" for release in self.releases.get(distribution, ()) if release in cells)

    def sentence(self, distribution: str, step_ids: Sequence[str], order: Sequence[str]) -> str:
        """``held on 0.39.0–0.41.0; failed on 0.38.0`` for the steps taken together, or "" when none was run."""
        states = {release: overall(self.counts(step_ids, release)) for release in self.releases.get(distribution, ())}
        return _grouped({r: s for r, s in states.items() if s is not None}, order)

    def mark(self, step_ids: Sequence[str], release: str, *, spoken: bool = True) -> tuple[str, str]:
        """``(html inside the release's cell, words for its title)`` for the steps on ``release``; ``("", "")`` when not run there.

        ``spoken``: the words also go in the cell for screen readers (not inside a ``role="img"`` strip, which has its own label).
        """
        counts = self.counts(step_ids, release)
        state = overall(counts)
        if state is None:
            return "", ""
        words = f"when run: {counted(counts)}"
        html = f'<span class="il-run il-run-{state.letter}" aria-hidden="true">{RUN_MARKS[state]}</span>'
        if spoken:
            html += f'<span class="il-sr">{escape(words)}</span>'
        return html, words

    def run_line(self, distribution: str) -> str:
        """One line of MyST naming the runs of ``distribution`` (for the matrix and the function pages)."""
        series = self.summary.of(distribution)
        if series is None:
            return ""
        dates = sorted({run.created[:10] for run in series.runs})
        devices = sorted({run.device for run in series.runs})
        return (
            f"Run with `infralens verify --against` on {len(series.runs)} {text(distribution)} releases "
            f"({', '.join(text(r) for r in series.releases)}; {text(', '.join(devices))}, {text(' and '.join(dates))}), from {code(self.source)}."
        )

    def step_lines(self, distribution: str, step_ids: Sequence[str], order: Sequence[str]) -> list[str]:
        """MyST for the function page: which releases each step's claim was run on and how it went; the ones that always held in one sentence."""
        releases = self.releases.get(distribution, ())
        run = [step_id for step_id in step_ids if any(r in self.cells.get(step_id, {}) for r in releases)]
        if not run:
            return []
        steady = [s for s in run if all(c.state is RunState.HELD for c in self.cells[s].values())]
        others = [s for s in run if s not in steady]
        head = f"When run: {len(steady)} of {len(run)} notes held on every release they were run on."
        lines = [head + (" The others:" if others else ""), ""]
        for step_id in others:
            cells = self.cells[step_id]
            lines += [f"- **{code(step_id)}** — {text(_grouped({r: c.state for r, c in cells.items()}, order))}", ""]
            reasons: dict[tuple[RunState, str], list[str]] = {}
            for release, cell in cells.items():
                if cell.reason:
                    reasons.setdefault((cell.state, cell.reason), []).append(release)
            for (state, reason), where in reasons.items():
                lines += [f"  {text(RUN_WORDS[state])} on {text(release_ranges(where, tuple(order)))}: {text(reason)}", ""]
        return lines


def ordered(*groups: Iterable[str]) -> tuple[str, ...]:
    """Every release of the groups once, oldest first (so that ranges break where a release was not run)."""
    return tuple(sorted(set().union(*groups), key=release_key))


def _grouped(states: dict[str, RunState], order: Sequence[str]) -> str:
    parts = []
    for state in SHOWN:
        where = [r for r, s in states.items() if s is state]
        if where:
            parts.append(f"{RUN_MARKS[state]} {RUN_WORDS[state]} on {release_ranges(where, tuple(order))}")
    return "; ".join(parts)


def load_runs(folder: Path, files: list[str]) -> Runs | None:
    """The summary in ``folder`` (its path added to ``files``), or None with a warning naming the file when it cannot be used."""
    path = folder / RUNS_FILE
    if not path.is_file():
        against = folder / "verify-against"
        if against.is_dir() and any(against.glob("*.json")):
            warn(
                f"no {RUNS_FILE} beside the reports in {against.name}/; runs on other releases are not shown "
                f"(write it: infralens history --runs {against.name}/*.json --output {RUNS_FILE})",
                Subtype.REPORT,
                (str(path), 0),
            )
        return None
    files.append(str(path))
    try:
        return Runs.of(load_history_runs(path), f"{folder.name}/{RUNS_FILE}")
    except ReportError as error:
        warn(f"cannot read report: {error.reason}; runs on other releases are not shown", Subtype.REPORT, (str(error.path), error.line))
        return None
