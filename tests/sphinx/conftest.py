"""Sphinx test roots: tiny projects over a synthetic package (``roots/test-*/src/toypkg``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

# sphinx.testing.fixtures is enabled in the root tests/conftest.py (pytest only allows pytest_plugins there).

ROOTS = Path(__file__).parent / "roots"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return ROOTS


@pytest.fixture(autouse=True)
def _private_index_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "index-cache"))


@pytest.fixture
def fresh_root(tmp_path: Path):
    """Copy a test root into ``tmp_path`` so a test may edit it; returns the copy's path."""

    def copy(name: str = "basic", dest: str | None = None) -> Path:
        target = tmp_path / (dest or f"test-{name}")
        shutil.copytree(ROOTS / f"test-{name}", target)
        return target

    return copy
