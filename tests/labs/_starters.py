"""Helpers the lab tests share: run a starter script, load its answer key, read pages and annotations.

A starter runs in a subprocess exactly as a learner runs it, with torch on one thread (:func:`run_starter`);
the six runs of every starter the lab tests share are made once per test run (``_starter_sessions.py``). The
starters ship with every answer ``None`` (:func:`write_starter` makes a copy with
other answers).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parents[2]
# The targets a lab page embeds: ```{infralens-function} T``` and :diffusers:/:diffsynth: T lines.
# The ANSWERS = {...} block of a starter, one key per line, closed by a "}" line.
ANSWERS_BLOCK = re.compile(r"^ANSWERS = \{\n.*?^\}$", re.M | re.S)
DIRECTIVE = re.compile(r"^```\{infralens-function\}\s+(\S+)|^:(?:diffusers|diffsynth):\s+(\S+)", re.M)
STARTER_TIMEOUT_S = 300
SECTIONS = (
    "## Goal",
    "## Mental model",
    "## Run it",
    "## Reading checkpoints",
    "## The code, annotated",
    "## Common misunderstandings",
    "## Say it in an interview",
    "## Exercises",
    "## Further reading",
)
"""The sections every lab page has, in the form the labs share."""


def starter_path(lab: str) -> Path:
    return ROOT / "labs" / f"lab-{lab}" / "starter.py"


def page_text(lab: str) -> str:
    return (ROOT / "labs" / f"lab-{lab}" / "index.md").read_text("utf-8")


def embedded_targets(page: str) -> set[str]:
    """The annotation targets a lab page embeds with its directives."""
    return {a or b for a, b in DIRECTIVE.findall(page)}


def write_starter(lab: str, answers: dict, script: Path) -> Path:
    """Write a copy of *lab*'s starter to *script* with ``ANSWERS`` replaced by *answers*; return *script*."""
    source = starter_path(lab).read_text("utf-8")
    edited, count = ANSWERS_BLOCK.subn(lambda _: f"ANSWERS = {answers!r}", source)
    assert count == 1, f"{lab}: no single ANSWERS block in the starter"
    script.write_text(edited, "utf-8")
    return script


def run_starter(lab: str, script: Path | None = None, args: tuple[str, ...] = ("--steps", "2", "--check", "--reveal")) -> subprocess.CompletedProcess:
    """Run *lab*'s starter (or *script*, e.g. an edited copy) with *args* (``--steps 2 --check --reveal``) from the repo root."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    script = script or starter_path(lab)
    return subprocess.run([sys.executable, str(script), *args], check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=STARTER_TIMEOUT_S)


def assert_ran_and_printed(result: subprocess.CompletedProcess, lab: str, facts: list[str]) -> None:
    """The starter exited 0 and printed every one of *facts* (computed by the real code)."""
    assert result.returncode == 0, f"{lab} starter failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    for fact in facts:
        assert fact in result.stdout, f"{lab}: expected {fact!r} in the output:\n{result.stdout}"


def load_starter(lab: str) -> ModuleType:
    """Import *lab*'s starter as a module without running ``main`` (its top level imports no torch)."""
    path = starter_path(lab)
    spec = importlib.util.spec_from_file_location(f"starter_{lab.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class body runs
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def starter_answers(lab: str) -> dict:
    """The ``ANSWERS`` dict *lab*'s starter ships with (its keys are the exercises; every value is ``None``)."""
    return load_starter(lab).ANSWERS


def annotation_files(pattern: str = "*.yaml") -> list[tuple[Path, dict]]:
    """(file, annotation) for every annotation in ``annotations/<source>/<pattern>``, files sorted."""
    found = []
    for path in sorted((ROOT / "annotations").glob(f"*/{pattern}")):
        data = yaml.safe_load(path.read_text("utf-8"))
        found.extend((path, annotation) for annotation in (data if isinstance(data, list) else [data]))
    return found


def annotated_targets(pattern: str = "*.yaml") -> set[str]:
    return {annotation["target"] for _, annotation in annotation_files(pattern)}


def assert_solved_run_checks_every_answer(result: subprocess.CompletedProcess, lab: str, facts: list[str]) -> None:
    """The run with the right answers pasted (``--check``): it printed *facts* and marked every answer ``[ok]``."""
    assert_ran_and_printed(result, lab, facts)
    total = len(starter_answers(lab))
    assert f"check: {total}/{total} answers correct" in result.stdout
    assert result.stdout.count("[ok]") == total


def wrong_answer_report(lab: str, key: str | None = None, wrong: object = "something else") -> tuple[int, int, str]:
    """``report_answers`` on *lab*'s right answers, then with *key* (its first answer) set to *wrong*: both exit codes
    and the key changed. The caller reads the printed report (``[WRONG] key: your answer``)."""
    from solutions import SOLUTIONS

    from infralens.tiny.labkit import report_answers

    answers = dict(load_starter(lab).ANSWERS, **SOLUTIONS[lab])
    computed = dict(SOLUTIONS[lab])
    right = report_answers(answers, computed)
    key = next(iter(computed)) if key is None else key
    computed[key] = wrong
    return right, report_answers(answers, computed), key


def page_embedding_only_annotated_targets(lab: str) -> str:
    """*lab*'s page, after checking it opens with the lab's title and embeds at least one function, each of them a
    target some annotation covers."""
    page = page_text(lab)
    assert page.startswith(f"# Lab {lab[:2]}:"), "the first heading is the lab title"
    embedded = embedded_targets(page)
    assert embedded, f"{lab}: the page embeds no annotated function"
    missing = embedded - annotated_targets()
    assert not missing, f"{lab}: directives name targets no annotation covers: {sorted(missing)}"
    return page
