"""Parallel and repeated site builds: ``sphinx-build -j 2`` equals ``-j 1``; a no-change rebuild reads nothing.

Runs the real ``sphinx-build`` command line on copies of the Sphinx extension's small test root.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

pytest.importorskip("sphinx")

from sphinx.testing.util import SphinxTestApp

ROOT = Path(__file__).resolve().parents[1] / "sphinx" / "roots" / "test-basic"
VOLATILE = re.compile(r"\?v=[0-9a-f]+")
SPECIAL = {"genindex.html", "search.html"}
"""Pages Sphinx writes on every build, changed or not."""


def sphinx_build(src: Path, out: Path, jobs: int, cache: Path) -> str:
    env = {**os.environ, "INFRALENS_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-j", str(jobs), "-W", "--keep-going", str(src), str(out)],
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout + done.stderr


def pages(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): VOLATILE.sub("", p.read_text("utf-8")) for p in sorted(out.rglob("*.html"))}


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory):
    base = tmp_path_factory.mktemp("parallel")
    serial_src, parallel_src = base / "serial", base / "parallel"
    shutil.copytree(ROOT, serial_src)
    shutil.copytree(ROOT, parallel_src)
    sphinx_build(serial_src, base / "out-1", 1, base / "cache-1")  # separate caches: -j 2 parses cold too
    sphinx_build(parallel_src, base / "out-2", 2, base / "cache-2")
    return base


def test_j2_produces_the_same_pages_as_j1(two_builds):
    serial, parallel = pages(two_builds / "out-1"), pages(two_builds / "out-2")
    assert len(serial) >= 5 and sorted(serial) == sorted(parallel)
    for name in serial:
        assert parallel[name] == serial[name], f"{name} differs between -j 1 and -j 2"


def test_second_build_with_nothing_changed_reads_and_writes_nothing(two_builds):
    src, out = two_builds / "parallel", two_builds / "out-2"
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*.html") if p.name not in SPECIAL}
    read: list[str] = []
    app = SphinxTestApp("html", srcdir=src, warning=StringIO())
    # SphinxTestApp builds into src/_build; build there twice: the second build must read nothing.
    app.build()
    app.cleanup()
    again = SphinxTestApp("html", srcdir=src, warning=StringIO())
    again.connect("env-before-read-docs", lambda app, env, docnames: read.extend(docnames))
    written: list[str] = []
    again.connect("html-page-context", lambda app, pagename, *rest: written.append(pagename))
    again.build()
    again.cleanup()
    assert read == [] and set(written) <= {"genindex", "search"}  # Sphinx always regenerates these two
    log = sphinx_build(src, out, 2, two_builds / "cache-2")
    assert "0 added, 0 changed, 0 removed" in log and "no targets are out of date" in log
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.html") if p.name not in SPECIAL} == stamps
