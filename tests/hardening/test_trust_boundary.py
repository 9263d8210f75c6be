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


def test_a_configured_lock_behind_a_linked_folder_leading_out_is_refused(tmp_path: Path, capsys) -> None:
    """``annotations/shared -> /elsewhere`` and ``lock = "annotations/shared/victim.txt"``: the lock would be written
    over a file outside the project (the hostile re-test's first critical case)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("PRECIOUS\n")
    root = _project(tmp_path / "project", 'lock = "annotations/shared/victim.txt"')
    (root / "annotations" / "shared").symlink_to(outside)
    assert main(["--project", str(root), "lock"]) == 2
    err = capsys.readouterr().err
    assert "through a symbolic link" in err and "Traceback" not in err
    assert (outside / "victim.txt").read_text() == "PRECIOUS\n"


@pytest.mark.parametrize("inside_project", [True, False])
def test_an_output_through_a_linked_folder_leading_out_is_refused(tmp_path: Path, monkeypatch, inside_project: bool) -> None:
    """``reports -> /elsewhere`` in the working folder or the project: ``--output reports/x.json`` is refused, and the
    file out there keeps its text; a linked folder that stays inside is written through."""
    from infralens.userfiles import UserFileError, write_output

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text("USER\n")
    root = _project(tmp_path / "project", "")
    (root / "reports").symlink_to(outside)
    (root / "inner").mkdir()
    (root / "alias").symlink_to(root / "inner")
    monkeypatch.chdir(root if not inside_project else tmp_path)
    named = Path("reports/x.json") if not inside_project else root / "reports" / "x.json"
    with pytest.raises(UserFileError, match="outside"):
        write_output(named, "NEW\n", what="report", within=root if inside_project else None)
    assert (outside / "x.json").read_text() == "USER\n"
    write_output(root / "alias" / "y.json", "OK\n", what="report", within=root)
    assert (root / "inner" / "y.json").read_text() == "OK\n"


def test_add_cannot_create_an_annotation_file_in_a_linked_folder_leading_out(tmp_path: Path, capsys) -> None:
    from infralens.userfiles import UserFileError, write_atomically

    outside = tmp_path / "outside"
    outside.mkdir()
    root = _project(tmp_path / "project", "")
    (root / "annotations" / "dist").symlink_to(outside)
    with pytest.raises(UserFileError, match="outside the project"):
        write_atomically(root / "annotations" / "dist" / "new.yaml", "id: x\n", what="annotation file", within=root)
    assert list(outside.iterdir()) == []
