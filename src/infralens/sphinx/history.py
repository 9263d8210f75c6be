"""Release history on the site, from ``reports/history.json`` (``make history``).

Three views of one report: the compatibility matrix page (annotations × releases, a cell per
release coloured by state, each differing cell linking to the diff), a strip in every
annotated-function header ("holds in 0.35.0–0.42.1; changed in 0.34.0"), and a "Release history"
section on each function page with every changed step's diff. Notes carry their states per release
(``data-il-states``) so ``infralens-history.js`` can flag the ones that do not hold in the release a
learner picks. The installed release (the report's baseline) is marked: its matrix column
(``il-installed``, which the script scrolls into view) and the strip's ``data-il-installed``. Where
``reports/history-runs.json`` says the scenarios were *run* on a release, its cells also carry a run mark
(:mod:`.history_runs`), the strip says how the claims fared there and notes carry ``data-il-runs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from infralens.reports import (
    STATE_WORDS,
    AnnotationHistory,
    HistoryReport,
    ReleaseSpan,
    ReleaseState,
    StepHistory,
    describe_holding,
    release_ranges,
    worst_state,
)
from infralens.sphinx.history_runs import LEGEND as RUNS_LEGEND, Runs, ordered
from infralens.sphinx.myst_text import code, fenced, text

LETTERS = {
    ReleaseState.UNCHANGED: "u",
    ReleaseState.MOVED: "m",
    ReleaseState.CHANGED: "c",
    ReleaseState.DELETED: "d",
    ReleaseState.ABSENT: "a",
    ReleaseState.UNREADABLE: "r",
}
"""One letter per state in ``data-il-states`` and in the cells' CSS classes (``il-h-c``…)."""
LEGEND = (
    '<p class="il-history-legend">'
    + " ".join(f'<span class="il-h il-h-{LETTERS[s]}"></span> {escape(STATE_WORDS[s])}' for s in ReleaseState if s is not ReleaseState.UNREADABLE)
    + "</p>"
)


def anchor(annotation_id: str) -> str:
    """The id of an annotation's part of the "Release history" section on its function page."""
    return "il-history-" + "".join(c if c.isalnum() else "-" for c in annotation_id.lower())


@dataclass(frozen=True)
class History:
    """The report, looked up by distribution, annotation and step."""

    report: HistoryReport
    annotations: dict[str, AnnotationHistory]
    steps: dict[str, StepHistory]
    runs: Runs | None = None
    """``history-runs.json``: which claims held when run on a few releases (None without one)."""

    @classmethod
    def of(cls, report: HistoryReport, runs: Runs | None = None) -> History:
        steps = {step.id: step for annotation in report.annotations for step in annotation.steps}
        return cls(report, {a.id: a for a in report.annotations}, steps, runs)

    def _step_ids(self, annotation_ids: list[str]) -> list[str]:
        return [step.id for i in annotation_ids if i in self.annotations for step in self.annotations[i].steps]

    def _order(self, span: ReleaseSpan) -> tuple[str, ...]:
        return ordered(span.releases, self.runs.releases.get(span.distribution, ()) if self.runs else ())

    def span(self, distribution: str) -> ReleaseSpan | None:
        found = self.report.span(distribution)
        return found if found is not None and found.releases else None

    def note_attributes(self, distribution: str, step_id: str) -> dict[str, str]:
        """``data-il-dist`` and ``data-il-states`` for a note (empty when the step is not in the report)."""
        step = self.steps.get(step_id)
        if step is None or self.span(distribution) is None:
            return {}
        found = {"data-il-dist": distribution, "data-il-states": "".join(LETTERS[s] for s in step.states)}
        runs = self.runs.note_value(distribution, step_id) if self.runs else ""
        return found | ({"data-il-runs": runs} if runs else {})

    def strip(self, distribution: str, annotation_ids: list[str], link: str | None) -> str:
        """The header strip: one cell per release (the worst state of the function's notes), the holding span, a release picker slot."""
        span = self.span(distribution)
        rows = [self.annotations[i] for i in annotation_ids if i in self.annotations]
        if span is None or not rows:
            return ""
        states = tuple(worst_state([row.states[position] for row in rows]) for position in range(len(span.releases)))
        step_ids = self._step_ids(annotation_ids)
        marks = [self.runs.mark(step_ids, release, spoken=False) if self.runs else ("", "") for release in span.releases]
        cells = "".join(_cell(release, state, mark) for release, state, mark in zip(span.releases, states, marks, strict=True))
        more = f' · <a class="reference internal" href="{escape(link)}">release history</a>' if link else ""
        ran = self.runs.sentence(distribution, step_ids, self._order(span)) if self.runs else ""
        more = (f' · <span class="il-history-runs">when run: {escape(ran)}</span>' if ran else "") + more
        return (
            f'<div class="il-history" data-il-dist="{escape(distribution)}" data-il-releases="{escape(" ".join(span.releases))}" '
            f'data-il-installed="{escape(span.baseline)}">'
            f'<span class="il-history-cells" role="img" aria-label="{escape(_aria(span, states))}">{cells}</span> '
            f'<span class="il-history-text">{escape(distribution)} {escape(describe_holding(states, span.releases, span.baseline))}{more}</span></div>'
        )

    def section(self, distribution: str, annotation_ids: list[str]) -> str:
        """The "Release history" section of a function page (MyST), or "" without a report for it."""
        span = self.span(distribution)
        rows = [self.annotations[i] for i in annotation_ids if i in self.annotations]
        if span is None or not rows:
            return ""
        lines = [
            "## Release history",
            "",
            f"Each note checked against {len(span.releases)} {text(distribution)} releases ({text(span.releases[0])} … {text(span.releases[-1])}; "
            f"reviewed against {text(span.baseline)}), from `reports/history.json`; see {{doc}}`the matrix <{_matrix_from_function()}>`.",
            "",
        ]
        run_line = self.runs.run_line(distribution) if self.runs else ""
        if run_line:
            lines += [run_line + " A mark in a release's cell says how the claims fared when run there.", "", *fenced("{raw} html", [RUNS_LEGEND]), ""]
        for row in rows:
            lines += [*fenced("{raw} html", [f'<span id="{anchor(row.id)}"></span>']), "", f"### {code(row.id)}", ""]
            lines += [*fenced("{raw} html", [self.strip(distribution, [row.id], None)]), ""]
            if self.runs:
                lines += self.runs.step_lines(distribution, [step.id for step in row.steps], self._order(span))
            differing = [step for step in row.steps if step.differences]
            holding = len(row.steps) - len(differing)
            lines += [f"{holding} of {len(row.steps)} notes hold in every release read." + (" The others:" if differing else ""), ""]
            for step in differing:
                lines += [f"- **{code(step.id)}** — {text(describe_holding(step.states, span.releases, span.baseline))}", ""]
                for difference in step.differences:
                    where = f" at {code(difference.where)}" if difference.where else ""
                    ranges = text(release_ranges(difference.releases, span.releases))
                    lines += [f"  {text(STATE_WORDS[difference.state])} in {ranges}{where}: {text(difference.message)}", ""]
                    if difference.diff:
                        lines += [*fenced("diff", list(difference.diff), indent="  "), ""]
        return "\n".join(lines)

    def matrix_page(self, function_pages: dict[str, str], generated_dir: str) -> str:
        """The compatibility matrix (MyST with one HTML table per distribution)."""
        lines = ["# Release compatibility", ""]
        lines += [
            "Which upstream releases each annotation's notes hold in: every locked statement re-found in every final "
            f"release by the same classifier as `infralens check` (`reports/history.json`, made by {text(self.report.generated_by)}; "
            "refresh it with `make history`). A cell shows the worst state of the annotation's notes in that release; "
            "a cell that is not *holds* links to the diff on the function's page.",
            "",
            *fenced("{raw} html", [LEGEND]),
            "",
        ]
        if self.runs and self.runs.summary.series:
            lines += [
                "A mark inside a cell: the annotation's scenarios were *run* on that release (`infralens verify --against`, "
                "summarized in `reports/history-runs.json` by `make history-verify`), and it shows how its claims fared there, "
                "beside the colour that says where its statements are. Hover a cell for the counts; each function's page lists every note's runs.",
                "",
                *fenced("{raw} html", [RUNS_LEGEND]),
                "",
            ]
        for span in self.report.spans:
            rows = [a for a in self.report.annotations if a.distribution == span.distribution]
            if not span.releases or not rows:
                continue
            everywhere = sum(1 for row in rows if all(s.holds for s in row.states))
            lines += [f"## {text(span.distribution)}", ""]
            first, last, baseline = text(span.releases[0]), text(span.releases[-1]), text(span.baseline)
            lines += [f"{len(rows)} annotations over {len(span.releases)} releases ({first} … {last}); reviewed against {baseline}."]
            lines += [f"{everywhere} hold in all of them."]
            if span.baseline in span.releases:
                lines += [f"The outlined column is the installed release, {baseline}, the one the notes are written against."]
            if span.missing:
                lines += [f"Not read: {', '.join(text(release) for release in span.missing)}."]
            run_line = self.runs.run_line(span.distribution) if self.runs else ""
            if run_line:
                lines += [run_line]
            lines += ["", *fenced("{raw} html", [_table(span, rows, function_pages, generated_dir, self.runs)]), ""]
        return "\n".join(lines)


def _matrix_from_function() -> str:
    return "../../history"  # function pages live in <generated>/source/<dist>/


def _cell(release: str, state: ReleaseState, mark: tuple[str, str] = ("", "")) -> str:
    html, words = mark
    title = f"{release}: {STATE_WORDS[state]}" + (f"; {words}" if words else "")
    ran = " il-h-ran" if html else ""
    return f'<span class="il-h il-h-{LETTERS[state]}{ran}" title="{escape(title)}">{html}</span>'


def _aria(span: ReleaseSpan, states: tuple[ReleaseState, ...]) -> str:
    return "; ".join(
        f"{STATE_WORDS[state]} in {release_ranges([r for r, s in zip(span.releases, states, strict=True) if s is state], span.releases)}"
        for state in dict.fromkeys(states)
    )


def _table(span: ReleaseSpan, rows: list[AnnotationHistory], function_pages: dict[str, str], generated_dir: str, runs: Runs | None = None) -> str:
    head = "".join(_column_head(r, r == span.baseline) for r in span.releases)
    columns = "".join('<col class="il-installed">' if r == span.baseline else "<col>" for r in span.releases)
    body = []
    for row in sorted(rows, key=lambda a: a.id):
        page = function_pages.get(row.target)
        href = page.removeprefix(f"{generated_dir}/") + ".html" if page else None
        name = f'<a href="{escape(href)}#{anchor(row.id)}">{escape(row.id)}</a>' if href else escape(row.id)
        cells = []
        step_ids = [step.id for step in row.steps]
        for release, state in zip(span.releases, row.states, strict=True):
            mark, words = runs.mark(step_ids, release) if runs else ("", "")
            title = f"{row.id} in {release}: {STATE_WORDS[state]}" + (f"; {words}" if words else "")
            css = f"il-h-{LETTERS[state]}" + (" il-h-ran" if mark else "")
            if state.holds or href is None:
                cells.append(f'<td class="{css}" title="{escape(title)}">{mark}</td>')
            else:
                cells.append(f'<td class="{css}"><a href="{escape(href)}#{anchor(row.id)}" title="{escape(title)}">{mark}</a></td>')
        body.append(f'<tr><th scope="row">{name}</th>{"".join(cells)}</tr>')
    return (
        f'<div class="il-matrix-wrap"><table class="il-matrix"><colgroup><col>{columns}</colgroup><thead><tr><th scope="col">annotation</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _column_head(release: str, installed: bool) -> str:
    """A release's column head; the installed release's says so (the page opens scrolled to it)."""
    if not installed:
        return f'<th scope="col"><span>{escape(release)}</span></th>'
    return f'<th scope="col" class="il-installed" title="installed: the release the notes are written against"><span>{escape(release)} installed</span></th>'
