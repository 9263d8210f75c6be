"""``infralens history`` over a synthetic sequence of ``demo`` releases, built as wheels in the cache.

The annotated statement ``pred = model_output * 2`` is not there yet (0.1.0), is written differently
(0.2.0), appears as reviewed (0.3.0), moves into a helper the step calls (0.4.0), is deleted (0.5.0)
and comes back (0.6.0). ``return prev`` holds throughout.
"""

from __future__ import annotations

import json
import textwrap
import zipfile

import pytest

from infralens.cli import main
from infralens.drift.history.build import _bounds, chosen_annotations, plan_history, run_history
from infralens.drift.history.view import render_text
from infralens.drift.lock.file import read_lock
from infralens.errors import InfralensError
from infralens.project import find_project
from infralens.reports import ReleaseState, describe_holding, dumps_report, holding_span, load_history_report
from infralens.source import select_releases

REVIEWED = """
class Scheduler:
    def step(self, model_output, sample):
        scale = self.scale
        pred = model_output * 2
        prev = sample - scale * pred
        return prev
"""

RELEASES = {
    "0.1.0": """
        class Scheduler:
            def step(self, model_output, sample):
                scale = self.scale
                prev = sample - scale
                return prev
        """,
    "0.2.0": """
        class Scheduler:
            def step(self, model_output, sample):
                scale = self.scale
                pred = model_output * 3
                prev = sample - scale * pred
                return prev
        """,
    "0.3.0": "\n\n" + REVIEWED,
    "0.4.0": """
        class Scheduler:
            def _predict(self, model_output):
                pred = model_output * 2
                return pred

            def step(self, model_output, sample):
                scale = self.scale
                pred = self._predict(model_output)
                prev = sample - scale * pred
                return prev
        """,
    "0.5.0": """
        class Scheduler:
            def step(self, model_output, sample):
                scale = self.scale
                prev = sample.clone()
                return prev
        """,
    "0.6.0": "# a comment moves every line\n" + REVIEWED,
}

ANNOTATION = """
id: sched-step
lab: 01-demo
source: demo
target: demo.core.Scheduler.step
summary: One step.
steps:
  - at: "pred = model_output * 2"
    key: predict
    note: The prediction, doubled.
  - at: "return prev"
    key: result
    note: What the step returns.
"""


def _wheel(folder, version, text):
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / f"demo-{version}-py3-none-any.whl", "w") as archive:
        archive.writestr("demo/__init__.py", "")
        archive.writestr("demo/core.py", textwrap.dedent(text).lstrip("\n"))
        archive.writestr(f"demo-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: demo\nVersion: {version}\n")


@pytest.fixture
def history_demo(demo):
    base = demo.write_source("1.0", {"core.py": REVIEWED})
    demo.write_annotation("step.yaml", ANNOTATION)
    demo.lock(base)
    for version, text in RELEASES.items():
        _wheel(demo.cache / "wheels", version, text)
    return demo, base


def _report(demo, base, *, since=("0.1.0",), until=()):
    project = find_project(demo.root)
    lock = read_lock(project.lock_path, "annotations/annotations.lock")
    annotations = chosen_annotations(lock, [])
    plans = plan_history(annotations, since, until, offline=True)
    return run_history(project, demo.resolver(base), lock, annotations, plans), plans


def test_every_state_of_a_statement_over_six_releases(history_demo):
    demo, base = history_demo
    report, plans = _report(demo, base)
    assert plans[0].releases == tuple(RELEASES)
    assert plans[0].list_origin == "cached wheels"
    (annotation,) = report.annotations
    predict, result = annotation.steps
    S = ReleaseState
    assert predict.states == (S.ABSENT, S.CHANGED, S.UNCHANGED, S.MOVED, S.DELETED, S.UNCHANGED)
    assert result.states == (S.UNCHANGED,) * 6
    assert (result.holds_from, result.holds_to, result.before) == ("0.1.0", "0.6.0", None)
    # It came back in 0.6.0: that is the run of releases where the note holds now.
    assert (predict.holds_from, predict.holds_to, predict.before) == ("0.6.0", "0.6.0", "0.5.0")
    changed = next(d for d in predict.differences if d.state is S.CHANGED)
    assert changed.releases == ("0.2.0",)
    assert "-pred = model_output * 2" in changed.diff and "+pred = model_output * 3" in changed.diff
    moved = next(d for d in predict.differences if d.state is S.MOVED)
    assert moved.releases == ("0.4.0",) and "_predict" in moved.where
    assert annotation.states == (S.ABSENT, S.CHANGED, S.UNCHANGED, S.MOVED, S.DELETED, S.UNCHANGED)


def test_a_statement_that_holds_in_a_run_before_it_changed(history_demo):
    demo, base = history_demo
    report, _ = _report(demo, base, since=("0.3.0",), until=("0.4.0",))
    predict = report.annotations[0].steps[0]
    assert predict.states == (ReleaseState.UNCHANGED, ReleaseState.MOVED)
    assert (predict.holds_from, predict.holds_to) == ("0.3.0", "0.3.0")


def test_the_json_report_round_trips_through_the_schema(history_demo, tmp_path):
    demo, base = history_demo
    report, _ = _report(demo, base)
    path = tmp_path / "history.json"
    path.write_text(dumps_report(report), "utf-8")
    assert load_history_report(path) == report
    data = json.loads(path.read_text("utf-8"))
    assert data["history"] == 1 and data["distributions"][0]["releases"] == list(RELEASES)


def test_the_text_table_a_maintainer_reads(history_demo):
    demo, base = history_demo
    report, _ = _report(demo, base)
    text = render_text(report)
    row = next(line for line in text.splitlines() if line.startswith("sched-step/predict "))
    assert row.split()[1:7] == [".", "~", "=", ">", "x", "="]
    assert row.endswith("holds in 0.6.0; deleted in 0.5.0")
    assert "changed in 0.2.0" in text and "moved in 0.4.0" in text
    assert "demo: 2 steps over 6 releases: 1 hold in all, 1 differ somewhere" in text


def test_offline_names_the_releases_it_cannot_read(history_demo):
    demo, base = history_demo
    (demo.cache / "wheels" / "releases-demo.json").write_text(json.dumps({"versions": [*RELEASES, "0.7.0"]}), "utf-8")
    report, plans = _report(demo, base, since=("0.5.0",))
    assert plans[0].missing == ("0.7.0",) and plans[0].list_origin == "cached list"
    assert report.spans[0].releases == ("0.5.0", "0.6.0")
    assert "0.7.0" in render_text(report)


def test_cli_history_json_and_remembered_rows(history_demo, capsys):
    demo, base = history_demo
    arguments = ["--project", str(demo.root), "--source", f"demo={base}", "history", "sched-step", "--since", "0.5.0", "--offline", "--format", "json"]
    assert main(arguments) == 0
    first = capsys.readouterr().out
    assert list(demo.cache.glob("history-v1/*.json"))  # each release's states are remembered
    assert main(arguments) == 0
    assert capsys.readouterr().out == first
    # Missing in the first release read: "not yet present" as far as this range can tell.
    assert json.loads(first)["annotations"][0]["steps"][0]["states"] == ["absent", "unchanged"]


def test_an_unknown_id_and_a_bad_bound_are_clear_errors(history_demo, capsys):
    demo, base = history_demo
    common = ["--project", str(demo.root), "--source", f"demo={base}", "history", "--offline"]
    assert main([*common, "nope"]) != 0
    assert "not in the lock: nope" in capsys.readouterr().err
    assert main([*common, "--since", "other=1.0"]) != 0
    assert "the history covers demo, not other" in capsys.readouterr().err
    assert main([*common, "--since", "soon"]) != 0
    assert "'soon' is not a version" in capsys.readouterr().err


def test_bounds_name_a_distribution_or_apply_where_the_release_exists():
    listed = {"diffusers": ("0.30.0", "0.31.0"), "diffsynth": ("2.0.0", "2.1.0")}
    assert _bounds(["0.30.0", "diffsynth=2.1.0"], listed, "--since") == {"diffusers": "0.30.0", "diffsynth": "2.1.0"}
    with pytest.raises(InfralensError, match=r"write DIST=0\.29\.0"):
        _bounds(["0.29.0"], listed, "--since")
    assert _bounds(["9.9"], {"demo": ()}, "--until") == {"demo": "9.9"}


def test_per_series_keeps_the_newest_release_of_each_minor_series():
    versions = ("0.30.0", "0.30.3", "0.31.0", "0.32.0", "0.32.2", "0.33.0")
    assert select_releases(versions, "0.30.1", "0.32.9", per_series=True) == ("0.30.3", "0.31.0", "0.32.2")
    assert select_releases(versions, None, "0.31.0") == ("0.30.0", "0.30.3", "0.31.0")


def test_holding_span_prefers_the_run_that_holds_the_baseline():
    S = ReleaseState
    releases = ("1", "2", "3", "4")
    assert holding_span((S.UNCHANGED, S.CHANGED, S.UNCHANGED, S.UNCHANGED), releases, "1") == ("1", "1", None)
    assert holding_span((S.UNCHANGED, S.CHANGED, S.MOVED, S.UNCHANGED), releases, "9") == ("4", "4", "3")
    assert holding_span((S.ABSENT, S.DELETED, S.CHANGED, S.DELETED), releases, "4") == (None, None, None)


def test_output_to_a_file_and_to_a_path_that_cannot_be_written(history_demo, capsys, tmp_path):
    demo, base = history_demo
    common = ["--project", str(demo.root), "--source", f"demo={base}", "history", "--since", "0.6.0", "--offline", "--output"]
    assert main([*common, str(tmp_path / "h.txt")]) == 0
    assert "sched-step/predict" in (tmp_path / "h.txt").read_text("utf-8")
    assert main([*common, str(tmp_path / "missing" / "h.txt")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_the_words_for_a_row_name_the_states_around_the_span():
    S = ReleaseState
    releases = ("1", "2", "3", "4")
    assert describe_holding((S.CHANGED, S.UNCHANGED, S.UNCHANGED, S.MOVED), releases, "2") == "holds in 2–3; changed in 1; moved in 4"
    assert describe_holding((S.ABSENT, S.ABSENT, S.UNCHANGED, S.UNCHANGED), releases, "4") == "holds in 3–4; not yet present in 2"
    assert describe_holding((S.DELETED,) * 4, releases, "4") == "holds in none of these releases"


def test_with_no_registry_it_reads_the_cached_wheels_instead_of_failing(history_demo, monkeypatch):
    import sys

    from infralens.source import releases

    demo, base = history_demo
    monkeypatch.setattr(releases, "PIP_COMMAND", [sys.executable, "-c", "import sys; sys.exit('ERROR: no route to the index')"])
    report, plans = _report_online(demo, base)
    assert plans[0].list_origin == "cached wheels" and plans[0].releases == tuple(RELEASES)
    assert "no route to the index" in plans[0].note
    assert report.annotations[0].steps[1].states == (ReleaseState.UNCHANGED,) * 6


def _report_online(demo, base):
    project = find_project(demo.root)
    lock = read_lock(project.lock_path, "annotations/annotations.lock")
    annotations = chosen_annotations(lock, [])
    plans = plan_history(annotations, ["0.1.0"], [], offline=False)
    return run_history(project, demo.resolver(base), lock, annotations, plans), plans


def test_the_same_edit_at_another_line_is_one_difference():
    from infralens.drift.history.build import _Cell, _same_difference

    diff_a = ("--- reviewed (demo 1.0)", "+++ demo 0.1.0 demo/core.py:4", "-a = 1", "+a = 2")
    diff_b = ("--- reviewed (demo 1.0)", "+++ demo 0.2.0 demo/core.py:9", "-a = 1", "+a = 2")
    first = _Cell(ReleaseState.CHANGED, "demo/core.py:4 f", "edited in place", diff_a)
    second = _Cell(ReleaseState.CHANGED, "demo/core.py:9 f", "edited in place", diff_b)
    assert _same_difference(first) == _same_difference(second)
    other = _Cell(ReleaseState.CHANGED, "demo/core.py:9 f", "edited in place", (*diff_b[:3], "+a = 3"))
    assert _same_difference(first) != _same_difference(other)
