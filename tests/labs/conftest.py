"""Fixtures for the lab tests (helpers themselves are in ``_starters.py``)."""

from __future__ import annotations

import subprocess

import pytest
from _starters import run_starters


@pytest.fixture(scope="module")
def starter_runs(request, tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """A solved copy of each starter of the requesting module's ``LABS``, run once per module with ``--steps 2 --check --reveal``."""
    return run_starters(request.module.LABS, tmp_path_factory.mktemp("solved"))
