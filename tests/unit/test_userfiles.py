"""userfiles: atomic writes, all-or-nothing across files, no write over an edit made meanwhile."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from infralens.userfiles import FileChange, UserFileError, write_atomically, write_together


def test_write_keeps_mode_and_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("old\n")
    os.chmod(path, 0o640)
    write_atomically(path, "one\r\ntwo\r\n")
    assert path.read_bytes() == b"one\r\ntwo\r\n"
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["a.yaml"]


def test_edit_made_meanwhile_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("edited by the user\n")
    with pytest.raises(UserFileError, match="changed while"):
        write_atomically(path, "new\n", expect="what fix read\n")
    assert path.read_text() == "edited by the user\n"


def test_read_only_second_file_leaves_the_first_untouched(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("a\n")
    second.write_text("b\n")
    os.chmod(second, 0o444)
    if os.access(second, os.W_OK):
        pytest.skip("running as root: read-only bits are not enforced")
    with pytest.raises(UserFileError, match="read-only"):
        write_together([FileChange(first, "A\n", "a\n"), FileChange(second, "B\n", "b\n")])
    assert first.read_text() == "a\n"
    assert second.read_text() == "b\n"


def test_failure_part_way_puts_back_the_files_already_replaced(tmp_path: Path, monkeypatch) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("a\n")
    second.write_text("b\n")
    real_replace = os.replace
    calls = []

    def replace(source, target):
        calls.append(target)
        if Path(target) == second:
            raise KeyboardInterrupt
        return real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        write_together([FileChange(first, "A\n"), FileChange(second, "B\n")])
    monkeypatch.setattr(os, "replace", real_replace)
    assert first.read_text() == "a\n"
    assert second.read_text() == "b\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml", "b.yaml"]


def test_unwritable_second_file_is_refused_before_anything_is_written(tmp_path: Path, monkeypatch) -> None:
    """The same refusal where permission bits do not bind (root): the check asks ``os.access``."""
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("a\n")
    second.write_text("b\n")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == second else real_access(p, mode))
    with pytest.raises(UserFileError, match=r"b\.yaml: the file is read-only"):
        write_together([FileChange(first, "A\n", "a\n"), FileChange(second, "B\n", "b\n")])
    assert first.read_text() == "a\n"
