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


def _run(folder: Path, conftest: str, workers: int | None = 2, extra: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess, Path]:
    """pytest on *folder* (its conftest and four tests of the shared fixture) on *workers* xdist workers (None: no xdist)."""
    (folder / "conftest.py").write_text(textwrap.dedent(conftest), "utf-8")
    for n in range(4):
        (folder / f"test_{n}.py").write_text(TEST.format(n=n), "utf-8")
    log = folder / "builds.log"
    # an outer xdist worker's names (PYTEST_XDIST_WORKER=gw1…) would make the inner run think it is that worker
    outer = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_XDIST")}
    env = dict(outer, BUILDS_LOG=str(log), PYTHONPATH=os.pathsep.join([str(TESTS), *sys.path]))
    parallel = ["-n", str(workers), "--dist", "loadfile"] if workers else ["-p", "no:xdist"]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *parallel, *extra, "--basetemp", str(folder / "tmp"), str(folder)]
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


BACKGROUND_CONFTEST = """
import os, threading, time
import pytest
from _shared import built_once, pytest_addhooks, pytest_collection_modifyitems, run_folder, shared_builds

def build(folder):
    with open(os.environ["BUILDS_LOG"], "a") as log:
        log.write(threading.current_thread().name + "\\n")
    time.sleep(1)
    (folder / "value").write_text("built")

def pytest_infralens_shared_fixtures():
    return ["shared"]

def pytest_infralens_shared_builds(items, factory):
    return [lambda: built_once(factory, "thing", build)] if any("shared" in item.fixturenames for item in items) else []

@pytest.fixture(scope="session", autouse=True)
def background(request, tmp_path_factory):
    with shared_builds(request, tmp_path_factory):
        yield

@pytest.fixture(scope="session")
def shared(tmp_path_factory):
    return built_once(tmp_path_factory, "thing", build)

@pytest.fixture
def built_marker(tmp_path_factory):
    return run_folder(tmp_path_factory) / "shared-thing.built"
"""

WAITS_FOR_THE_BUILD = """
import time

def test_plain(built_marker):
    deadline = time.monotonic() + 60
    while not built_marker.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert built_marker.is_file()  # built while no test had asked for it
"""

SLOW = """
import pytest

@pytest.mark.slow
def test_slow():
    pass
"""


def _collected_files(result: subprocess.CompletedProcess) -> list[str]:
    return list(dict.fromkeys(line.split("::")[0] for line in result.stdout.splitlines() if "::" in line))


@pytest.mark.slow
def test_the_first_worker_builds_what_the_tests_will_ask_for_before_they_ask(tmp_path: Path) -> None:
    """Without xdist the one process starts the build on its thread; the test that needs no build runs first (the
    file that asks for it is dealt last) and sees it finish; the tests that ask read that build, made once."""
    (tmp_path / "test_a_plain.py").write_text(WAITS_FOR_THE_BUILD, "utf-8")
    (tmp_path / "test_b_slow.py").write_text(SLOW, "utf-8")
    result, log = _run(tmp_path, BACKGROUND_CONFTEST, workers=None)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "6 passed" in result.stdout
    assert log.read_text("utf-8").split() == ["shared-builds"]


@pytest.mark.slow
def test_files_are_dealt_long_ones_first_and_those_that_wait_on_a_shared_build_last(tmp_path: Path) -> None:
    (tmp_path / "test_a_plain.py").write_text("def test_plain():\n    pass\n", "utf-8")
    (tmp_path / "test_b_slow.py").write_text(SLOW, "utf-8")
    result, _ = _run(tmp_path, BACKGROUND_CONFTEST, workers=None, extra=("--collect-only",))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert _collected_files(result) == ["test_b_slow.py", "test_a_plain.py", "test_0.py", "test_1.py", "test_2.py", "test_3.py"]
