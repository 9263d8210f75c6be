"""Shared fixtures for the cost tests: the project's catalog, read once."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def catalog():
    from infralens.cost import load_catalog

    return load_catalog(ROOT / "costs" / "models.yaml")
