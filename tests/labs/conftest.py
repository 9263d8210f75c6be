"""Fixtures for the lab tests (helpers themselves are in ``_starters.py`` and ``_starter_sessions.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from _shared import built_once
from _starter_sessions import StarterRun, load_session, run_sessions, variant_runs
from solutions import SOLUTIONS


@pytest.fixture(scope="session")
def starter_sessions(tmp_path_factory) -> Callable[[str], dict[str, StarterRun]]:
    """``starter_sessions(lab)``: {variant: run} of every starter, made once per test run for all xdist workers."""
    folder = built_once(tmp_path_factory, "starter-sessions", lambda folder: run_sessions(tuple(SOLUTIONS), folder))
    return lambda lab: load_session(folder, lab)


@pytest.fixture(scope="module")
def starter_runs(request, starter_sessions) -> dict[str, StarterRun]:
    """Each starter of the requesting module's ``LABS`` with the right answers, run with ``--steps 2 --check --reveal``."""
    return variant_runs(starter_sessions, request.module.LABS, "solved")
