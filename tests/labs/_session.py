"""Run one lab starter every way the lab tests need, in one process, so torch and the libraries load once.

Usage::

    python tests/labs/_session.py STARTER PLAN OUT

*PLAN* is a file holding a Python literal: ``{"solved": {...}, "rounds": {"traps": [...], "cost": [...]}}``.
The starter runs twice, exactly as a learner runs it: first with no flags (variant ``default``), then with
``--steps 2 --check --reveal``, up to its call of ``labkit.finish``. There the right answers are computed once,
and the real ``finish`` is called for each variant with that variant's flags and answers:

- ``reveal``: ``--steps 2 --reveal`` with the answers the starter ships (the ``--reveal`` list);
- ``solved``: ``--steps 2 --check --reveal`` with *PLAN*'s ``solved`` answers;
- ``pasted``: ``--steps 2 --check`` with every answer pasted literally from the ``--reveal`` list;
- one variant per entry of ``rounds``: the ``--reveal`` list, then ``--check`` for each answers dict in turn,
  between ``== round N`` and ``== round N exit CODE`` lines.

A variant's output is the run's output up to ``finish`` followed by its own ``finish`` output; its exit code is
``finish``'s (every starter ends with ``return finish(...)``). Output is captured at the file descriptors, so
warnings and native-library messages are kept. *OUT* gets ``{variant: [exit code, stdout, stderr]}`` as JSON.
Starters' ``--check --reveal`` code paths differ from ``--reveal`` or ``--check`` alone only inside ``finish`` and
in :func:`labkit.reveal`, which shows values the output otherwise hides: the variants without ``--reveal`` carry the
revealed output before their ``finish`` part (the tests read only that part of them).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

Captured = tuple[int, str, str]
CHECKED_ARGV = ("--steps", "2", "--check", "--reveal")


def captured(call: Callable[[], Any]) -> Captured:
    """(exit code, stdout, stderr) of *call*, read from file descriptors 1 and 2, as a process would give them."""
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            code = _exit_code(call)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        out.seek(0)
        err.seek(0)
        return code, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")


def _exit_code(call: Callable[[], Any]) -> int:
    """What ``sys.exit(call())`` would make the process exit with, a traceback printed for an exception."""
    try:
        result = call()
    except SystemExit as stop:
        result = stop.code
    except BaseException:
        traceback.print_exc()
        return 1
    if result is None or isinstance(result, int):
        return result or 0
    print(result, file=sys.stderr)
    return 1


def load_starter(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location("lab_starter_in_session", path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class body runs
    spec.loader.exec_module(module)
    return module


def run_main(module: ModuleType, starter: str, argv: tuple[str, ...]) -> Captured:
    """``python STARTER ARGV...``: the starter's ``main`` with ``sys.argv`` as the command line would set it."""
    sys.argv = [starter, *argv]
    return captured(lambda: module.main(list(argv)))


def main(argv: list[str]) -> int:
    starter, plan_file, out_file = argv
    plan = ast.literal_eval(Path(plan_file).read_text("utf-8"))
    sys.path.insert(0, str(Path(__file__).parent))
    from _answers import answers_source, revealed_answers

    from infralens.tiny import labkit

    module = load_starter(starter)
    shipped = dict(module.ANSWERS)
    results: dict[str, Captured] = {"default": run_main(module, starter, ())}

    seen: dict[str, Any] = {}

    def finish_once(args: argparse.Namespace, answers: dict, computed: Any, **options: Any) -> int:
        seen.update(args=args, right=computed() if callable(computed) else computed, options=options)
        return 0

    module.finish = finish_once
    module.ANSWERS = dict(plan["solved"])  # --check stops at once while every answer is empty
    code, before_out, before_err = run_main(module, starter, CHECKED_ARGV)
    variants = ["reveal", "solved", "pasted", *plan["rounds"]]
    if code or "right" not in seen:
        results.update(dict.fromkeys(variants, (code or 1, before_out, before_err + "\n(the starter never reached finish)")))
        Path(out_file).write_text(json.dumps(results), "utf-8")
        return 0
    right, options = seen["right"], seen["options"]

    def replay(check: bool, reveal: bool, answers: dict) -> Captured:
        args = argparse.Namespace(**dict(vars(seen["args"]), check=check, reveal=reveal))
        code, out, err = captured(lambda: labkit.finish(args, answers, right, **options))
        return code, before_out + out, before_err + err

    def rounds(answers_list: list[dict]) -> Captured:
        args = argparse.Namespace(**dict(vars(seen["args"]), check=True, reveal=False))

        def report() -> int:
            labkit.print_right_answers({key: right[key] for key in answers_list[0] if key in right})
            for number, answers in enumerate(answers_list):
                print(f"== round {number}")
                print(f"== round {number} exit {labkit.finish(args, answers, right, **options)}")
            return 0

        code, out, err = captured(report)
        return code, before_out + out, before_err + err

    results["reveal"] = replay(False, True, shipped)
    results["solved"] = replay(True, True, plan["solved"])
    pasted: dict[str, Any] = {}
    exec(answers_source(revealed_answers(results["reveal"][1])), {}, pasted)  # the ANSWERS block a learner pastes
    results["pasted"] = replay(True, False, pasted["ANSWERS"])
    for name, answers_list in plan["rounds"].items():
        results[name] = rounds(answers_list)
    Path(out_file).write_text(json.dumps(results), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
