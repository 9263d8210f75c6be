"""The project's own configuration names where its files live, never a place outside the project (issue 38)."""

from __future__ import annotations

from pathlib import Path

import pytest

from infralens.cli import main


def _project(root: Path, settings: str) -> Path:
    (root / "annotations").mkdir(parents=True)
    (root / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.infralens]\n{settings}\n")
    return root


@pytest.mark.parametrize(
    "settings",
    ['lock = "../outside.lock"', 'lock = "/tmp/elsewhere.lock"', 'annotations = "../../etc"', 'labs = "a/../../b"', "scenarios = 3"],
)
def test_a_configured_path_outside_the_project_is_refused(tmp_path: Path, settings: str, capsys) -> None:
    root = _project(tmp_path / "project", settings)
    outside = tmp_path / "outside.lock"
    assert main(["--project", str(root), "lock"]) == 2
    err = capsys.readouterr().err
    assert "pyproject.toml: [tool.infralens]" in err and ("outside the project" in err or "relative path inside" in err)
    assert "Traceback" not in err
    assert not outside.exists()


def test_a_configured_path_inside_the_project_is_used(tmp_path: Path, capsys) -> None:
    root = _project(tmp_path / "project", 'lock = "locks/../annotations/my.lock"')
    assert main(["--project", str(root), "validate"]) in (0, 1)
    assert "outside the project" not in capsys.readouterr().err
