"""The drift report names where an installed distribution was read without the writing machine's absolute path."""

from __future__ import annotations

from pathlib import Path

from infralens.drift.check import _shown_origin
from infralens.project import Project


def test_an_install_inside_the_project_is_shown_relative_to_its_root(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    project = Project(root, root / "annotations", root / "labs", root / "annotations" / "annotations.lock")
    inside = root / ".venv" / "lib" / "site-packages"
    assert _shown_origin(project, f"installed at {inside}") == "installed at .venv/lib/site-packages"
    assert _shown_origin(project, "installed at /opt/elsewhere") == "installed at /opt/elsewhere"
    assert _shown_origin(project, "/cache/wheel-1.0") == "/cache/wheel-1.0"
