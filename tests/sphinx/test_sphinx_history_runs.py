"""Runs on other releases on the site: run marks beside the release history, from ``reports/history-runs.json``."""

from __future__ import annotations

import dataclasses
import json
import re
from io import StringIO
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from infralens.reports import (
    AnnotationHistory,
    HistoryReport,
    HistoryRuns,
    ReleaseRun,
    ReleaseSpan,
    ReleaseState as S,
    RunCell,
    RunSeries,
    RunState as R,
    ScenarioStatus,
    StepHistory,
    StepRuns,
    dumps_report,
)
from infralens.sphinx.badges import load_reports
from infralens.sphinx.history import History
from infralens.sphinx.history_runs import Runs

ROOT = Path(__file__).resolve().parents[2]
RELEASES = ("1.1.0", "1.2.0", "1.2.3")


def _history() -> HistoryReport:
    signal = StepHistory("toy-blend/signal", 8, (S.UNCHANGED,) * 3, "1.1.0", "1.2.3", None, ())
    result = StepHistory("toy-blend/result", 14, (S.UNCHANGED,) * 3, "1.1.0", "1.2.3", None, ())
    blend = AnnotationHistory("toy-blend", "toypkg", "toypkg.mixing.blend", "annotations/toypkg/blend.yaml", (S.UNCHANGED,) * 3, (signal, result))
    return HistoryReport("infralens test", "0" * 64, (ReleaseSpan("toypkg", "1.2.3", RELEASES),), (blend,))


def _runs(reason: str = "signal >= 0 — observed signal=-1") -> HistoryRuns:
    runs = tuple(
        ReleaseRun(release, "2026-11-25T20:00:00Z", "cpu", f"reports/verify-against/toypkg-{release}.json", {"toy": ScenarioStatus.PASSED})
        for release in ("1.1.0", "1.2.0")
    )
    steps = (
        StepRuns("toy-blend/signal", (RunCell(R.FAILED, reason), RunCell(R.HELD))),
        StepRuns("toy-blend/result", (RunCell(R.RAN, "no expect"), RunCell(R.RAN, "no expect"))),
    )
    return HistoryRuns("infralens test", (RunSeries("toypkg", runs, steps),))


def test_marks_sit_in_the_cells_of_the_releases_run_and_only_there() -> None:
    history = History.of(_history(), Runs.of(_runs()))
    strip = history.strip("toypkg", ["toy-blend"], None)
    assert '<span class="il-h il-h-u il-h-ran" title="1.1.0: holds; when run: 1 failed, 1 ran, nothing checked">' in strip
    assert '<span class="il-run il-run-h" aria-hidden="true">▶</span>' in strip  # 1.2.0: the claim held
    assert '<span class="il-h il-h-u" title="1.2.3: holds"></span>' in strip  # never run on 1.2.3: no mark
    assert "when run: ▶ held on 1.2.0; ✗ failed on 1.1.0" in strip
    assert history.note_attributes("toypkg", "toy-blend/signal")["data-il-runs"] == "1.1.0=f 1.2.0=h"
    assert "data-il-runs" not in History.of(_history()).note_attributes("toypkg", "toy-blend/signal")
    page = history.matrix_page({"toypkg.mixing.blend": "_infralens/source/toypkg/toypkg.mixing.blend"}, "_infralens")
    assert '<span class="il-run il-run-f" aria-hidden="true">✗</span><span class="il-sr">when run: 1 failed, 1 ran, nothing checked</span>' in page
    assert "il-runs-legend" in page and "Run with `infralens verify --against` on 2 toypkg releases (1.1.0, 1.2.0; cpu, 2026-11-25)" in page
    assert "il-run" not in History.of(_history()).matrix_page({}, "_infralens")


def test_the_function_page_says_per_note_where_it_was_run_and_why_it_failed() -> None:
    section = History.of(_history(), Runs.of(_runs("x <b>bold</b> `tick`"))).section("toypkg", ["toy-blend"])
    assert "When run: 0 of 2 notes held on every release they were run on. The others:" in section
    assert "- **`toy-blend/signal`** — ▶ held on 1.2.0; ✗ failed on 1.1.0" in section
    assert r"  failed on 1.1.0: x \<b\>bold\</b\> \`tick\`" in section  # the file's text is escaped, never markup
    assert "- **`toy-blend/result`** — ▷ ran, nothing checked on 1.1.0–1.2.0" in section


def test_values_from_the_summary_are_escaped_wherever_they_appear() -> None:
    series = _runs().series[0]
    odd = dataclasses.replace(series.runs[1], release='1.2.0"><script>x</script>')
    summary = HistoryRuns("test", (dataclasses.replace(series, runs=(series.runs[0], odd)),))
    history = History.of(_history(), Runs.of(summary, "reports/`x`.json"))
    section = history.section("toypkg", ["toy-blend"])
    assert "<script>" not in section  # MyST text escaped, raw HTML entity-escaped
    assert r'1.2.0"\>\<script\>x\</script\>' in section and "&lt;script&gt;" in section
    assert "``reports/`x`.json``" in section


def _build(root: Path) -> tuple[SphinxTestApp, str]:
    warnings = StringIO()
    app = SphinxTestApp("html", srcdir=root, warning=warnings)
    try:
        app.build()
    finally:
        app.cleanup()
    return app, re.sub(r"\x1b\[[0-9;]*m", "", warnings.getvalue())


def test_the_site_shows_the_run_marks_and_a_tampered_summary_only_warns(fresh_root) -> None:
    root = fresh_root()
    reports = root / "reports"
    reports.mkdir()
    (reports / "history.json").write_text(dumps_report(_history()), "utf-8")
    (reports / "history-runs.json").write_text(dumps_report(_runs()), "utf-8")
    app, warnings = _build(root)
    assert warnings == ""
    out = Path(app.outdir)
    function = (out / "_infralens" / "source" / "toypkg" / "toypkg.mixing.blend.html").read_text("utf-8")
    assert 'data-il-runs="1.1.0=f 1.2.0=h"' in function and 'class="il-run il-run-f"' in function
    assert "when run: ▶ held on 1.2.0; ✗ failed on 1.1.0" in function
    assert "signal &gt;= 0 — observed signal=-1" in function
    matrix = (out / "_infralens" / "history.html").read_text("utf-8")
    assert 'class="il-h-u il-h-ran"' in matrix and "il-runs-legend" in matrix

    data = json.loads((reports / "history-runs.json").read_text("utf-8"))
    data["distributions"][0]["steps"][0]["runs"] = [{"state": "held"}]  # one state for two runs
    (reports / "history-runs.json").write_text(json.dumps(data), "utf-8")
    app, warnings = _build(root)
    assert "history-runs.json" in warnings and "runs on other releases are not shown" in warnings and "[infralens.report]" in warnings
    function = (Path(app.outdir) / "_infralens" / "source" / "toypkg" / "toypkg.mixing.blend.html").read_text("utf-8")
    assert "il-run" not in function and "data-il-states" in function  # the release history is still drawn


def test_a_missing_summary_beside_run_reports_is_a_warning(tmp_path: Path, caplog) -> None:
    (tmp_path / "history.json").write_text(dumps_report(_history()), "utf-8")
    assert load_reports(tmp_path).history.runs is None and "history-runs.json" not in caplog.text  # type: ignore[union-attr]
    (tmp_path / "verify-against").mkdir()
    (tmp_path / "verify-against" / "toypkg-1.1.0.json").write_text("{}", "utf-8")
    assert load_reports(tmp_path).history.runs is None  # type: ignore[union-attr]
    assert f"{tmp_path / 'history-runs.json'}" in caplog.text and "infralens history --runs" in caplog.text
    (tmp_path / "history-runs.json").write_text(dumps_report(_runs()), "utf-8")
    reports = load_reports(tmp_path)
    assert reports.history is not None and reports.history.runs is not None and str(tmp_path / "history-runs.json") in reports.files


def test_the_committed_summary_loads_beside_the_history() -> None:
    history = load_reports(ROOT / "reports").history
    assert history is not None and history.runs is not None
    releases = history.runs.releases["diffusers"]
    assert len(releases) >= 4 and set(releases) <= set(history.report.span("diffusers").releases)  # type: ignore[union-attr]
    assert set(history.runs.cells) <= set(history.steps)  # every step run is one the history knows
