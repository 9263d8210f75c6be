"""Fixtures for the lab tests (helpers themselves are in ``_starters.py`` and ``_starter_sessions.py``)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from _shared import built_once
from _starter_sessions import Sessions, StarterRun, load_session, run_session, session_plan, variant_runs


def _session_folder(factory: pytest.TempPathFactory, lab: str, env: dict[str, str] | None = None, plan: dict | None = None) -> Path:
    """The folder of *lab*'s starter session, made once per test run for all xdist workers (*plan*: its session plan,
    when worked out beforehand)."""
    return built_once(factory, f"starter-session-{lab}", lambda folder: run_session(lab, folder, env, plan))


@pytest.fixture(scope="session")
def starter_sessions(tmp_path_factory) -> Sessions:
    """``starter_sessions(labs)``: {lab: {variant: run}}, each lab's session made once per test run for all xdist
    workers, as many at a time as there are CPUs (a lab another worker is making is waited for, not made again)."""

    def one(lab: str) -> dict[str, StarterRun]:
        return load_session(_session_folder(tmp_path_factory, lab), lab)

    def sessions(labs: tuple[str, ...]) -> dict[str, dict[str, StarterRun]]:
        with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
            return dict(zip(labs, pool.map(one, labs), strict=True))

    return sessions


def pytest_infralens_shared_fixtures():
    return ["starter_sessions"]


def pytest_infralens_shared_builds(items, factory):
    """The starter sessions of every lab a selected test reads (as ``selected_labs`` chooses them), one after another,
    in the environment of now (a test running meanwhile may change ``os.environ``).

    Their plans are worked out here, on the main thread, before the builds start on their own thread: a plan reads
    literals with ``ast``, and CPython 3.11 keeps the AST builder's recursion count per interpreter, not per thread,
    so an ``ast`` call on the build thread while a test parses on the main one can fail either with "AST constructor
    recursion depth mismatch"."""
    labs: dict[str, None] = {}
    for item in items:
        if "starter_sessions" in getattr(item, "fixturenames", ()):
            lab = getattr(item, "callspec", None) and item.callspec.params.get("lab")
            labs.update(dict.fromkeys([lab] if lab else getattr(item.module, "LABS", ())))
    env = dict(os.environ)
    plans = {lab: session_plan(lab) for lab in labs}
    return [lambda lab=lab: _session_folder(factory, lab, env, plans[lab]) for lab in sorted(labs)]


@pytest.fixture(scope="module")
def selected_labs(request) -> tuple[str, ...]:
    """The labs of the requesting module's ``LABS`` that its selected tests use: those they are parametrized with,
    or all of them when a selected test of the module takes no ``lab`` parameter."""
    items = [item for item in request.session.items if item.module is request.module]
    chosen = {getattr(item, "callspec", None) and item.callspec.params.get("lab") for item in items}
    return tuple(request.module.LABS) if None in chosen else tuple(lab for lab in request.module.LABS if lab in chosen)


@pytest.fixture(scope="module")
def starter_runs(starter_sessions, selected_labs) -> dict[str, StarterRun]:
    """Each selected starter with the right answers, run with ``--steps 2 --check --reveal``."""
    return variant_runs(starter_sessions, selected_labs, "solved")
