"""``_session.py`` gives each variant what a separate run of the starter would give: run on a toy starter (no torch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from _starter_sessions import Zygote

SESSION = Path(__file__).with_name("_session.py")
ROOT = Path(__file__).resolve().parents[2]

TOY = '''"""Toy starter: prints a fact, a hidden value, and ends with finish."""
import os
import sys

from infralens.tiny.labkit import finish, lab_arguments, reveal

ANSWERS = {"double": None, "name": None}
CALLS = []


def main(argv=None):
    args = lab_arguments(__doc__, ANSWERS, steps=3, steps_help="steps").parse_args(argv)
    CALLS.append(args.steps)
    print(f"fact: {args.steps} steps, the double is {reveal(2 * args.steps)}")
    os.write(2, b"native note\\n")
    if FAIL:
        raise RuntimeError("the toy broke")
    return finish(args, ANSWERS, lambda: {"double": 2 * args.steps, "name": "toy"})


FAIL = False

if __name__ == "__main__":
    sys.exit(main())
'''


def _files(tmp_path: Path, source: str, plan: dict) -> list[str]:
    """The starter, plan and results paths of a session of *source* (the first two written)."""
    starter, plan_file, out = tmp_path / "starter.py", tmp_path / "plan.txt", tmp_path / "out.json"
    starter.write_text(source, "utf-8")
    plan_file.write_text(repr(plan), "utf-8")
    return [str(starter), str(plan_file), str(out)]


def _session(tmp_path: Path, source: str, plan: dict) -> dict:
    *_, out = args = _files(tmp_path, source, plan)
    command = [sys.executable, str(SESSION), *args]
    done = subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(Path(out).read_text("utf-8"))


def test_each_variant_gets_its_own_finish_after_the_shared_run(tmp_path):
    rounds = [{"double": 4, "name": "toy"}, {"double": 5, "name": "toy"}]
    runs = _session(tmp_path, TOY, {"solved": {"double": 4, "name": "toy"}, "rounds": {"traps": rounds}})
    assert set(runs) == {"default", "reveal", "solved", "pasted", "traps"}
    code, out, err = runs["default"]
    assert code == 0 and "fact: 3 steps, the double is [--reveal]" in out and "--check" in out and err == "native note\n"
    code, out, _ = runs["reveal"]
    assert code == 0 and "fact: 2 steps, the double is 4" in out and "  double = 4\n  name = 'toy'" in out and "check:" not in out
    code, out, _ = runs["solved"]
    assert code == 0 and "check: 2/2 answers correct" in out
    code, out, _ = runs["pasted"]
    assert code == 0 and "check: 2/2 answers correct" in out
    code, out, _ = runs["traps"]
    assert code == 0 and "== round 0 exit 0" in out and "== round 1 exit 1" in out and "[WRONG] double: your answer 5" in out


def test_a_wrong_solution_fails_its_variant_only(tmp_path):
    runs = _session(tmp_path, TOY, {"solved": {"double": 7, "name": "toy"}, "rounds": {}})
    assert runs["solved"][0] == 1 and "[WRONG] double" in runs["solved"][1]
    assert runs["reveal"][0] == 0 and runs["pasted"][0] == 0


def test_a_starter_that_raises_fails_every_variant_with_its_traceback(tmp_path):
    runs = _session(tmp_path, TOY.replace("FAIL = False", "FAIL = True"), {"solved": {"double": 4, "name": "toy"}, "rounds": {"traps": []}})
    assert set(runs) == {"default", "reveal", "solved", "pasted", "traps"}
    for variant, (code, _, err) in runs.items():
        assert code == 1, variant
        assert "RuntimeError: the toy broke" in err and "Traceback" in err, variant


def _zygote_session(tmp_path: Path, source: str, plan: dict, preload: str) -> tuple[int | None, dict | None]:
    """A session of *source* forked from a fresh zygote whose preload is *preload*: (exit code, results), or
    (None, None) when the zygote refused to fork."""
    *_, out = args = _files(tmp_path, source, plan)
    env = {**os.environ, "ZYGOTE_PRELOAD": preload, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    zygote = Zygote()
    try:
        code = zygote.run(args, env, tmp_path / "session.log")
    finally:
        zygote.stop()
    return code, (json.loads(Path(out).read_text("utf-8")) if code is not None else None)


def test_a_session_forked_from_the_zygote_gives_what_a_fresh_process_gives(tmp_path):
    plan = {"solved": {"double": 4, "name": "toy"}, "rounds": {"traps": [{"double": 5, "name": "toy"}]}}
    for folder in ("fresh", "forked"):
        (tmp_path / folder).mkdir()
    fresh = _session(tmp_path / "fresh", TOY, plan)
    code, forked = _zygote_session(tmp_path / "forked", TOY, plan, "json,infralens.tiny.labkit")
    assert code == 0 and forked == fresh
    assert forked["default"][2] == "native note\n"  # what the starter writes to file descriptor 2 stays in its run


def test_a_failing_session_forked_from_the_zygote_keeps_its_traceback(tmp_path):
    plan = {"solved": {"double": 4, "name": "toy"}, "rounds": {"traps": []}}
    code, forked = _zygote_session(tmp_path, TOY.replace("FAIL = False", "FAIL = True"), plan, "json")
    assert code == 0 and forked is not None
    assert {variant: run[0] for variant, run in forked.items()} == dict.fromkeys(forked, 1)
    assert "RuntimeError: the toy broke" in forked["solved"][2]


def test_a_zygote_whose_preload_prints_is_not_used(tmp_path):
    """A learner's run prints what its imports print: a preload that prints would hide those lines from every session."""
    (tmp_path / "noisy_import.py").write_text("print('a library says hello')\n", "utf-8")
    plan = {"solved": {"double": 4, "name": "toy"}, "rounds": {"traps": []}}
    assert _zygote_session(tmp_path, TOY, plan, "json,noisy_import") == (None, None)
