"""The extension changes nothing outside its own app: MyST elsewhere parses as MyST does, builds share no state,
and a docs build never imports torch (a stale cost report is a warning, an error under -W, naming ``make cost``)."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from io import StringIO
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from infralens.sphinx.state import BuildState

REPO = Path(__file__).resolve().parents[2]
MARKER = "MARKER-FROM-FRONT-MATTER"
FRONT = f"---\nmyst:\n  substitutions:\n    who: {MARKER}\n---\n# Page\n\nHello {{{{ who }}}}\n"
"""A page whose front matter configures MyST (a substitution): MyST applies it; InfraLens's builds refuse it."""
INCLUDE = "Included\n========\n\n.. include:: front.txt\n   :parser: myst_parser.sphinx_\n"
HEAVY = ("torch", "diffusers", "transformers", "diffsynth")


def _page(app: SphinxTestApp, name: str) -> str:
    return (Path(app.outdir) / name).read_text("utf-8")


def test_an_app_without_infralens_parses_front_matter_as_myst_does(fresh_root, tmp_path: Path) -> None:
    """An InfraLens app set up first, a plain MyST app set up and built while it lives: only InfraLens's is guarded."""
    from docutils.core import publish_string
    from myst_parser.parsers.docutils_ import Parser

    guarded_root = fresh_root("basic")
    plain_root = tmp_path / "plain"
    plain_root.mkdir()
    (plain_root / "conf.py").write_text('extensions = ["myst_parser"]\nmyst_enable_extensions = ["substitution"]\n', "utf-8")
    (plain_root / "index.md").write_text(FRONT + "\n```{toctree}\ninc\n```\n", "utf-8")
    for root in (guarded_root, plain_root):
        (root / "front.txt").write_text(FRONT, "utf-8")
        (root / "inc.rst").write_text((":orphan:\n\n" if root == guarded_root else "") + INCLUDE, "utf-8")
    (guarded_root / "front.md").write_text(FRONT.replace("---\nmyst:", "---\norphan: true\nmyst:"), "utf-8")

    guarded = SphinxTestApp("html", srcdir=guarded_root, warning=StringIO(), confoverrides={"myst_enable_extensions": ["dollarmath", "substitution"]})
    plain = SphinxTestApp("html", srcdir=plain_root, warning=StringIO())
    try:
        plain.build()
        guarded.build()
    finally:
        plain.cleanup()
        guarded.cleanup()

    assert MARKER in _page(plain, "index.html"), "a page's front matter no longer configures MyST in an app without InfraLens"
    assert MARKER in _page(plain, "inc.html"), "an included file's front matter no longer configures MyST in an app without InfraLens"
    for page in ("front.html", "inc.html"):  # InfraLens's app still refuses both ways in
        built = _page(guarded, page)
        assert "Hello" in built and MARKER not in built, page
    rendered = publish_string(
        FRONT, parser=Parser(), writer="html5", settings_overrides={"myst_enable_extensions": ["substitution"], "output_encoding": "unicode"}
    )
    assert MARKER in str(rendered), "a plain docutils run of MyST is affected"


def _cost_root(fresh_root, cuda: str) -> Path:
    """The basic root with the committed cost report (its ``cuda`` line set to *cuda*) and a page drawing from it."""
    root = fresh_root("basic")
    report = json.loads((REPO / "reports" / "cost.json").read_text("utf-8"))
    report["cost"]["cuda"] = cuda
    (root / "reports").mkdir(exist_ok=True)
    (root / "reports" / "cost.json").write_text(json.dumps(report), "utf-8")
    (root / "costs.md").write_text("---\norphan: true\n---\n# Costs\n\n```{infralens-cost} weights\n:models: sd-vae\n```\n", "utf-8")
    return root


def test_a_second_build_in_the_same_process_reads_the_changed_cost_report(fresh_root, tmp_path: Path) -> None:
    root = _cost_root(fresh_root, "measured on CARD-ONE")
    seen = []
    for card in ("CARD-ONE", "CARD-TWO"):
        report_path = root / "reports" / "cost.json"
        report = json.loads(report_path.read_text("utf-8"))
        report["cost"]["cuda"] = f"measured on {card}"
        report_path.write_text(json.dumps(report), "utf-8")
        os.utime(report_path, ns=(report_path.stat().st_mtime_ns + 10**9,) * 2)  # a newer file than the first build read
        app = SphinxTestApp("html", srcdir=root, builddir=tmp_path / "build", warning=StringIO())
        try:
            app.build()
        finally:
            app.cleanup()
        page = _page(app, "costs.html")
        seen.append([name for name in ("CARD-ONE", "CARD-TWO") if name in page])
    assert seen == [["CARD-ONE"], ["CARD-TWO"]]


def test_a_builds_state_is_never_pickled_with_its_environment() -> None:
    state = BuildState(values={"pages-base": Path("/somewhere")}, memos={"cost-reports": {"path": "report"}})
    again = pickle.loads(pickle.dumps(state))
    assert again == BuildState() and state.memos, "a pickled environment carried a build's state to the next build"


def test_a_docs_build_never_imports_torch_and_a_stale_cost_report_is_an_error_naming_make_cost(fresh_root, tmp_path: Path) -> None:
    """A fresh process builds a project whose catalog changed since the report (-W): the build fails naming
    ``make cost``, and at its end no model library is imported (a tiny extension records ``sys.modules``)."""
    root = _cost_root(fresh_root, "not measured: no CUDA here")
    (root / "costs").mkdir()
    catalog = (REPO / "costs" / "models.yaml").read_text("utf-8")
    assert "steps: 28" in catalog, "the catalog changed: pick another value to make the report stale"
    (root / "costs" / "models.yaml").write_text(catalog.replace("steps: 28", "steps: 30"), "utf-8")
    record = tmp_path / "modules.json"
    (root / "record_modules.py").write_text(
        "import json, sys\n\n\ndef setup(app):\n"
        "    def finished(app, exception):\n"
        f"        open({str(record)!r}, 'w').write(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
        "    app.connect('build-finished', finished)\n"
        "    return {'parallel_read_safe': True}\n",
        "utf-8",
    )
    conf = root / "conf.py"
    conf.write_text(conf.read_text("utf-8") + "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\nextensions.append('record_modules')\n", "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", str(root), str(tmp_path / "html")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0, "a stale cost report passed a -W build"
    assert "stale" in done.stderr and "`make cost`" in done.stderr, done.stderr
    assert json.loads(record.read_text("utf-8")) == [], "the docs build imported a model library"


def test_a_missing_cost_report_warns_naming_make_cost(fresh_root, tmp_path: Path) -> None:
    root = _cost_root(fresh_root, "unused")
    (root / "reports" / "cost.json").unlink()
    warnings = StringIO()
    app = SphinxTestApp("html", srcdir=root, builddir=tmp_path / "build", warning=warnings)
    try:
        app.build()
    finally:
        app.cleanup()
    found = [line for line in warnings.getvalue().splitlines() if "cost" in line]
    assert any("costs.md" in line and "`make cost`" in line for line in found), warnings.getvalue()
