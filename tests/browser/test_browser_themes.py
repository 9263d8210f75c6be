"""The annotated-function layout under Sphinx's common themes: a project made by ``infralens init`` with one annotation
of the installed transformers, built with alabaster (Sphinx's default), furo, the Read the Docs theme and the PyData
theme, read at 1440 and 390 px.

At 1440 px the code column holds at least 80 characters and no name is broken or drawn past it (alabaster's 940 px
page once left it about 40 characters, a long line one character per row); at both widths no note covers code and
the page itself never scrolls sideways (a block of code may, on a phone).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from note_layout import settled
from theme_layout import LAYOUT

from infralens.cli import main

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
TARGET = "transformers.models.llama.modeling_llama.repeat_kv"
THEMES = ("alabaster", "furo", "sphinx_rtd_theme", "pydata_sphinx_theme")
MIN_CHARACTERS = 80


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    pytest.importorskip("myst_parser")
    root = tmp_path_factory.mktemp("themes") / "course"
    saved = os.environ.get("INFRALENS_CACHE_DIR")
    os.environ["INFRALENS_CACHE_DIR"] = str(root.parent / "cache")
    try:
        assert main(["init", str(root), "--distribution", "transformers"]) == 0
        assert main(["--project", str(root), "add", TARGET, "--id", "repeat-kv"]) == 0
    finally:
        if saved is None:
            os.environ.pop("INFRALENS_CACHE_DIR")
        else:
            os.environ["INFRALENS_CACHE_DIR"] = saved
    annotation = root / "annotations" / "transformers" / "repeat-kv.yaml"
    text = re.sub(r'summary: "TODO[^"\n]*"', 'summary: "Repeats each key/value head for grouped-query attention."', annotation.read_text("utf-8"))
    text = re.sub(r"TODO: explain `[^\n]*", "A note long enough to wrap over a few rows of the notes column, as real notes do.\n    static: read only", text)
    annotation.write_text(text, "utf-8")
    return root


def _site(project: Path, theme: str) -> Path:
    if importlib.util.find_spec(theme) is None:
        pytest.skip(f"the Sphinx theme {theme} is not installed: pip install -e '.[test,site]'")
    out = project.parent / f"html-{theme}"
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-D", f"html_theme={theme}"]
        + ["-d", str(project.parent / f"doctrees-{theme}"), "docs", str(out)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])},
        check=False,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    return out


@pytest.mark.parametrize("theme", THEMES)
def test_the_code_column_gets_its_width_under_every_theme(browser, project: Path, serve, theme: str) -> None:
    site = _site(project, theme)
    url = f"{serve(site)}/_infralens/source/transformers/{TARGET}.html"
    for width in (1440, 390):
        page = browser.new_page(viewport={"width": width, "height": 900})
        try:
            page.goto(url)
            settled(page)
            found = page.evaluate(LAYOUT)
        finally:
            page.close()
        where = f"{theme} at {width} px: {found}"
        assert found["functions"] == 1 and found["notes"] == 3, where
        assert found["names_broken"] == [] and found["notes_over_code"] == 0 and found["page_overflow"] == 0, where
        if width == 1440:
            assert min(found["code_chars"]) >= MIN_CHARACTERS and found["names_past_column"] == [], where
