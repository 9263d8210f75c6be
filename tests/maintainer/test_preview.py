"""``infralens preview --no-serve`` builds one page, and the coverage directive embeds a map."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from infralens.cli import main

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")


def written_annotation(project: Path, cli) -> Path:
    assert main(cli("add", "fakedist.sched.Sched.step", "--lab", "01-lab", "--max-steps", "1")) == 0
    path = project / "annotations" / "fakedist" / "sched-step.yaml"
    text = path.read_text().replace("TODO: explain `prev = t - 1`.", "The previous timestep is one below the current one.")
    path.write_text(re.sub(r"summary: .*", 'summary: "One step of a made-up sampler."', text, count=1))
    return path


def built_path(output: str) -> Path:
    match = re.search(r"in (\d+\.\d+) s \((\d+) warnings\): (\S+index\.html)", output)
    assert match, output
    return Path(match.group(3))


def test_function_preview_builds_html_with_the_notes(project, cli, capsys):
    written_annotation(project, cli)
    assert main(cli("preview", "fakedist.sched.Sched.step", "--no-serve")) == 0
    page = built_path(capsys.readouterr().out).read_text()
    assert "The previous timestep is one below the current one." in page
    assert "One step of a made-up sampler." in page  # the annotation's summary, as on the function's own page
    assert "prev" in page and "combine" in page  # the real source is on the page


def test_preview_by_annotation_id_and_lab(project, cli, capsys):
    written_annotation(project, cli)
    lab = project / "labs" / "lab-01-lab" / "index.md"
    lab.write_text("# Lab one\n\nRead the step.\n\n```{infralens-function} fakedist.sched.Sched.step\n```\n")
    assert main(cli("preview", "sched-step", "--no-serve")) == 0
    assert "one below the current" in built_path(capsys.readouterr().out).read_text()
    assert main(cli("preview", "01", "--no-serve", "--out", str(project / "out"))) == 0
    output = capsys.readouterr().out
    assert "built the lab page for 01-lab" in output
    page = (project / "out" / "index.html").read_text()
    assert "Lab one" in page and "one below the current" in page


def test_preview_of_something_unknown_says_what_to_do(project, cli, capsys):
    assert main(cli("preview", "fakedist.sched.Nope", "--no-serve")) == 2
    assert "infralens add fakedist.sched.Nope --lab SLUG" in capsys.readouterr().err


COVERAGE = {
    "format": 1,
    "scenario": "fake",
    "status": "passed",
    "error": None,
    "seconds": 0.5,
    "device": "cpu",
    "created": "",
    "versions": {},
    "functions": [
        {"dist": "fakedist", "file": "fakedist/pipe.py", "qualname": "denoise", "line": 3, "calls": 1},
        {
            "dist": "fakedist",
            "file": "fakedist/sched.py",
            "qualname": "Sched.step",
            "line": 4,
            "calls": 3,
            "annotations": ["sched-step"],
            "annotated": 2,
            "statements": 8,
        },
    ],
    "tree": [{"f": 0, "calls": 1, "children": [{"f": 1, "calls": 3}]}],
}


def sphinx_build(src: Path) -> tuple[Path, str]:
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    warnings = io.StringIO()
    with docutils_namespace():
        app = Sphinx(str(src), str(src), str(src / "_build"), str(src / "_doctrees"), "html", status=None, warning=warnings, freshenv=True)
        app.build(force_all=True)
    return src / "_build", warnings.getvalue()


def test_coverage_directive_embeds_the_map_from_committed_json(tmp_path):
    src = tmp_path / "docs"
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "coverage-fake.json").write_text(json.dumps(COVERAGE))
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["myst_parser", "infralens.sphinx.coverage"]\nhtml_theme = "basic"\n')
    (src / "index.md").write_text("# Map\n\n```{infralens-coverage} fake\n```\n\n```{infralens-coverage} absent\n```\n")
    out, warnings = sphinx_build(src)
    page = (out / "index.html").read_text()
    assert "<svg" in page and "Sched.step" in page and "2/8 statements annotated" in page
    assert "<script" not in page.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert "coverage-absent.json" in warnings and "infralens coverage SCENARIO --json" in warnings


def test_preview_server_answers_on_localhost_only(project, cli, capsys):
    import threading
    import urllib.request

    from infralens.maintainer.preview import make_server

    written_annotation(project, cli)
    assert main(cli("preview", "sched-step", "--no-serve", "--out", str(project / "html"))) == 0
    with make_server(project / "html", 0) as server:
        host, port = server.server_address
        assert host == "127.0.0.1"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=10) as response:
                assert response.status == 200 and b"one below the current" in response.read()
        finally:
            server.shutdown()


def _preview_temp_dirs() -> set[str]:
    import tempfile

    return {p.name for p in Path(tempfile.gettempdir()).glob("infralens-preview-*")}


def test_a_preview_leaves_no_temporary_folder(project, cli, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    written_annotation(project, cli)
    before = _preview_temp_dirs()
    for _ in range(2):
        assert main(cli("preview", "sched-step", "--no-serve")) == 0
        page = built_path(capsys.readouterr().out)
        assert page.is_file() and page.is_relative_to(tmp_path / "cache")  # one reused folder in the cache
    assert _preview_temp_dirs() <= before


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_a_port_out_of_range_is_a_usage_error(project, cli, capsys, port):
    with pytest.raises(SystemExit) as stop:
        main(cli("preview", "sched-step", "--port", port))
    assert stop.value.code == 2
    assert "--port" in capsys.readouterr().err


def test_annotated_functions_in_a_coverage_map_link_to_their_pages(tmp_path):
    from infralens.maintainer import read_json, render_html

    path = tmp_path / "coverage-fake.json"
    path.write_text(json.dumps(COVERAGE))
    page = render_html(read_json(path), links={("fakedist", "fakedist/sched.py", "Sched.step"): "../fn/Sched.step.html"})
    assert page.count('<a class="reference internal" href="../fn/Sched.step.html">Sched.step</a>') == 2  # the tree and the table
    assert ">denoise</a>" not in page and "denoise" in page  # not annotated: no link
    assert render_html(read_json(path)).count("<a class=") == 0
