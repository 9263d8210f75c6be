"""Build something expensive once per test run, however many pytest-xdist workers ask for it.

Under xdist every worker runs its own session, so a session fixture would build the docs site (or run a mutation
pass) once per worker. :func:`built_once` builds into a folder every worker of this run sees (the parent of the
workers' own temporary folders), under a file lock: the first worker builds, the others wait and read the result.
A build that fails is recorded, so the other workers fail with its message instead of building it again.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
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
