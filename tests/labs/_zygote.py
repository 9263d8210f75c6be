"""A process that imports torch and the libraries once, then forks one child per starter session it is asked for.

Usage (by :class:`_starter_sessions.Zygote`, never by hand)::

    python tests/labs/_zygote.py

Every starter session (``_session.py``) used to start a fresh Python that spent seconds importing torch, diffusers
and transformers before the starter computed anything. Here those imports happen once (:data:`PRELOAD`, each of
which imports quietly: the starters' own heavy imports, which print library warnings, still happen in each child,
inside the captured run, as for a learner). If a preload writes anything to stdout or stderr, the zygote says so and
stops, and the sessions run as fresh processes: a learner's output must never lose a line because it was printed
once, here.

Protocol, one JSON object per line. The zygote first writes ``{"ready": true}`` (or ``{"ready": false, "noise":
...}`` and exits). Then for each request ``{"args": [STARTER, PLAN, OUT], "env": {...}, "cwd": ..., "log": ...}`` read
from stdin it forks a child, answers ``{"pid": N}`` at once and reads the next request, so sessions run side by side.
The child takes the request's environment and folder, sends its stdout and stderr to *log*, runs
``_session.main(args)`` and writes its exit code to ``OUT.exit`` before it exits. Children are reaped by the kernel
(SIGCHLD ignored): the client waits for ``OUT.exit`` and for the pid to be gone.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import tempfile
import traceback
from pathlib import Path

PRELOAD = ("numpy", "torch", "diffusers", "transformers", "infralens.tiny.labkit", "_answers")
"""Modules imported once before any fork: the ones every starter imports and that import without a word
(``ZYGOTE_PRELOAD``, comma-separated, replaces the list: the zygote's own tests use it)."""


def _answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _preload() -> str:
    """Import :data:`PRELOAD`; what they wrote to file descriptors 1 and 2, if anything."""
    from _session import captured

    names = [name for name in os.environ.get("ZYGOTE_PRELOAD", ",".join(PRELOAD)).split(",") if name]
    code, out, err = captured(lambda: [importlib.import_module(name) for name in names] and 0)
    return (out + err) if (code or out or err) else ""


def _child(request: dict) -> None:
    """Run one session in this forked child; never returns."""
    code = 1
    out = Path(request["args"][2])
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the starter may start and wait for processes of its own
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None  # read TMPDIR again from the request's environment
        os.chdir(request["cwd"])
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        from _session import main

        code = main(list(request["args"]))
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        written = out.with_name(out.name + ".exit.tmp")
        written.write_text(str(code), "utf-8")
        os.replace(written, out.with_name(out.name + ".exit"))
        os._exit(code)


def main() -> int:
    noise = _preload()
    if noise:
        _answer({"ready": False, "noise": noise[-2000:]})
        return 0
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    _answer({"ready": True})
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        _answer({"pid": pid})
    return 0


if __name__ == "__main__":
    sys.exit(main())
