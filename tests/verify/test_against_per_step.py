"""``verify --against``: each step resolves and runs on its own, so a statement the other release lacks leaves
only its own step not-run.

No package index is needed: ``toylib`` 1.0.0 (the project's) and 2.0.0 (the other release, already "installed" in
the verify-environment cache with its completion marker) are folders made here. Release 2.0.0 folds
``z = y + 1`` into the next line, so that statement is gone; the other two steps are still there and run.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from _device import requires_torch
from _importable import importable_from

from infralens.cli import main
from infralens.resolve import Resolver  # noqa: F401  before infralens.source.cache (see test_against.py)
from infralens.verify.run.against import environments_dir, install_release

OLD = '''
def combine(x):
    """Doubles x, adds one, triples the sum."""
    y = x * 2
    z = y + 1
    w = z * 3
    return w
'''

NEW = '''
def combine(x):
    """Doubles x, adds one, triples the sum (in one line since 2.0.0)."""
    y = x * 2
    w = (y + 1) * 3
    return w
'''

SCENARIO = '''
def run(device: str) -> None:
    """Combine a number with toylib."""
    import toylib.core

    assert toylib.core.combine(3) == 21
'''

ANNOTATION = """\
id: toy-combine
source: toylib
target: toylib.core.combine
summary: Doubles, adds one, triples.
scenario: toy
steps:
  - at: "y = x * 2"
    key: double
    note: Twice the input.
    expect: ["y == 2 * x"]
  - at: "z = y + 1"
    key: plus-one
    note: One more.
    expect: ["z == y + 1"]
  - at: "return w"
    key: answer
    note: A multiple of three.
    expect: ["w % 3 == 0"]
"""


def _release(folder: Path, version: str, core: str) -> None:
    (folder / "toylib").mkdir(parents=True)
    (folder / "toylib" / "__init__.py").write_text("")
    (folder / "toylib" / "core.py").write_text(textwrap.dedent(core).lstrip())
    info = folder / f"toylib-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: toylib\nVersion: {version}\n")
    (info / "RECORD").write_text("toylib/__init__.py,,\ntoylib/core.py,,\n")


@pytest.fixture
def toy_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project (toylib 1.0.0 on its path) and toylib 2.0.0 installed on its own in the verify-environment cache."""
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "course"
    _release(root / "site", "1.0.0", OLD)
    _release(environments_dir() / "toylib-2.0.0", "2.0.0", NEW)
    (environments_dir() / "toylib-2.0.0" / ".infralens-complete").write_text("toylib==2.0.0\n")
    (root / "scenarios").mkdir()
    (root / "scenarios" / "toy.py").write_text(textwrap.dedent(SCENARIO).lstrip())
    (root / "annotations" / "toylib").mkdir(parents=True)
    (root / "annotations" / "toylib" / "combine.yaml").write_text(ANNOTATION)
    (root / "pyproject.toml").write_text("[project]\nname = 'toy-course'\n\n[tool.infralens]\ndistributions = ['toylib']\n")
    importable_from(root / "site", "toylib", monkeypatch)
    return root


def _verify(root: Path, report: Path, *extra: str) -> tuple[int, dict]:
    argv = ["--project", str(root), "--source", f"toylib={root / 'site'}", "--no-cache", "verify", "--device", "cpu", "--report", str(report)]
    code = main([*argv, *extra])
    return code, json.loads(report.read_text())


def test_the_cached_release_is_used_without_an_index(toy_pair: Path) -> None:
    release = install_release("toylib==2.0.0")  # the marker is there: nothing is fetched
    assert release.version == "2.0.0" and (release.folder / "toylib" / "core.py").read_text().count("z = y + 1") == 0


@requires_torch
def test_a_statement_missing_in_the_release_leaves_only_its_step_not_run(toy_pair: Path, tmp_path: Path, capsys) -> None:
    code, data = _verify(toy_pair, tmp_path / "on-2.json", "--against", "toylib==2.0.0")
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    assert data["versions"]["toylib"] == "2.0.0", data["versions"]
    steps = data["steps"]
    assert set(steps) == {"toy-combine/double", "toy-combine/plus-one", "toy-combine/answer"}, steps
    for key in ("toy-combine/double", "toy-combine/answer"):  # the annotation's other steps ran and were judged
        assert steps[key]["status"] == "passed" and steps[key]["times_ran"] > 0, steps[key]
    gone = steps["toy-combine/plus-one"]
    assert gone["status"] == "not-run", gone
    assert "z = y + 1" in gone["reason"] and "toylib 2.0.0" in gone["reason"], gone["reason"]
    assert gone["reason"].startswith("the step did not resolve"), gone["reason"]  # what history --runs reads as absent
    # the resolution problem is news about that release (a warning naming it); the one step that did not run is the finding
    assert "warning: not in toylib 2.0.0: 'z = y + 1'" in err, err
    assert [line for line in err.splitlines() if "did not run" in line] == [
        f"annotations/toylib/combine.yaml:11: error: step toy-combine/plus-one did not run: {gone['reason']}"
    ], err
    assert code == 1


@requires_torch
def test_on_the_project_release_every_step_runs(toy_pair: Path, tmp_path: Path, capsys) -> None:
    """The control: on 1.0.0 the statement is there, so all three steps pass."""
    code, data = _verify(toy_pair, tmp_path / "on-1.json")
    capsys.readouterr()
    assert code == 0 and data["versions"]["toylib"] == "1.0.0"
    assert {key: step["status"] for key, step in data["steps"].items()} == dict.fromkeys(
        ("toy-combine/double", "toy-combine/plus-one", "toy-combine/answer"), "passed"
    )
