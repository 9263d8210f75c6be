"""Fixtures for maintainer-tool tests: a project with a fake upstream package in ``tmp_path``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from _importable import importable_from
from fix_samples import FIX_PYPROJECT, FixProject
from toy_project import write_toy

DIST = "fakedist"

SCHED_SOURCE = '''
class Sched:
    """A fake scheduler."""

    def step(self, x, t):
        """One fake step."""
        prev = t - 1  # the previous timestep
        if prev < 0:
            prev = 0
        y = x * 2
        y = x * 2
        out = combine(
            x,
            y,
        )
        return out

    def other(self):
        prev = 1
        return prev


def combine(a, b):
    return a + b
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """``tmp_path/project`` with annotations/, labs/lab-01-lab/ and the fake package under site/."""
    root = tmp_path / "project"
    package = root / "site" / DIST
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('__version__ = "1.0"\n', "utf-8")  # the release 'lock' records
    (package / "sched.py").write_text(textwrap.dedent(SCHED_SOURCE).lstrip("\n"), "utf-8")
    (root / "annotations" / DIST).mkdir(parents=True)
    (root / "labs" / "lab-01-lab").mkdir(parents=True)
    return root


@pytest.fixture
def cli(project: Path):
    """``cli("add", ...)`` → argv with the global options that point at ``project`` and its fake package."""

    def argv(*args: str) -> list[str]:
        return ["--project", str(project), "--source", f"{DIST}={project / 'site'}", "--no-cache", *args]

    return argv


@pytest.fixture
def fixproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FixProject:
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "project"
    (root / "annotations" / "demo").mkdir(parents=True)
    (root / "labs" / "lab-01-demo").mkdir(parents=True)
    (root / "pyproject.toml").write_text(FIX_PYPROJECT, "utf-8")
    return FixProject(root)


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project about ``toylib`` 1.2.0, importable from ``site/`` (for this process and the verify workers)."""
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "course"
    write_toy(root)
    importable_from(root / "site", "toylib", monkeypatch)
    return root
