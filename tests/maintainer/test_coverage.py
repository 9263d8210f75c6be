"""``infralens coverage``: the call recorder on a synthetic package, marks, JSON, and the static rendering."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from infralens.errors import InfralensError
from infralens.maintainer.coverage import CallRecorder, annotation_marks, build_map
from infralens.maintainer.coverage_format import format_tree, read_json, write_json
from infralens.maintainer.coverage_render import render_html
from infralens.project import find_project, load_annotations
from infralens.reports import ScenarioStatus
from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache
from infralens.source.distributions import DirectoryTree

PIPELINE = """
from fakedist.sched import Sched, combine

REGISTERED = combine(1, 2)  # runs at import time: not part of any scenario's tree


def denoise(x, steps):
    sched = Sched()
    for t in range(steps):
        x = outside(sched.step, x, t)
    return helper([x])


def helper(values):
    return [combine(v, v) for v in values]  # the comprehension folds into helper
"""

NOT_UPSTREAM = """
def outside(function, *args):
    return function(*args)
"""


@pytest.fixture
def scenario(project, monkeypatch):
    """Import the fake package from the project's site/ folder; returns a function that runs a fake scenario."""
    site = project / "site"
    (site / "fakedist" / "pipe.py").write_text(textwrap.dedent(PIPELINE).lstrip(), "utf-8")
    (site / "glue.py").write_text(textwrap.dedent(NOT_UPSTREAM).lstrip(), "utf-8")
    pipe = site / "fakedist" / "pipe.py"
    pipe.write_text("from glue import outside\n" + pipe.read_text(), "utf-8")
    monkeypatch.syspath_prepend(str(site))
    for name in [m for m in sys.modules if m == "glue" or m.startswith("fakedist")]:
        monkeypatch.delitem(sys.modules, name)
    importlib.invalidate_caches()

    def run():
        with CallRecorder({"fakedist": [site / "fakedist"]}) as recorder:
            module = importlib.import_module("fakedist.pipe")
            module.denoise(3, 3)
        return recorder

    return run


def marks_for(project: Path):
    resolver = Resolver({"fakedist": DirectoryTree(project / "site", "fakedist", "1.0")}, cache=IndexCache(persistent=False))
    loaded = load_annotations(find_project(project))
    return annotation_marks(resolver, loaded.annotations)


def coverage_of(project, recorder):
    return build_map(
        recorder, marks_for(project), scenario="fake", status=ScenarioStatus.PASSED, error=None, seconds=0.1, device="cpu", versions={"fakedist": "1.0"}
    )


def test_tree_has_callers_callees_and_counts_through_foreign_frames(project, scenario):
    coverage = coverage_of(project, scenario())
    names = [f.ref.qualname for f in coverage.functions]
    assert names == ["denoise", "Sched.step", "combine", "helper"]  # first-call order; import-time combine left out
    [root] = coverage.roots
    assert coverage.functions[root.function].ref.qualname == "denoise" and root.calls == 1
    step, helper = root.children  # Sched.step is reached through glue.outside, which is not upstream
    assert (coverage.functions[step.function].ref.qualname, step.calls) == ("Sched.step", 3)
    assert [(coverage.functions[c.function].ref.qualname, c.calls) for c in step.children] == [("combine", 3)]
    assert [(coverage.functions[c.function].ref.qualname, c.calls) for c in helper.children] == [("combine", 1)]
    combine = next(f for f in coverage.functions if f.ref.qualname == "combine")
    assert combine.calls == 4 and combine.ref.file == "fakedist/sched.py"


def test_recorder_restores_the_previous_trace_hook(project, scenario):
    before = sys.gettrace()
    scenario()
    assert sys.gettrace() is before


def test_annotated_functions_are_marked_with_statement_counts(project, scenario, cli):
    from infralens.cli import main

    assert main(cli("add", "fakedist.sched.Sched.step", "--lab", "01-lab", "--max-steps", "2")) == 0
    coverage = coverage_of(project, scenario())
    step = next(f for f in coverage.functions if f.ref.qualname == "Sched.step")
    assert step.mark is not None and step.mark.annotation_ids == ("sched-step",)
    assert (step.mark.annotated_statements, step.mark.statements) == (2, 8)  # docstring … return: the def line is not counted
    text = format_tree(coverage)
    assert "Sched.step ×3  ★ 2/8 statements annotated (sched-step)" in text
    assert "denoise ×1\n" in text and "1 annotated (★)" in text


def test_json_round_trip_and_errors(project, scenario, tmp_path):
    coverage = coverage_of(project, scenario())
    assert type(coverage).from_json(coverage.to_json()) == coverage
    path = tmp_path / "reports" / "coverage-fake.json"
    write_json(coverage, path)
    assert read_json(path) == coverage
    data = json.loads(path.read_text())
    data["tree"][0]["f"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(InfralensError, match=r"coverage-fake\.json: not a coverage file"):
        read_json(path)
    path.write_text("{")
    with pytest.raises(InfralensError, match=r"coverage-fake.json:1:2: not valid JSON"):
        read_json(path)
    with pytest.raises(InfralensError, match="infralens coverage SCENARIO --json"):
        read_json(tmp_path / "missing.json")


def test_rendering_is_static_html_with_svg_and_folding(project, scenario, cli):
    from infralens.cli import main

    assert main(cli("add", "fakedist.sched.Sched.step", "--lab", "01-lab")) == 0
    page = render_html(coverage_of(project, scenario()), title="Fake <scenario>")
    assert "<svg" in page and "<details" in page and "<title>Sched.step ×3 here (3 in all)" in page
    assert "<script" not in page and "src=" not in page and "href=" not in page  # nothing fetched, nothing run
    assert "Fake &lt;scenario&gt;" in page  # escaped
    assert page.count("hsl(140") >= 2  # the annotated box and the legend are green


@pytest.mark.slow
def test_cli_on_a_real_scenario(tmp_path):
    """``infralens coverage scheduler-spacing --json``: real diffusers schedulers, annotated ones marked."""
    pytest.importorskip("diffusers")
    out = tmp_path / "cov.json"
    result = subprocess.run(
        [sys.executable, "-c", "from infralens.cli import run; run()", "coverage", "scheduler-spacing", "--json", str(out)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "DDIMScheduler.set_timesteps ×3  ★" in result.stdout
    data = json.loads(out.read_text())
    assert data["scenario"] == "scheduler-spacing" and data["status"] == "passed"
    assert any(f["qualname"] == "DDIMScheduler.set_timesteps" and f.get("annotations") for f in data["functions"])


def test_depth_limits_the_printed_tree(project, scenario):
    text = format_tree(coverage_of(project, scenario()), depth=1)
    assert "denoise ×1  (+2 callees)" in text and "Sched.step" not in text.split("\n\n")[0]


def _nested_calls(depth: int) -> dict:
    node: dict = {"f": 0, "calls": 1}
    for _ in range(depth - 1):
        node = {"f": 0, "calls": 1, "children": [node]}
    function = {"dist": "fakedist", "file": "fakedist/pipe.py", "qualname": "denoise", "line": 3, "calls": depth}
    return {"format": 1, "scenario": "deep", "status": "passed", "error": None, "seconds": 0.1, "device": "cpu", "versions": {}} | {
        "functions": [function],
        "tree": [node],
    }


def test_a_tree_as_deep_as_allowed_loads_even_from_a_deep_caller_and_a_deeper_one_is_a_clear_error(tmp_path):
    """The schema's check recurses per level: at the depth limit it must still fit the stack, below 400 frames of callers."""
    from infralens.reports import MAX_COVERAGE_DEPTH

    path = tmp_path / "coverage-deep.json"
    deepest = MAX_COVERAGE_DEPTH // 2 - 1  # the report object and the tree array take one level each
    path.write_text(json.dumps(_nested_calls(deepest)))

    def read_from_below(frames: int):
        return read_json(path) if frames == 0 else read_from_below(frames - 1)

    coverage = read_from_below(400)
    assert coverage.roots[0].total_calls() == deepest
    path.write_text(json.dumps(_nested_calls(deepest + 1)))
    with pytest.raises(InfralensError, match=rf"coverage-deep\.json: nested {MAX_COVERAGE_DEPTH + 1} levels deep \(at most {MAX_COVERAGE_DEPTH}\)"):
        read_json(path)
