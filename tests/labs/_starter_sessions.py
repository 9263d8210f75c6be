"""Every lab starter's runs for the lab tests, made once per test run: one process per lab (``_session.py``).

A starter run costs seconds of importing torch and the libraries before it computes anything, and the lab tests
need each starter six ways (no flags, ``--reveal``, solved with ``--check --reveal``, answers pasted from the
``--reveal`` list, the trap rounds, the cost rounds). :func:`run_session` runs a lab's ``_session.py`` (which
makes all of them in one process) and writes ``<lab>.json`` into a folder; :func:`load_session` reads it back as
:class:`StarterRun` records. Each lab's folder is made once per test run and shared by the xdist workers, as many
labs at a time as there are CPUs (the ``starter_sessions`` fixture in ``tests/labs/conftest.py``), and only for
the labs the tests being run ask for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from _rounds import cost_rounds, has_cost_exercises, trap_rounds
from _starters import ROOT, starter_path
from solutions import SOLUTIONS

SESSION = Path(__file__).with_name("_session.py")
SESSION_TIMEOUT_S = 900
VARIANTS = ("default", "reveal", "solved", "pasted", "traps")


class StarterRun(NamedTuple):
    """One way of running a starter: what its process gave back (the fields the tests read of a CompletedProcess)."""

    returncode: int
    stdout: str
    stderr: str


def session_plan(lab: str) -> dict:
    """What ``_session.py`` runs for *lab*: the solved answers, and the answer rounds of its traps and cost exercises."""
    rounds = {"traps": trap_rounds(lab)}
    if has_cost_exercises(lab):
        rounds["cost"] = cost_rounds(lab)
    return {"solved": SOLUTIONS[lab], "rounds": rounds}


def run_session(lab: str, folder: Path, env: dict[str, str] | None = None) -> None:
    """Run *lab*'s session into ``folder/<lab>.json``; a session that fails gives every variant its output.

    *env*: the environment it runs in (torch on one thread added), else this process's."""
    plan, out = folder / f"{lab}.plan", folder / f"{lab}.json"
    plan.write_text(repr(session_plan(lab)), "utf-8")
    env = dict(os.environ if env is None else env, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    command = [sys.executable, str(SESSION), str(starter_path(lab)), str(plan), str(out)]
    try:
        done = subprocess.run(command, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=SESSION_TIMEOUT_S)
    except subprocess.TimeoutExpired as error:
        failure = [124, str(error.stdout or ""), f"the session of {lab} ran past {SESSION_TIMEOUT_S} s"]
    else:
        if done.returncode == 0 and out.is_file():
            return
        failure = [done.returncode or 1, done.stdout, done.stderr or f"the session of {lab} wrote no results"]
    out.write_text(json.dumps(dict.fromkeys((*VARIANTS, "cost"), failure)), "utf-8")


Sessions = Callable[[tuple[str, ...]], dict[str, dict[str, StarterRun]]]
"""The ``starter_sessions`` fixture: ``sessions(labs)`` is {lab: {variant: run}}."""


def variant_runs(sessions: Sessions, labs: tuple[str, ...], variant: str) -> dict[str, StarterRun]:
    """{lab: its *variant* run} from the ``starter_sessions`` fixture."""
    return {lab: runs[variant] for lab, runs in sessions(labs).items()}


def load_session(folder: Path, lab: str) -> dict[str, StarterRun]:
    """{variant: StarterRun} of *lab*'s session in *folder*."""
    path = folder / f"{lab}.json"
    assert path.is_file(), f"no starter session for {lab} in {folder}"
    return {variant: StarterRun(*run) for variant, run in json.loads(path.read_text("utf-8")).items()}
