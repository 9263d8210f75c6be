"""A step marked ``review:`` is a finding: ``check`` fails naming it until the mark is removed; the lock keeps the mark."""

from __future__ import annotations

import re
from pathlib import Path

from infralens.cli import main

ANNOTATION = """\
id: sched-step
lab: 01-lab
source: fakedist
target: fakedist.sched.Sched.step
summary: One step of a made-up sampler.
scenario: fake-scenario
steps:
  - at: "prev = t - 1"
    note: The previous timestep.
  - at: "return out"
    review: "infralens fix: changed upstream; re-read the note"
    note: What the step returns.
"""


def _write(project: Path, text: str) -> Path:
    path = project / "annotations" / "fakedist" / "sched-step.yaml"
    path.write_text(text, "utf-8")
    return path


def test_a_step_under_review_fails_check_until_its_mark_is_removed(project, cli, capsys):
    path = _write(project, ANNOTATION)
    assert main(cli("lock")) == 0
    lock = (project / "annotations" / "annotations.lock").read_text("utf-8")
    assert 'review = "infralens fix: changed upstream; re-read the note"' in lock  # the lock keeps the mark
    capsys.readouterr()
    assert main(cli("check")) == 1  # the annotation file is not even re-read: the lock says so
    out = capsys.readouterr().out
    assert re.search(r"annotations/fakedist/sched-step\.yaml:\d+: sched-step/\w+: under-review: ", out), out
    assert "remove its 'review:' line" in out and "0 changed" in out

    assert main(cli("lock", "--update", "sched-step")) == 0  # accepting the annotation does not clear the mark
    assert main(cli("check")) == 1
    capsys.readouterr()

    path.write_text(ANNOTATION.replace('    review: "infralens fix: changed upstream; re-read the note"\n', ""), "utf-8")
    assert main(cli("check")) == 0, capsys.readouterr().out
    assert main(cli("lock", "--update", "sched-step")) == 0
    assert "review =" not in (project / "annotations" / "annotations.lock").read_text("utf-8")
    assert main(cli("check")) == 0


def test_a_mark_added_after_the_lock_is_reported_too(project, cli, capsys):
    _write(project, ANNOTATION.replace('    review: "infralens fix: changed upstream; re-read the note"\n', ""))
    assert main(cli("lock")) == 0
    _write(project, ANNOTATION)
    capsys.readouterr()
    assert main(cli("check", "--format", "json")) == 1
    assert '"under-review"' in capsys.readouterr().out


def test_the_site_shows_an_under_review_chip_on_the_note(project, cli, capsys):
    _write(project, ANNOTATION)
    assert main(cli("preview", "sched-step", "--no-serve", "--out", str(project / "out"))) == 0
    page = (project / "out" / "index.html").read_text("utf-8")
    assert page.count(">under review<") == 1 and "re-read the note" in page


def test_fix_reviewed_removes_only_the_marks(project, cli, capsys):
    commented = ANNOTATION.replace("    note: What the step returns.\n", "    # kept: a comment under the mark\n    note: What the step returns.\n")
    multi = commented.replace(
        '    review: "infralens fix: changed upstream; re-read the note"\n', "    review: >-\n      infralens fix: changed upstream;\n      re-read the note\n"
    )
    path = _write(project, multi)
    assert main(cli("lock")) == 0
    capsys.readouterr()
    assert main(cli("fix", "--reviewed", "sched-step/nope")) == 2
    assert "no such annotation or step" in capsys.readouterr().err
    assert main(cli("fix", "--reviewed", "sched-step")) == 0
    out = capsys.readouterr().out
    assert re.search(r"annotations/fakedist/sched-step\.yaml: sched-step/\w+: review: removed", out) and "next: infralens lock --update sched-step" in out
    assert path.read_text("utf-8") == commented.replace('    review: "infralens fix: changed upstream; re-read the note"\n', "")
    assert main(cli("check")) == 0
    assert main(cli("fix", "--reviewed", "sched-step")) == 2  # nothing left to clear
