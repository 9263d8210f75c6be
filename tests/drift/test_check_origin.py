"""The drift report names where an installed distribution was read without the writing machine's absolute path."""

from __future__ import annotations

from pathlib import Path

from infralens.drift.check import _shown_origin
from infralens.project import Project


def test_an_install_inside_the_project_is_shown_relative_to_its_root(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    project = Project(root, root / "annotations", root / "labs", root / "annotations" / "annotations.lock")
    inside = root / ".venv" / "lib" / "python3.11" / "site-packages"
    assert _shown_origin(project, f"installed at {inside}") == "installed in .venv"
    assert _shown_origin(project, f"installed at {root / 'env' / 'Lib' / 'site-packages'}") == "installed in env"
    assert _shown_origin(project, "installed at /opt/py/lib/python3.12/site-packages") == "installed at site-packages"
    assert _shown_origin(project, "installed at /opt/elsewhere") == "installed at elsewhere"
    assert _shown_origin(project, "/cache/wheels/demo-1.0-py3-none-any.whl") == "demo-1.0-py3-none-any.whl"
