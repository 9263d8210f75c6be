"""A mutant's verdict is the same whether its annotation is refreshed alone (``--annotation``) or verified with the rest.

``toylib.core.scaled`` has two annotated statements in two annotations. The first step's expect reads only
``scale``, so a mutant of ``y = x * scale`` that gives another ``y`` leaves its own expect's values unchanged; the
second annotation's step reads ``y`` and ``z`` and holds whatever ``y`` is. Verified together, the second step sees the
changed ``y``: the mutant *survived*. Refreshed alone, the first annotation's scenario used to watch only its own
step, saw nothing change and called the same mutant *equivalent* (and the step *checked*). It must watch every step
of the scenario, as the full run does, and judge and report only its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _device import requires_torch
from _importable import importable_from

from infralens.cli import main

CORE = '''
def scaled(x):
    """Multiplies x by a fixed scale, then adds one."""
    scale = 2
    y = x * scale
    z = y + 1
    return z
'''

SCENARIO = '''
def run(device: str) -> None:
    """Scale a number with toylib."""
    import toylib.core

    assert isinstance(toylib.core.scaled(3), int)
'''

FIRST = """\
id: toy-scale
source: toylib
target: toylib.core.scaled
summary: Scales.
scenario: toy
steps:
  - at: "y = x * scale"
    key: product
    note: The scale is two.
    expect: ["scale == 2"]
"""

SECOND = """\
id: toy-plus
source: toylib
target: toylib.core.scaled
summary: Adds one.
scenario: toy
steps:
  - at: "z = y + 1"
    key: plus-one
    note: One more than the product.
    expect: ["z == y + 1"]
"""


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "course"
    package = root / "site" / "toylib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text(CORE.lstrip())
    info = root / "site" / "toylib-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toylib\nVersion: 1.0.0\n")
    (info / "RECORD").write_text("toylib/__init__.py,,\ntoylib/core.py,,\n")
    (root / "scenarios").mkdir()
    (root / "scenarios" / "toy.py").write_text(SCENARIO.lstrip())
    (root / "annotations" / "toylib").mkdir(parents=True)
    (root / "annotations" / "toylib" / "a-scale.yaml").write_text(FIRST)
    (root / "annotations" / "toylib" / "b-plus.yaml").write_text(SECOND)
    (root / "pyproject.toml").write_text("[project]\nname = 'toy-course'\n\n[tool.infralens]\ndistributions = ['toylib']\n")
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    importable_from(root / "site", "toylib", monkeypatch)
    return root


def _verify(root: Path, report: Path, *extra: str) -> dict:
    argv = ["--project", str(root), "--source", f"toylib={root / 'site'}", "--no-cache", "verify", "--device", "cpu", "--mutate"]
    main([*argv, "--report", str(report), *extra])
    return json.loads(report.read_text())


def _verdicts(report: dict, key: str) -> dict[str, str]:
    return {record["change"]: record["verdict"] for record in report["steps"][key]["mutants"]["records"]}


@requires_torch
def test_refreshing_one_annotation_judges_its_mutants_as_the_full_run_does(toy: Path, tmp_path: Path, capsys) -> None:
    full = _verify(toy, tmp_path / "report.json")
    whole = _verdicts(full, "toy-scale/product")
    assert "survived" in whole.values(), whole  # the other annotation's step saw the changed product
    assert full["steps"]["toy-scale/product"]["tier"] != "checked", full["steps"]["toy-scale/product"]

    refreshed = _verify(toy, tmp_path / "report.json", "--annotation", "toy-scale")
    assert _verdicts(refreshed, "toy-scale/product") == whole
    assert refreshed["steps"]["toy-scale/product"]["tier"] == full["steps"]["toy-scale/product"]["tier"]
    # the other annotation's step was watched, not judged again: its record is the full run's
    assert refreshed["steps"]["toy-plus/plus-one"] == full["steps"]["toy-plus/plus-one"]
    assert "Traceback" not in capsys.readouterr().err
