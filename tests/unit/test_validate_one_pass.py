"""``infralens validate`` reports every error of a file in one pass, and says what a file outside the project is."""

from __future__ import annotations

import pytest

from infralens.cli import main

MOD = """
class Box:
    def grow(self, size):
        size = size + 1
        size = size * 2
        return size
"""

TWO_PROBLEMS = """
id: box-grow
lab: 01-lab
colour: blue
source: fakedist
target: fakedist.mod.Box.grow
summary: Growing a box.
scenario: fake-scenario
steps:
  - at: size = size + 1
    note: One more.
  - at: size = size + 3
    note: Not in the code.
"""


@pytest.fixture(autouse=True)
def isolated_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))


def _validate(root, *paths: str) -> int:
    return main(["--project", str(root), "--source", f"fakedist={root / 'site'}", "validate", *paths])


def test_an_unknown_key_and_an_unmatched_selector_are_reported_together(annotation_project, capsys):
    root = annotation_project({"mod.py": MOD}, {"box.yaml": TWO_PROBLEMS})
    assert _validate(root) == 1
    err = capsys.readouterr().err
    assert "annotations/fakedist/box.yaml:3:1: error: unknown key 'colour' in annotation" in err
    assert "annotations/fakedist/box.yaml:11:9: error: 'size = size + 3' matches no statement in the target" in err


def test_a_bad_optional_value_does_not_hide_selector_errors(annotation_project, capsys):
    root = annotation_project({"mod.py": MOD}, {"box.yaml": TWO_PROBLEMS.replace("colour: blue\n", "").replace("lab: 01-lab", "lab: Not A Slug")})
    assert _validate(root) == 1
    err = capsys.readouterr().err
    assert "lab 'Not A Slug' is not in the expected form" in err and "'size = size + 3' matches no statement" in err


def test_a_plain_file_outside_the_project_is_named_as_such(annotation_project, tmp_path, capsys):
    root = annotation_project({"mod.py": MOD}, {})
    elsewhere = tmp_path / "elsewhere.yaml"
    elsewhere.write_text(TWO_PROBLEMS, "utf-8")
    assert _validate(root, str(elsewhere)) == 1
    err = capsys.readouterr().err
    assert "this annotation file is outside the project (its root is" in err and "a link" not in err
    assert "move it into annotations/, or pass --project" in err
