"""A project names its libraries in ``[tool.infralens]``: coverage, verify's versions, the badges, ``locate`` and the
upstream links follow that list, for a distribution InfraLens has never heard of (``toylib``, made here)."""

from __future__ import annotations

import json
import sys
from io import StringIO
from pathlib import Path

import pytest
from toy_project import write_toy

from infralens.cli import main
from infralens.errors import InfralensError
from infralens.project import find_project


def _cli(root: Path, *args: str) -> list[str]:
    return ["--project", str(root), "--source", f"toylib={root / 'site'}", "--no-cache", *args]


def test_the_project_reads_its_list_and_templates(toy: Path) -> None:
    libraries = find_project(toy).libraries
    assert libraries.distributions == ("toylib",) and libraries.default == "toylib" and libraries.configured
    assert libraries.upstream == {"toylib": "https://example.org/toylib/blob/v{version}/{path}#L{line}"}


@pytest.mark.parametrize(
    ("settings", "key", "words"),
    [
        ('distributions = "toylib"', "[tool.infralens] distributions", "non-empty list"),
        ("distributions = []", "[tool.infralens] distributions", "non-empty list"),
        ('distributions = ["toy lib"]', "[tool.infralens] distributions", "is not a distribution name"),
        ('distributions = ["toylib", "toylib"]', "[tool.infralens] distributions", "listed twice"),
        ("distributions = [3]", "[tool.infralens] distributions", "is not a distribution name"),
        ('upstream = "https://x"', "[tool.infralens].upstream", "must be a table"),
        ('[tool.infralens.upstream]\ntoylib = "ftp://x/{path}"', "[tool.infralens].upstream.toylib", "http(s) URL"),
        ('[tool.infralens.upstream]\ntoylib = "https://x/{file}"', "[tool.infralens].upstream.toylib", "unknown placeholder {file}"),
        ('[tool.infralens.upstream]\ntoylib = "https://x/{path"', "[tool.infralens].upstream.toylib", "literal brace"),
        ("[tool.infralens.upstream]\ntoylib = 3", "[tool.infralens].upstream.toylib", "as text"),
    ],
)
def test_a_bad_value_is_a_clear_error_naming_the_file_and_the_key(tmp_path: Path, capsys, settings: str, key: str, words: str) -> None:
    root = tmp_path / "bad"
    write_toy(root, settings + "\n")
    with pytest.raises(InfralensError) as raised:
        find_project(root)
    message = str(raised.value)
    assert f"{root / 'pyproject.toml'}: {key}" in message and words in message
    assert main(_cli(root, "locate", "double")) == 2  # the command line says so too, without a traceback
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


@pytest.mark.slow
def test_coverage_watches_the_projects_distributions(toy: Path, capsys) -> None:
    out = toy / "cov.json"
    assert main(_cli(toy, "coverage", "toy", "--device", "cpu", "--json", str(out))) == 0
    data = json.loads(out.read_text())
    assert [(f["dist"], f["qualname"]) for f in data["functions"]] == [("toylib", "double")]
    assert data["versions"]["toylib"] == "1.2.0" and "diffusers" not in data["versions"]
    assert "1 upstream functions ran" in capsys.readouterr().out


def test_without_the_list_a_toylib_project_records_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """The control: the same scenario, no ``distributions`` and no annotation naming toylib, watches the default list."""
    root = tmp_path / "plain"
    write_toy(root, "", annotated=False)
    monkeypatch.syspath_prepend(str(root / "site"))
    for name in [m for m in sys.modules if m == "toylib" or m.startswith("toylib.")]:
        monkeypatch.delitem(sys.modules, name)
    assert main(_cli(root, "coverage", "toy", "--device", "cpu")) == 0
    assert "0 upstream functions ran" in capsys.readouterr().out


def test_locate_searches_the_first_distribution_by_default(toy: Path, capsys) -> None:
    assert main(_cli(toy, "locate", "double")) == 0
    assert capsys.readouterr().out.strip() == "toylib/core.py:1-4: function toylib.core.double"


@pytest.mark.slow
def test_verify_records_the_version_and_the_site_shows_it_with_the_upstream_link(toy: Path) -> None:
    pytest.importorskip("sphinx")
    from sphinx.testing.util import SphinxTestApp

    assert main(_cli(toy, "verify", "--device", "cpu", "--report", str(toy / "reports" / "verify-cpu.json"))) == 0
    versions = json.loads((toy / "reports" / "verify-cpu.json").read_text())["versions"]
    assert versions["toylib"] == "1.2.0"
    (toy / "conf.py").write_text(
        'extensions = ["infralens.sphinx"]\nexclude_patterns = ["annotations", "scenarios", "site"]\n'
        'infralens_project_root = "."\ninfralens_sources = {"toylib": "site"}\n'
    )
    (toy / "index.md").write_text("# Toy\n\n```{infralens-function} toylib.core.double\n```\n")
    app = SphinxTestApp("html", srcdir=toy, warning=StringIO(), warningiserror=True)
    try:
        app.build()
    finally:
        app.cleanup()
    page = (Path(app.outdir) / "index.html").read_text("utf-8")
    assert "toylib 1.2.0" in page and "diffusers" not in page.lower() and "diffsynth" not in page.lower()
    assert 'href="https://example.org/toylib/blob/v1.2.0/toylib/core.py#L1"' in page
