"""A distribution read from a wheel (``--source DIST=x.whl``): listed statically, never traced."""

from __future__ import annotations

import zipfile
from pathlib import Path

from infralens.cli import main

MODULE = "def add(a, b):\n    total = a + b\n    return total\n"

ANNOTATION = """
id: wheel-add
lab: 01-lab
source: wheeldist
target: wheeldist.mod.add
summary: Adds.
steps:
  - at: "total = a + b"
    note: read only
    static: shown from the wheel, never traced
  - at: "return total"
    note: traced
    scenario: forward-noise
"""


def _wheel(folder: Path) -> Path:
    path = folder / "wheeldist-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("wheeldist/__init__.py", "")
        archive.writestr("wheeldist/mod.py", MODULE)
        archive.writestr("wheeldist-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: wheeldist\nVersion: 1.0\n")
    return path


def _argv(write_project, tmp_path: Path, *verify: str) -> list[str]:
    root = write_project({"annotations/wheeldist/add.yaml": ANNOTATION}, labs=("01-lab",))
    return ["--project", str(root), "--source", f"wheeldist={_wheel(tmp_path)}", "--no-cache", "verify", *verify]


def test_list_static_works_with_a_wheel_source(write_project, tmp_path, capsys):
    code = main(_argv(write_project, tmp_path, "--list-static"))
    out, err = capsys.readouterr()
    assert "wheel-add/" in out and "static: shown from the wheel, never traced" in out
    assert "1 static step(s) of 2" in out
    assert "Traceback" not in err
    assert code == 0


def test_a_traced_run_against_a_wheel_is_a_clear_usage_error(write_project, tmp_path, capsys):
    code = main(_argv(write_project, tmp_path, "--device", "cpu"))
    _out, err = capsys.readouterr()
    assert code == 2
    assert "wheeldist" in err and "wheel" in err and "installed package" in err
    assert "Traceback" not in err and "AttributeError" not in err
