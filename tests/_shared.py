"""Build something expensive once per test run, however many pytest-xdist workers ask for it.

Under xdist every worker runs its own session, so a session fixture would build the docs site (or run a mutation
pass) once per worker. :func:`built_once` builds into a folder every worker of this run sees (the parent of the
workers' own temporary folders), under a file lock: the first worker builds, the others wait and read the result.
A build that fails is recorded, so the other workers fail with its message instead of building it again.

A worker that waits on that lock leaves its core idle. So one worker starts the builds its run's tests will ask
for on a thread of its own as soon as the run starts (:func:`build_in_background`, the ``pytest_infralens_shared_builds`` hook), and
the files that use them are dealt out last (:func:`dealing_order`): by the time a test asks, its build is done or
under way while the other tests keep both cores busy.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from filelock import FileLock


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """The temporary folder of this whole test run: shared by its xdist workers, new for each run."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """``<run folder>/shared-<name>``, filled by ``build(folder)`` by the first worker that asks."""
    folder = run_folder(factory) / f"shared-{name}"
    done, failed = folder.with_name(folder.name + ".built"), folder.with_name(folder.name + ".failed")
    with FileLock(str(folder.with_name(folder.name + ".lock"))):
        if failed.is_file():
            pytest.fail(f"{name}: another worker's build of it failed:\n{failed.read_text('utf-8')}", pytrace=False)
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            try:
                build(folder)
            except BaseException as error:
                failed.write_text(str(error) or type(error).__name__, "utf-8")
                raise
            done.touch()
    return folder


class SharedBuildSpec:
    """The hooks of the shared builds, added by tests/conftest.py: each conftest that owns such a build answers them."""

    @pytest.hookspec
    def pytest_infralens_shared_fixtures(self) -> list[str]:
        """The names of the fixtures that read a shared build (tests that use one are dealt last)."""

    @pytest.hookspec
    def pytest_infralens_shared_builds(self, items: list[pytest.Item], factory: pytest.TempPathFactory) -> list[Callable[[], object]]:
        """The :func:`built_once` calls the selected *items* will need, each as a call with no arguments."""


def build_in_background(jobs: Iterable[Callable[[], object]]) -> Callable[[], None]:
    """Run *jobs* one after another on a thread; give back a call that lets the current one end, then returns.

    A job that fails is not reported here: :func:`built_once` recorded it, and the test that asks for that build
    fails with its message.
    """
    stop = threading.Event()

    def work() -> None:
        for job in jobs:
            if stop.is_set():
                return
            with contextlib.suppress(BaseException):  # recorded by built_once: the fixture that needs it fails
                job()

    thread = threading.Thread(target=work, name="shared-builds", daemon=True)
    thread.start()

    def finish() -> None:
        stop.set()
        thread.join()

    return finish


def builds_here() -> bool:
    """Whether this process starts the run's shared builds: the only process, or the first xdist worker."""
    return os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0"


@contextlib.contextmanager
def shared_builds(request: pytest.FixtureRequest, factory: pytest.TempPathFactory) -> Iterator[None]:
    """On the first worker, the builds the selected tests will need (the ``pytest_infralens_shared_builds`` answers)
    run in the background while the block runs; at its end the build under way is waited for, no new one started."""
    jobs = request.config.hook.pytest_infralens_shared_builds(items=request.session.items, factory=factory) if builds_here() else []
    # pytest makes its base temporary folder on first asking, emptying it first: ask here, before the thread can, or a
    # test asking at the same moment empties it under the build (seen under load)
    run_folder(factory)
    finish = build_in_background([job for answer in jobs for job in answer]) if any(jobs) else None
    try:
        yield
    finally:
        if finish is not None:
            finish()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(SharedBuildSpec)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files that start long work first, files that wait on a shared build last (:func:`dealing_order`)."""
    items[:] = dealing_order(items, {name for names in config.hook.pytest_infralens_shared_fixtures() for name in names})


def dealing_order(items: list[pytest.Item], shared_fixtures: set[str]) -> list[pytest.Item]:
    """*items* file by file, in the order pytest-xdist should deal the files out (with ``--no-loadscope-reorder``).

    First the files with a test marked slow (the long ones start early, so no worker is left with one at the
    end), then the other files that need no shared build, then the files whose tests use one of *shared_fixtures*
    (the browser files before the others, the lab files, which read the starter sessions and are quick once those
    exist). Within a rank the collection order holds.
    """
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)

    def rank(tests: list[pytest.Item]) -> int:
        shared = any(shared_fixtures.intersection(getattr(test, "fixturenames", ())) for test in tests)
        if shared:
            return 2 if any(test.get_closest_marker("browser") for test in tests) else 3
        return 0 if any(test.get_closest_marker("slow") for test in tests) else 1

    ordered = sorted(files.values(), key=rank)  # sorted() is stable: collection order within a rank
    return [test for tests in ordered for test in tests]
