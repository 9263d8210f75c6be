"""Issue 27 items 6 and 16: invisible characters in notes, and upstream names in terminal and CI logs.

Bidirectional overrides and zero-width characters make a note show one thing and say another: the
loader refuses them at their line, and ``infralens show`` prints them as visible escapes. Names from
an upstream wheel (file names, qualnames, diff lines) reach text output: a newline followed by
``::error …`` would be read by GitHub Actions as a workflow command, an escape sequence would drive
the terminal. Every text output that prints them keeps each of them on one visible line.
"""

from __future__ import annotations

import re
import shutil
import sys
import unicodedata
from pathlib import Path

import pytest

from infralens.annotations import load_concepts, load_text
from infralens.errors import FORMAT_CHARACTERS, printable_line
from infralens.render.terminal import visible

ROOT = Path(__file__).resolve().parents[1] / "sphinx" / "roots" / "test-basic"
HIDDEN = ("\u202e", "\u2066", "\u2069", "\u200b", "\u200d", "\u200e", "\u200f", "\ufeff", "\u061c", "\u2060")
INJECTION = "pkg/evil.py\n::error file=x.py,line=1::pwned\x1b[2J\u202e"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _one_note(note: str, summary: str = "s") -> str:
    return f'id: toy-blend\nsource: toypkg\ntarget: toypkg.mixing.blend\nsummary: "{summary}"\nsteps:\n  - at: "x = 1"\n    note: |\n      fine\n      {note}\n'


@pytest.mark.parametrize("character", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_a_note_with_an_invisible_character_is_refused_at_its_line(character):
    loaded = load_text(_one_note(f"evil {character}gnp.exe"), "a.yaml")
    found = [d for d in loaded.diagnostics if "invisible character" in d.message]
    assert found, loaded.diagnostics
    assert (found[0].location.path, found[0].location.line, found[0].location.col) == ("a.yaml", 9, 12)
    assert f"U+{ord(character):04X}" in found[0].message


def test_a_summary_and_a_concept_title_are_checked_too(tmp_path):
    loaded = load_text(_one_note("fine", summary="a \\u202e b"), "a.yaml")
    assert any("invisible character U+202E" in d.message and d.location.line == 4 for d in loaded.diagnostics)
    concepts = tmp_path / "concepts.yaml"
    prose = " ".join(["word"] * 30)
    concepts.write_text(
        f"- pair: p\n  title: 'A \u202etitle'\n  diffusers: diffusers.a.f\n  diffsynth: diffsynth.a.f\n  same: {prose}\n  differs: {prose}\n  read-first: x\n"
    )
    loaded_map = load_concepts(concepts, None, ("diffusers", "diffsynth"))
    assert not loaded_map.pairs and any("U+202E" in d.message and d.location.line == 2 for d in loaded_map.diagnostics)


def test_every_format_character_is_known():
    """The list is Unicode's category Cf for this Python: a new invisible character cannot slip past it."""
    missing = [hex(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf" and not FORMAT_CHARACTERS.fullmatch(chr(c))]
    assert not missing


def test_show_prints_invisible_characters_as_escapes(tmp_path, capsys, monkeypatch):
    from infralens.cli import main

    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "project"
    shutil.copytree(ROOT, root)
    (root / "annotations" / "toypkg" / "blend.yaml").write_text(
        'id: toy-blend\nlab: 01-toy\nsource: toypkg\ntarget: toypkg.mixing.blend\nsummary: s\nsteps:\n  - at: "signal = math.sqrt(alpha) * clean"\n'
        "    note: |\n      evil \u202egnp.exe\u202c and \u200bzero\n"
    )
    code = main(["--project", str(root), "--source", f"toypkg={root / 'src'}", "show", "toypkg.mixing.blend", "--color", "never", "--width", "160"])
    captured = capsys.readouterr()
    assert code != 0 and "blend.yaml:9:12: error: invisible character U+202E" in captured.err
    assert not FORMAT_CHARACTERS.search(captured.out + captured.err)
    assert "evil \\u202egnp.exe\\u202c and \\u200bzero" in captured.out
    assert visible("a\u2066b\ufeff") == "a\\u2066b\\ufeff"


def test_printable_line_keeps_a_name_on_one_visible_line():
    shown = printable_line(INJECTION)
    assert "\n" not in shown and not RAW.search(shown) and not FORMAT_CHARACTERS.search(shown)
    assert shown == "pkg/evil.py\\n::error file=x.py,line=1::pwned\\x1b[2J\\u202e"


def test_the_drift_text_report_keeps_upstream_names_on_their_line(monkeypatch):
    from infralens.drift import report

    finding = report.Finding(
        "annotations/a.yaml", 3, "a/s", "moved", "warning", "old.py:1 pkg.f", INJECTION, "moved to " + INJECTION, diff=("-x", "+" + INJECTION)
    )
    monkeypatch.setattr(report, "findings", lambda *_args, **_kwargs: [finding])
    monkeypatch.setattr(report, "summary", lambda _report: "checked against " + INJECTION)
    text = report.render_text(object())  # type: ignore[arg-type]
    assert not any(line.startswith("::") for line in text.splitlines())
    assert not RAW.search(text.replace("\n", "")) and not FORMAT_CHARACTERS.search(text)
    assert text.count("\n") == 5


def test_the_history_text_keeps_upstream_names_on_their_line():
    from hostile_site import history_report

    from infralens.drift.history.view import render_text
    from infralens.reports import Difference, ReleaseState

    report = history_report()
    step = report.annotations[0].steps[0]
    hostile = Difference(releases=step.differences[0].releases, state=ReleaseState.CHANGED, where=INJECTION, message=INJECTION, diff=("+" + INJECTION,))
    report = type(report)(
        generated_by=report.generated_by,
        lock_sha256=report.lock_sha256,
        spans=report.spans,
        annotations=(
            type(report.annotations[0])(**{**report.annotations[0].__dict__, "steps": (type(step)(**{**step.__dict__, "differences": (hostile,)}),)}),
        ),
    )
    text = render_text(report)
    assert not any(line.startswith("::") for line in text.splitlines())
    assert not RAW.search(text.replace("\n", "")) and not FORMAT_CHARACTERS.search(text)


def test_the_coverage_tree_keeps_upstream_names_on_their_line():
    from infralens.maintainer.coverage import CallNode, CoverageMap, FunctionInfo, FunctionRef
    from infralens.maintainer.coverage_format import format_tree
    from infralens.reports import ScenarioStatus

    function = FunctionInfo(FunctionRef("diffusers", INJECTION, "f\n::error::x", 3), 1)
    coverage = CoverageMap("s", ScenarioStatus.FAILED, "boom\n::error::y", 0.1, "cpu", {"diffusers": "1"}, (function,), (CallNode(0, 1),))
    text = format_tree(coverage)
    assert not any(line.startswith("::") for line in text.splitlines()), text
    assert not FORMAT_CHARACTERS.search(text)
