"""infralens.atomic, the one writer: whole or not at all, and nothing left behind on any error path.

Each public writer is run with one step made to fail (the write, the fsync, the rename, a KeyboardInterrupt in
the middle); afterwards the old file or folder must hold exactly what it held, and the folder must hold nothing
else (no temporary file or folder). A last test checks, with ``ast``, that nothing else in ``src/`` renames files.
"""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

import pytest

from infralens import atomic

SRC = Path(__file__).resolve().parents[2] / "src" / "infralens"

SCRATCH_WRITERS = {
    "maintainer/preview.py": "writes the throwaway Sphinx project inside its own TemporaryDirectory",
    "verify/run/against.py": "writes the completion marker inside the folder replace_dir is building",
    "matrix/run.py": "sends a cell's output into a log inside the cell's own TemporaryDirectory",
}
"""Modules that may write files directly: only into a folder they made themselves and that no reader sees yet."""


class Injected(OSError):
    pass


def _fail(*_args, **_kwargs):
    raise Injected(28, "injected: no space left on device")


def _interrupt(*_args, **_kwargs):
    raise KeyboardInterrupt


def _fail_write(monkeypatch):
    """The bytes cannot be written: the open stream's ``write`` raises."""
    real_open = open

    class Failing:
        def __init__(self, stream):
            self._stream = stream

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._stream.close()

        def write(self, _data):
            raise Injected(28, "injected: write failed")

        def __getattr__(self, name):
            return getattr(self._stream, name)

    def failing_open(file, *args, **kwargs):
        stream = real_open(file, *args, **kwargs)
        return Failing(stream) if isinstance(file, int) else stream

    monkeypatch.setattr("builtins.open", failing_open)


FAULTS = {
    "write": (_fail_write, Injected),
    "fsync": (lambda mp: mp.setattr(atomic.os, "fsync", _fail), Injected),
    "replace": (lambda mp: mp.setattr(atomic.os, "replace", _fail), Injected),
    "interrupt-at-replace": (lambda mp: mp.setattr(atomic.os, "replace", _interrupt), KeyboardInterrupt),
    "interrupt-at-fsync": (lambda mp: mp.setattr(atomic.os, "fsync", _interrupt), KeyboardInterrupt),
}


def _listing(folder: Path) -> dict[str, bytes | None]:
    return {p.name: (p.read_bytes() if p.is_file() else None) for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("writer", ["write_bytes", "write_text"])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch, fault, writer):
    path = tmp_path / "report.json"
    path.write_bytes(b"old\n")
    before = _listing(tmp_path)
    inject, raised = FAULTS[fault]
    inject(monkeypatch)
    with pytest.raises(raised):
        if writer == "write_bytes":
            atomic.write_bytes(path, b"new\n")
        else:
            atomic.write_text(path, "new\n")
    monkeypatch.undo()
    assert _listing(tmp_path) == before


@pytest.mark.parametrize("fault", ["replace", "write"])
def test_a_failed_quiet_write_returns_false_and_keeps_the_old_entry(tmp_path, monkeypatch, fault):
    """A cache entry is not fsync'ed (it is checked when read); the other faults are swallowed, nothing is left."""
    path = tmp_path / "cache" / "entry.json"
    path.parent.mkdir()
    path.write_bytes(b"old\n")
    FAULTS[fault][0](monkeypatch)
    assert atomic.write_quietly(path, "new\n") is False
    monkeypatch.undo()
    assert _listing(path.parent) == {"entry.json": b"old\n"}


def test_writes_replace_whole_files_and_keep_permission_bits(tmp_path):
    path = tmp_path / "script.sh"
    path.write_bytes(b"old\n")
    path.chmod(0o751)
    atomic.write_text(path, "näu\r\n")
    assert path.read_bytes() == "näu\r\n".encode() and stat.S_IMODE(path.stat().st_mode) == 0o751
    atomic.write_bytes(path, b"\x00\x01", mode=0o600)
    assert path.read_bytes() == b"\x00\x01" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert atomic.write_quietly(tmp_path / "made" / "entry.bin", b"x") is True
    assert (tmp_path / "made" / "entry.bin").read_bytes() == b"x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["made", "script.sh"]


def test_a_new_file_gets_the_umask_default(tmp_path):
    previous = os.umask(0o027)
    try:
        atomic.write_text(tmp_path / "new.txt", "x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


def test_a_missing_folder_is_an_error_not_a_write_elsewhere(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic.write_text(tmp_path / "absent" / "file.txt", "x")
    assert list(tmp_path.iterdir()) == []


def _fill(files: dict[str, bytes]):
    def build(folder: str) -> None:
        for name, data in files.items():
            (Path(folder) / name).write_bytes(data)

    return build


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_replace_dir_swaps_a_folder_in_whole(tmp_path):
    target = tmp_path / "env"
    atomic.replace_dir(target, _fill({"a.py": b"1", "b.py": b"2"}))
    assert _tree(target) == {"a.py": b"1", "b.py": b"2"}
    atomic.replace_dir(target, _fill({"c.py": b"3"}))
    assert _tree(target) == {"c.py": b"3"}
    assert [p.name for p in tmp_path.iterdir()] == ["env"]


def _build_fails(_folder: str) -> None:
    raise Injected(5, "injected: pip failed")


def _second_replace_fails(monkeypatch):
    """The old folder is renamed aside, then putting the new one in place fails."""
    real = os.replace
    calls = []

    def replace(source, target):
        calls.append(target)
        if len(calls) == 2:
            raise Injected(18, "injected: rename failed")
        return real(source, target)

    monkeypatch.setattr(atomic.os, "replace", replace)


DIR_FAULTS = {
    "build": (lambda mp: None, _build_fails, Injected),
    "build-interrupted": (lambda mp: None, _interrupt, KeyboardInterrupt),
    "first-replace": (lambda mp: mp.setattr(atomic.os, "replace", _fail), _fill({"new": b"n"}), Injected),
    "second-replace": (_second_replace_fails, _fill({"new": b"n"}), Injected),
}


@pytest.mark.parametrize("fault", sorted(DIR_FAULTS))
def test_a_failed_replace_dir_keeps_the_old_folder_and_leaves_no_temporary(tmp_path, monkeypatch, fault):
    target = tmp_path / "env"
    target.mkdir()
    (target / "old.py").write_bytes(b"old")
    inject, build, raised = DIR_FAULTS[fault]
    inject(monkeypatch)
    with pytest.raises(raised):
        atomic.replace_dir(target, build)
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["env"] and _tree(target) == {"old.py": b"old"}


def test_replace_dir_of_a_new_folder_leaves_nothing_when_the_build_fails(tmp_path):
    with pytest.raises(Injected):
        atomic.replace_dir(tmp_path / "env", _build_fails)
    assert list(tmp_path.iterdir()) == []


def test_stage_lists_its_file_before_it_can_fail(tmp_path, monkeypatch):
    """The caller's list names the temporary file even when writing it fails, so the caller's cleanup finds it."""
    staged: list[str] = []
    monkeypatch.setattr(atomic.os, "fsync", _fail)
    with pytest.raises(Injected):
        atomic.stage(tmp_path / "lock", b"data", 0o644, staged)
    assert len(staged) == 1 and atomic.is_temporary_name(tmp_path / "lock", staged[0]) and Path(staged[0]).exists()
    atomic.discard(staged[0])
    assert list(tmp_path.iterdir()) == []


def _calls(tree: ast.AST, names: set[str]) -> list[int]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and f"{owner.id}.{node.func.attr}" in names:
                found.append(node.lineno)
    return found


def test_no_module_but_the_writer_renames_files():
    renames = {"os.replace", "os.rename", "os.renames", "shutil.move"}
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "atomic.py":
            continue
        lines = _calls(ast.parse(path.read_text("utf-8")), renames)
        problems.extend(f"{path.relative_to(SRC)}:{line}: rename through infralens.atomic" for line in lines)
    assert not problems, "\n".join(problems)
    assert _calls(ast.parse((SRC / "atomic.py").read_text("utf-8")), renames), "the writer itself should rename"


def _direct_writes(tree: ast.AST) -> list[int]:
    """Lines calling ``X.write_text``/``X.write_bytes`` (pathlib) or ``open(PATH, "w…")`` (``os.fdopen`` of a pipe is no file)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("write_text", "write_bytes") and not _is_module(func.value):
            found.append(node.lineno)
        mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
        if (
            isinstance(func, ast.Name)
            and func.id == "open"
            and isinstance(mode, ast.Constant)
            and isinstance(mode.value, str)
            and set(mode.value) & set("wax+")
        ):
            found.append(node.lineno)
    return found


def _is_module(value: ast.expr) -> bool:
    """``atomic.write_text`` or ``infralens.atomic.write_text``: the writer itself, not a path."""
    return (isinstance(value, ast.Name) and value.id == "atomic") or (isinstance(value, ast.Attribute) and value.attr == "atomic")


def test_files_are_written_only_through_the_writer():
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative == "atomic.py" or relative in SCRATCH_WRITERS:
            continue
        problems.extend(f"{relative}:{line}: write through infralens.atomic" for line in _direct_writes(ast.parse(path.read_text("utf-8"))))
    assert not problems, "\n".join(problems)
    for relative in SCRATCH_WRITERS:  # an exception that is no longer needed is removed
        assert _direct_writes(ast.parse((SRC / relative).read_text("utf-8"))), f"{relative} writes nothing directly now: drop it"
