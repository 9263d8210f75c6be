"""A read-only checkout builds: generated pages go beside the doctrees, nothing is written into the source dir."""

from __future__ import annotations

import os
import shutil
import stat
from io import StringIO
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from sphinx.testing.util import SphinxTestApp

from infralens.sphinx import staging

ROOT = Path(__file__).resolve().parents[1] / "sphinx" / "roots" / "test-basic"


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def set_writable(folder: Path, on: bool) -> None:
    for path in [folder, *folder.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode | stat.S_IWUSR if on else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


@pytest.fixture
def read_only_root(tmp_path, monkeypatch):
    root = tmp_path / "checkout"
    shutil.copytree(ROOT, root, ignore=shutil.ignore_patterns("_build", "__pycache__", "_infralens"))
    set_writable(root, False)
    if os.geteuid() == 0:  # root writes through file modes; say what a read-only mount would say
        real = staging.writable
        monkeypatch.setattr(staging, "writable", lambda folder: False if folder.resolve().is_relative_to(root.resolve()) else real(folder))
    yield root
    set_writable(root, True)


def test_a_read_only_checkout_builds_with_outputs_elsewhere(read_only_root, tmp_path):
    before = snapshot(read_only_root)
    warnings = StringIO()
    app = SphinxTestApp("html", srcdir=read_only_root, builddir=tmp_path / "build", warning=warnings, confoverrides={"suppress_warnings": []})
    try:
        app.build()
    finally:
        app.cleanup()
    assert snapshot(read_only_root) == before, "the build wrote into the read-only source dir"
    out = Path(app.outdir)
    staged = Path(app.doctreedir) / staging.STAGING_FOLDER / "_infralens"
    assert (staged / "labs" / "lab-01-toy" / "index.md").is_file()
    # The same pages as a normal build, under the same names: lab, source browser, function page.
    for page in ("_infralens/labs/lab-01-toy/index.html", "_infralens/source/index.html", "_infralens/source/toypkg/toypkg.mixing.blend.html"):
        assert (out / page).is_file(), page
    index = (out / "index.html").read_text()
    assert "_infralens/labs/index.html" in index
    assert "Read the blend function." in (out / "_infralens/labs/lab-01-toy/index.html").read_text()
    text = warnings.getvalue()
    assert "WARNING" not in text, text


def test_a_second_build_is_incremental(read_only_root, tmp_path):
    for expected_reads in (None, 0):
        warnings, status = StringIO(), StringIO()
        app = SphinxTestApp("html", srcdir=read_only_root, builddir=tmp_path / "build", warning=warnings, status=status)
        try:
            app.build()
        finally:
            app.cleanup()
        if expected_reads == 0:
            assert "0 added, 0 changed, 0 removed" in status.getvalue(), status.getvalue()
