"""Planning and the CLI on a synthetic package: static steps, unassigned steps, unknown scenarios."""

from __future__ import annotations

import subprocess
import sys

from verify_helpers import line_of

from infralens.cli import main

MODULE = """
def add(a, b):
    total = a + b
    doubled = total * 2
    return doubled
"""

ANNOTATION = """
id: fake-add
lab: 01-lab
source: fakedist
target: fakedist.mod.add
summary: Adds.
steps:
  - at: "total = a + b"
    note: static one
    static: never traced in this test
  - at: "doubled = total * 2"
    note: no scenario and not static
  - at: "return doubled"
    note: unknown scenario
    scenario: no-such-scenario
"""


def _project(write_project):
    return write_project(
        {"site/fakedist/__init__.py": "", "site/fakedist/mod.py": MODULE, "annotations/fakedist/add.yaml": ANNOTATION},
        labs=("01-lab",),
    )


def test_list_static_names_static_steps_and_flags_unassigned_ones(write_project, capsys):
    root = _project(write_project)
    yaml_path = root / "annotations/fakedist/add.yaml"
    code = main(["--project", str(root), "--source", f"fakedist={root / 'site'}", "--no-cache", "verify", "--list-static"])
    out, err = capsys.readouterr()
    static_line = line_of(yaml_path, 'at: "total = a + b"')
    unassigned_line = line_of(yaml_path, 'at: "doubled = total * 2"')
    assert f"annotations/fakedist/add.yaml:{static_line}: fake-add/" in out and "static: never traced in this test" in out
    assert f"annotations/fakedist/add.yaml:{unassigned_line}:5: error: step fake-add/" in err and "mark it 'static: <reason>'" in err
    assert code == 1


def test_verify_reports_unknown_scenarios_and_unassigned_steps_with_file_and_line(write_project, capsys, tmp_path):
    root = _project(write_project)
    yaml_path = root / "annotations/fakedist/add.yaml"
    report = tmp_path / "report.json"
    code = main(["--project", str(root), "--source", f"fakedist={root / 'site'}", "--no-cache", "verify", "--device", "cpu", "--report", str(report)])
    _out, err = capsys.readouterr()
    assert code == 1
    assert f"annotations/fakedist/add.yaml:{line_of(yaml_path, 'return doubled')}" in err
    assert "unknown scenario 'no-such-scenario'" in err
    assert f"annotations/fakedist/add.yaml:{line_of(yaml_path, 'doubled = total * 2')}" in err
    import json

    data = json.loads(report.read_text())
    statuses = sorted(step["status"] for step in data["steps"].values())
    assert statuses == ["not-run", "not-run", "static"]
    assert data["format"] == 1 and data["device"] == "cpu" and "diffusers" in data["versions"]


def test_unknown_scenario_option_is_a_usage_error(capsys):
    assert main(["verify", "--scenario", "nope"]) == 2
    assert "unknown scenario(s) nope" in capsys.readouterr().err


def test_list_shows_the_catalog(capsys):
    assert main(["verify", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("tiny-sd-ddim", "diffsynth-pipeline", "memory-options"):
        assert name in out


def test_loading_the_verify_extension_imports_nothing_heavy():
    code = (
        "import sys, infralens.cli as c; c._load_extensions(); c.build_parser(); "
        "print(sorted(m for m in ('torch', 'libcst', 'diffusers', 'jsonschema') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
