"""Release history on the site: strips, note states, the function-page section and the matrix, from a small report."""

from __future__ import annotations

import json
from pathlib import Path

from infralens.reports import AnnotationHistory, Difference, HistoryReport, ReleaseSpan, ReleaseState as S, StepHistory, dumps_report
from infralens.sphinx.badges import load_reports
from infralens.sphinx.history import History, anchor

ROOT = Path(__file__).resolve().parents[2]
RELEASES = ("0.1.0", "0.2.0", "0.3.0")


def _report() -> HistoryReport:
    diff = ("--- reviewed (demo 0.3.0)", "+++ demo 0.1.0 demo/core.py:4", "-pred = x * 2", "+pred = x * 3")
    changed = StepHistory(
        "step/pred",
        7,
        (S.CHANGED, S.UNCHANGED, S.UNCHANGED),
        "0.2.0",
        "0.3.0",
        "0.1.0",
        (Difference(("0.1.0",), S.CHANGED, "demo/core.py:4 f", "edited in place", diff),),
    )
    new = StepHistory(
        "step/new", 9, (S.ABSENT, S.ABSENT, S.UNCHANGED), "0.3.0", "0.3.0", "0.2.0", (Difference(("0.1.0", "0.2.0"), S.ABSENT, "", "not yet present"),)
    )
    steady = StepHistory("other/ok", 3, (S.UNCHANGED,) * 3, "0.1.0", "0.3.0", None, ())
    annotations = (
        AnnotationHistory("step", "demo", "demo.core.f", "annotations/step.yaml", (S.CHANGED, S.ABSENT, S.UNCHANGED), (changed, new)),
        AnnotationHistory("other", "demo", "demo.core.g", "annotations/other.yaml", (S.UNCHANGED,) * 3, (steady,)),
    )
    return HistoryReport("infralens test", "0" * 64, (ReleaseSpan("demo", "0.3.0", RELEASES),), annotations)


def test_notes_carry_one_letter_per_release() -> None:
    history = History.of(_report())
    assert history.note_attributes("demo", "step/pred") == {"data-il-dist": "demo", "data-il-states": "cuu"}
    assert history.note_attributes("demo", "step/new")["data-il-states"] == "aau"
    assert history.note_attributes("demo", "nope/x") == {} and history.note_attributes("other-dist", "step/pred") == {}


def test_the_strip_combines_the_functions_annotations_and_says_where_they_hold() -> None:
    strip = History.of(_report()).strip("demo", ["step", "other"], None)
    assert 'data-il-releases="0.1.0 0.2.0 0.3.0"' in strip
    assert strip.count('class="il-h il-h-') == 3 and 'title="0.1.0: changed"' in strip and 'title="0.2.0: not yet present"' in strip
    assert "demo holds in 0.3.0; not yet present in 0.2.0" in strip
    assert History.of(_report()).strip("demo", ["unknown"], None) == ""


def test_the_function_page_section_shows_each_differing_step_with_its_diff() -> None:
    section = History.of(_report()).section("demo", ["step"])
    assert section.startswith("## Release history")
    assert f'<span id="{anchor("step")}"></span>' in section
    assert "0 of 2 notes hold in every release read. The others:" in section
    assert "- **`step/pred`** — holds in 0.2.0–0.3.0; changed in 0.1.0" in section
    assert "  changed in 0.1.0 at `demo/core.py:4 f`: edited in place" in section
    assert "  ```diff\n  --- reviewed (demo 0.3.0)" in section and "  +pred = x * 3" in section
    assert "not yet present in 0.1.0–0.2.0" in section


def test_the_matrix_links_every_cell_that_does_not_hold_to_the_diff() -> None:
    pages = {"demo.core.f": "_infralens/source/demo/demo.core.f", "demo.core.g": "_infralens/source/demo/demo.core.g"}
    page = History.of(_report()).matrix_page(pages, "_infralens")
    href = f"source/demo/demo.core.f.html#{anchor('step')}"
    assert page.count(f'<a href="{href}" title=') == 2  # changed in 0.1.0, not yet present in 0.2.0
    assert '<td class="il-h-u" title="step in 0.3.0: holds"></td>' in page
    assert "2 annotations over 3 releases (0.1.0 … 0.3.0); reviewed against 0.3.0." in page and "1 hold in all of them." in page


def test_reports_folder_history_is_read_and_a_broken_one_is_a_warning(tmp_path: Path, caplog) -> None:
    (tmp_path / "history.json").write_text(dumps_report(_report()), "utf-8")
    reports = load_reports(tmp_path)
    assert reports.history is not None and str(tmp_path / "history.json") in reports.files
    (tmp_path / "history.json").write_text(json.dumps({"history": 1}), "utf-8")
    assert load_reports(tmp_path).history is None
    assert "release history is not shown" in caplog.text


def test_the_committed_history_report_loads() -> None:
    history = load_reports(ROOT / "reports").history
    assert history is not None
    span = history.span("diffusers")
    assert span is not None and span.releases[0] == "0.30.0" and "0.42.1" in span.releases
    ddim = history.annotations["ddim-step"]
    assert len(ddim.states) == len(span.releases)


def test_the_installed_release_is_marked_in_the_matrix_and_the_strip() -> None:
    history = History.of(_report())
    page = history.matrix_page({"demo.core.f": "_infralens/source/demo/demo.core.f"}, "_infralens")
    assert page.count('<th scope="col" class="il-installed"') == 1 and "<span>0.3.0 installed</span>" in page
    assert '<colgroup><col><col><col><col class="il-installed"></colgroup>' in page
    assert "The outlined column is the installed release, 0.3.0" in page
    assert 'data-il-installed="0.3.0"' in history.strip("demo", ["step"], None)
