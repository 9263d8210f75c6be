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

import atexit
import json
import os
import signal
import subprocess
import sys
import threading
import time
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


PLAN_LOCK = threading.Lock()
"""Held while a thread works out a session plan: CPython 3.11's AST builder keeps one recursion count per interpreter,
so two threads reading literals with ``ast`` at once can fail ("AST constructor recursion depth mismatch")."""


def session_plan(lab: str) -> dict:
    """What ``_session.py`` runs for *lab*: the solved answers, and the answer rounds of its traps and cost exercises."""
    rounds = {"traps": trap_rounds(lab)}
    if has_cost_exercises(lab):
        rounds["cost"] = cost_rounds(lab)
    return {"solved": SOLUTIONS[lab], "rounds": rounds}


def run_session(lab: str, folder: Path, env: dict[str, str] | None = None, plan: dict | None = None) -> None:
    """Run *lab*'s session into ``folder/<lab>.json``; a session that fails gives every variant its output.

    *env*: the environment it runs in (torch on one thread added), else this process's; *plan*: its
    :func:`session_plan`, when already worked out (else worked out here). The session is a child of
    this process's zygote (``_zygote.py``: torch and the libraries imported once) when it imports quietly, else a
    fresh process."""
    plan_file, out = folder / f"{lab}.plan", folder / f"{lab}.json"
    if plan is None:
        with PLAN_LOCK:  # the pool threads of ``starter_sessions`` may each work one out: one ``ast`` user at a time
            plan = session_plan(lab)
    plan_file.write_text(repr(plan), "utf-8")
    env = dict(os.environ if env is None else env, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    args = [str(starter_path(lab)), str(plan_file), str(out)]
    forked = ZYGOTE.run(args, env, folder / f"{lab}.log")
    if forked is not None:
        failure = None if forked == 0 and out.is_file() else [forked or 1, "", _tail(folder / f"{lab}.log") or f"the session of {lab} wrote no results"]
    else:
        failure = _fresh_process(lab, args, env, out)
    if failure is not None:
        out.write_text(json.dumps(dict.fromkeys((*VARIANTS, "cost"), failure)), "utf-8")


def _fresh_process(lab: str, args: list[str], env: dict[str, str], out: Path) -> list | None:
    """Run the session as ``python _session.py ARGS``; None when it wrote its results, else every variant's failure."""
    try:
        done = subprocess.run([sys.executable, str(SESSION), *args], check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=SESSION_TIMEOUT_S)
    except subprocess.TimeoutExpired as error:
        return [124, str(error.stdout or ""), f"the session of {lab} ran past {SESSION_TIMEOUT_S} s"]
    if done.returncode == 0 and out.is_file():
        return None
    return [done.returncode or 1, done.stdout, done.stderr or f"the session of {lab} wrote no results"]


def _tail(log: Path) -> str:
    return log.read_text("utf-8", "replace")[-20_000:] if log.is_file() else ""


class Zygote:
    """This process's ``_zygote.py``, started on first use: :meth:`run` forks a session from it and waits for it.

    ``run`` returns None (run a fresh process instead) when the zygote cannot be used: it did not start, or its
    preloaded imports printed something (a learner's output must keep every line)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._usable: bool | None = None

    def run(self, args: list[str], env: dict[str, str], log: Path) -> int | None:
        with self._lock:
            if self._usable is None:
                self._usable = self._start(env)
            if not self._usable or self._process is None or self._process.poll() is not None:
                return None
            assert self._process.stdin and self._process.stdout
            self._process.stdin.write(json.dumps({"args": args, "env": env, "cwd": str(ROOT), "log": str(log)}) + "\n")
            self._process.stdin.flush()
            answer = self._process.stdout.readline()
            if not answer:  # the zygote is gone: fresh processes from now on
                self._usable = False
                return None
            pid = json.loads(answer)["pid"]
        return _wait_for(pid, Path(args[2] + ".exit"))

    def _start(self, env: dict[str, str]) -> bool:
        try:
            self._process = subprocess.Popen([sys.executable, str(ZYGOTE_SCRIPT)], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            assert self._process.stdout
            ready = json.loads(self._process.stdout.readline() or "{}").get("ready", False)
        except (OSError, ValueError):
            return False
        if not ready:
            self._process.wait()
            return False
        atexit.register(self.stop)
        return True

    def stop(self) -> None:
        """End the zygote (sessions it forked run on); a later :meth:`run` runs fresh processes."""
        with self._lock:
            self._usable = False
            if self._process is not None and self._process.stdin and not self._process.stdin.closed:
                self._process.stdin.close()
                self._process.wait(timeout=30)


def _wait_for(pid: int, exit_file: Path) -> int:
    """The exit code a forked session wrote to *exit_file*, once its process is gone (1 if it died without one; it
    is killed after ``SESSION_TIMEOUT_S``, 124)."""
    deadline = time.monotonic() + SESSION_TIMEOUT_S
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return int(exit_file.read_text("utf-8")) if exit_file.is_file() else 1
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            return 124
        time.sleep(0.05)


ZYGOTE_SCRIPT = Path(__file__).with_name("_zygote.py")
ZYGOTE = Zygote()
"""The zygote of this test process (one per xdist worker that makes a session)."""


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
