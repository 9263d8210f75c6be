"""``tests/_shared.built_once``: two xdist workers asking for the same fixture build it once, and both read it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]

CONFTEST = """
import os, time
import pytest
from _shared import built_once

@pytest.fixture(scope="session")
def shared(tmp_path_factory):
    def build(folder):
        with open(os.environ["BUILDS_LOG"], "a") as log:
            log.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")
        time.sleep(1)  # the other worker asks meanwhile
        (folder / "value").write_text("built")
    return built_once(tmp_path_factory, "thing", build)
"""

TEST = """
def test_{n}(shared):
    assert (shared / "value").read_text() == "built"
"""

FAILING_CONFTEST = """
import pytest
from _shared import built_once

@pytest.fixture(scope="session")
def shared(tmp_path_factory):
    def build(folder):
        raise RuntimeError("the build broke")
    return built_once(tmp_path_factory, "thing", build)
"""


def _run(folder: Path, conftest: str) -> tuple[subprocess.CompletedProcess, Path]:
    (folder / "conftest.py").write_text(textwrap.dedent(conftest), "utf-8")
    for n in range(4):
        (folder / f"test_{n}.py").write_text(TEST.format(n=n), "utf-8")
    log = folder / "builds.log"
    env = dict(os.environ, BUILDS_LOG=str(log), PYTHONPATH=os.pathsep.join([str(TESTS), *sys.path]))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadfile", "--basetemp", str(folder / "tmp"), str(folder)]
    result = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300, check=False)
    return result, log


@pytest.mark.slow
def test_two_workers_build_a_shared_fixture_once(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    result, log = _run(tmp_path, CONFTEST)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "4 passed" in result.stdout
    builders = log.read_text("utf-8").split()
    assert len(builders) == 1 and builders[0].startswith("gw"), builders


@pytest.mark.slow
def test_a_failed_build_fails_every_test_with_its_message_and_is_not_retried(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    result, _ = _run(tmp_path, FAILING_CONFTEST)
    assert result.returncode == 1 and "4 error" in result.stdout, result.stdout[-3000:]
    assert "the build broke" in result.stdout and "another worker's build of it failed" in result.stdout
