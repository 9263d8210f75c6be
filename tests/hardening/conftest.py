"""Fixtures of the write tests (``test_write_targets``, ``test_write_races``): their two small projects, each with
a cache of its own. Samples are imported when a fixture is used, so other hardening tests never load them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One annotated function of a fake distribution (``write_samples.small_project``)."""
    from write_samples import small_project

    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    return small_project(tmp_path / "project")


@pytest.fixture
def fixproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The ``demo`` project of the ``fix`` tests (a ``fix_samples.FixProject``)."""
    from write_samples import new_fix_project

    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    return new_fix_project(tmp_path / "project")
