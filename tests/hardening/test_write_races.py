"""Races closed (issue 38, item 6): one writer at a time, hashes of what was parsed, journaled multi-file writes.

- ``lock`` records each annotation file's hash of the very bytes it parsed, so a file saved in between can never be
  recorded as locked with the old steps (``check``, which trusts a matching hash, said clean while the new step was
  unlocked). The races are made deterministic with hooks at the exact moment, not with timing.
- ``add``, ``fix`` and ``lock`` hold the project's writer lock while they compare and replace: ``add`` cannot land
  in ``fix``'s window between its comparison and its replace.
- A ``fix`` of several files killed between two replaces (SIGKILL) leaves a journal; ``check`` warns, and the next
  command that writes completes the write (or rolls it back when a new text is gone). Never half applied.
- Ctrl-C arriving the moment a temporary file is created leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import filelock
import pytest

from infralens import drift
from infralens.cli import main
from infralens.resolve import Resolver

from write_samples import (  # isort: skip  (puts tests/ on the path)
    CHANGED_BOTH,
    NEW_STEP,
    OTHER_ANNOTATION,
    STEP_ANNOTATION,
    FixProject,
    cli,
    new_fix_project,
    small_project,
)

ROOT = Path(__file__).resolve().parents[2]
JOURNAL = ".infralens-write.journal"


@pytest.fixture
def quick_writer_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that finds the writer lock held gives up after 0.5 s (instead of waiting a minute)."""
    acquire = filelock.BaseFileLock.acquire

    def quick(self, timeout=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        return acquire(self, 0.5, *args, **kwargs)

    monkeypatch.setattr(filelock.BaseFileLock, "acquire", quick)


def _annotation(root: Path) -> Path:
    return root / "annotations" / "fakedist" / "f.yaml"


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if p.name.endswith(".tmp") or p.name == JOURNAL)


# -- lock hashes exactly the bytes it parsed ------------------------------------------------------


def test_a_file_saved_while_lock_resolves_it_is_not_recorded_as_locked(project: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """The file gains a step after lock parsed it (while it resolves): the lock keeps the parsed file's hash, so
    ``check`` reads the file again and reports the new step as not locked (it said clean)."""
    path = _annotation(project)
    resolve = Resolver.resolve_annotation
    saved: list[bool] = []

    def resolve_then_save(self, annotation):  # type: ignore[no-untyped-def]
        if not saved:
            saved.append(True)
            path.write_text(path.read_text() + NEW_STEP)  # add (or an editor) saves the file now
        return resolve(self, annotation)

    monkeypatch.setattr(Resolver, "resolve_annotation", resolve_then_save)
    assert main(cli(project, "lock")) == 0
    monkeypatch.setattr(Resolver, "resolve_annotation", resolve)
    capsys.readouterr()
    assert main(cli(project, "check")) == 1
    out = capsys.readouterr().out
    assert "not in the lock" in out


def test_lock_records_the_hash_of_exactly_the_bytes_it_parsed(project: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """The file is saved the instant the loader has read it: the lock records the hash of the bytes that were
    parsed (one read, no second read to hash), so ``check`` sees the file changed and reports the new step."""
    from infralens.annotations import load as loader
    from infralens.hashing import sha256_bytes

    path = _annotation(project)
    read = loader.read_regular
    parsed: list[bytes] = []

    def read_then_save(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        data = read(file, *args, **kwargs)
        if Path(file) == path and not parsed:
            parsed.append(data)
            path.write_text(path.read_text() + NEW_STEP)  # an editor saves right after the read
        return data

    monkeypatch.setattr(loader, "read_regular", read_then_save)
    assert main(cli(project, "lock")) == 0
    monkeypatch.setattr(loader, "read_regular", read)
    lock = drift.read_lock(project / "annotations" / "annotations.lock")
    assert len(lock.steps) == 1
    assert {entry.file_sha256 for entry in lock.annotations.values()} == {sha256_bytes(parsed[0])}
    capsys.readouterr()
    assert main(cli(project, "check")) == 1
    assert "not in the lock" in capsys.readouterr().out


# -- one writer at a time --------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["add", "fix", "fix --reviewed"])
def test_add_and_fix_wait_for_the_writer_lock(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_writer_lock, capsys) -> None:
    """While another writer (here: ``lock``) holds the project's writer lock, ``add``, ``fix`` and ``fix --reviewed`` write nothing."""
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    if command == "add":
        root = small_project(tmp_path / "project")
        assert main(cli(root, "lock")) == 0
        path, argv = _annotation(root), cli(root, "add", "fakedist/mod.py:L3-L3")
    else:
        fix = new_fix_project(tmp_path / "project")
        fix.locked(("s.yaml", STEP_ANNOTATION))
        root, path = fix.root, fix.root / "annotations" / "demo" / "s.yaml"
        argv = ["--project", str(root), "--source", f"demo={fix.release('2.0', CHANGED_BOTH)}", "fix"]
        if command == "fix --reviewed":
            assert main(argv) == 0  # marks the changed steps 'review:'
            argv = ["--project", str(root), "--source", f"demo={fix.release('2.0', CHANGED_BOTH)}", "fix", "--reviewed", "demo-step"]
            capsys.readouterr()
    before = path.read_bytes()
    with drift.writer_lock(root / "annotations" / "annotations.lock", timeout=5):
        code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and "could not be acquired" in err and "nothing was changed" in err
    assert path.read_bytes() == before


def test_an_add_cannot_land_between_fix_compares_and_replaces(fixproject: FixProject, monkeypatch: pytest.MonkeyPatch, quick_writer_lock, capsys) -> None:
    """``add`` runs at the worst moment: after fix compared the file with what it read, before its replace. The
    add must be refused (the writer lock is held) or kept; it used to succeed and then be overwritten by fix."""
    fixproject.locked(("s.yaml", STEP_ANNOTATION))
    path = fixproject.root / "annotations" / "demo" / "s.yaml"
    new = fixproject.release("2.0", CHANGED_BOTH)
    add = ["--project", str(fixproject.root), "--source", f"demo={new}", "add", "demo/core.py:L14-L14"]  # 'return out'
    replace = os.replace
    added: list[int] = []

    def replace_after_an_add(source, destination):  # type: ignore[no-untyped-def]
        if not added and str(destination).endswith("s.yaml"):
            added.append(main(add))
        return replace(source, destination)

    monkeypatch.setattr(os, "replace", replace_after_an_add)
    fixproject.run(new, "fix")
    monkeypatch.setattr(os, "replace", replace)
    text = path.read_text()
    assert added and "review:" in text  # fix wrote its edit
    assert added[0] != 0 or "return out" in text, "add said it wrote its step, and fix then replaced the file without it"
    assert "could not be acquired" in capsys.readouterr().err


# -- a multi-file fix killed between its replaces ----------------------------------------------------


def _fix_killed_after_the_first_replace(fix: FixProject, base: Path) -> None:
    """Run ``fix`` in a process that SIGKILLs itself right after its first annotation file is replaced."""
    code = textwrap.dedent(
        f"""
        import os, signal, sys
        real = os.replace
        def replace(source, destination):
            real(source, destination)
            if str(destination).endswith(".yaml"):
                os.kill(os.getpid(), signal.SIGKILL)
        os.replace = replace
        from infralens.cli import main
        sys.exit(main(["--project", {str(fix.root)!r}, "--source", {"demo=" + str(base)!r}, "fix"]))
        """
    )
    process = subprocess.run([sys.executable, "-c", code], check=False, env=dict(os.environ), capture_output=True, text=True, timeout=300)
    assert process.returncode == -signal.SIGKILL, process.stderr


@pytest.fixture
def half_applied(fixproject: FixProject) -> tuple[FixProject, Path, Path, bytes, bytes]:
    fixproject.locked(("a.yaml", STEP_ANNOTATION), ("b.yaml", OTHER_ANNOTATION))
    first, second = (fixproject.root / "annotations" / "demo" / name for name in ("a.yaml", "b.yaml"))
    before = (first.read_bytes(), second.read_bytes())
    _fix_killed_after_the_first_replace(fixproject, fixproject.release("2.0", CHANGED_BOTH))
    assert first.read_bytes() != before[0] and second.read_bytes() == before[1]  # killed half-way
    return fixproject, first, second, *before


def test_a_fix_killed_between_its_replaces_is_completed_by_the_next_command(half_applied, capsys) -> None:
    fix, first, second, _, _ = half_applied
    base = fix.root.parent / "demo-2.0"
    capsys.readouterr()
    fix.run(base, "check")
    assert "was interrupted" in capsys.readouterr().err  # check only warns: it writes nothing
    assert second.read_bytes() == half_applied[4]
    assert fix.run(base, "lock", "--update") in (0, 1)
    err = capsys.readouterr().err
    assert "an interrupted write of 2 file(s) was completed (wrote annotations/demo/b.yaml)" in err
    assert "review:" in first.read_text() and "review:" in second.read_text()
    assert _leftovers(fix.root) == []


def test_a_fix_killed_between_its_replaces_is_rolled_back_when_a_new_text_is_gone(half_applied, capsys) -> None:
    fix, first, second, first_before, second_before = half_applied
    for pending in first.parent.glob(".b.yaml.*.tmp"):
        pending.unlink()  # the new text of b.yaml is lost: the write cannot be completed
    capsys.readouterr()
    assert fix.run(fix.root.parent / "demo-2.0", "lock", "--update") in (0, 1)
    assert "was rolled back" in capsys.readouterr().err
    assert (first.read_bytes(), second.read_bytes()) == (first_before, second_before)
    assert _leftovers(fix.root) == []


def test_a_journal_is_data_and_cannot_replace_a_file_outside_the_project(project: Path, tmp_path: Path, capsys) -> None:
    """A journal planted in a checkout naming a file outside the project (with a matching new text) is refused."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's file\n")
    planted = tmp_path / ".victim.txt.abcd.tmp"
    planted.write_text("planted\n")
    from infralens.hashing import sha256_bytes

    journal = project / "annotations" / JOURNAL
    entry = {"path": "../../victim.txt", "new": "../../.victim.txt.abcd.tmp", "backup": None, "new-sha256": sha256_bytes(b"planted\n"), "old-sha256": None}
    journal.write_text(json.dumps({"format": "infralens-write-journal 1", "files": [entry]}))
    assert main(cli(project, "lock")) == 2
    err = capsys.readouterr().err
    assert "not a journal of an interrupted InfraLens write" in err and "outside the project" in err and "Traceback" not in err
    assert victim.read_text() == "the user's file\n" and planted.exists()
    journal.write_text("{ not json")
    assert main(cli(project, "add", "fakedist/mod.py:L3-L3")) == 2
    assert "remove the file and run again" in capsys.readouterr().err


def test_a_planted_journal_cannot_delete_or_replace_files_infralens_does_not_write(project: Path, capsys) -> None:
    """The hostile re-test's second critical case: a journal naming ``.git/HEAD`` as a file the write created (its
    hash is predictable), beside a mismatched entry that forces a rollback, deleted ``.git/HEAD``. A journal may
    name only files InfraLens writes, outside hidden folders; and a rollback moves a created file aside, never
    deleting it."""
    from infralens.hashing import sha256_bytes

    git = project / ".git"
    git.mkdir()
    head = git / "HEAD"
    head.write_text("ref: refs/heads/main\n")
    annotation = _annotation(project)
    journal = project / "annotations" / JOURNAL
    mismatched = {
        "path": "fakedist/f.yaml",
        "new": "fakedist/.f.yaml.y.tmp",
        "backup": "fakedist/.f.yaml.z.tmp",
        "new-sha256": "a" * 64,
        "old-sha256": "b" * 64,
    }
    created = {"path": "../.git/HEAD", "new": "../.git/.HEAD.x.tmp", "backup": None, "new-sha256": sha256_bytes(head.read_bytes()), "old-sha256": None}
    journal.write_text(json.dumps({"format": "infralens-write-journal 1", "files": [created, mismatched]}))
    before = annotation.read_bytes()
    assert main(cli(project, "lock")) == 2
    err = capsys.readouterr().err
    assert "not a file InfraLens writes" in err and "Traceback" not in err
    assert head.read_text() == "ref: refs/heads/main\n" and annotation.read_bytes() == before

    # The same shape naming an annotation file (predictable too): rolled back, the file is moved aside, not deleted.
    other = annotation.with_name("g.yaml")
    other.write_text(annotation.read_text().replace("id: ", "id: g-", 1))
    created = {"path": "fakedist/g.yaml", "new": "fakedist/.g.yaml.x.tmp", "backup": None, "new-sha256": sha256_bytes(other.read_bytes()), "old-sha256": None}
    journal.write_text(json.dumps({"format": "infralens-write-journal 1", "files": [created, mismatched]}))
    kept = other.read_bytes()
    main(cli(project, "lock"))
    err = capsys.readouterr().err
    assert "moved aside" in err and "g.yaml.rolled-back" in err
    assert other.with_name("g.yaml.rolled-back").read_bytes() == kept and not journal.exists()


# -- Ctrl-C the moment a temporary file exists -----------------------------------------------------


@pytest.fixture
def ctrl_c_after_mkstemp(monkeypatch: pytest.MonkeyPatch):
    """Ctrl-C arrives the instant the writer has made its temporary file (``os.open`` with ``O_CREAT | O_EXCL``),
    before the caller has its name."""
    make = os.open

    def interrupted(path, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        made = make(path, flags, *args, **kwargs)
        if flags & os.O_CREAT and flags & os.O_EXCL:
            signal.raise_signal(signal.SIGINT)
        return made

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(os, "open", interrupted)
    yield
    monkeypatch.undo()
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_right_after_the_temporary_file_is_made_leaves_nothing(tmp_path: Path, ctrl_c_after_mkstemp) -> None:
    from infralens.userfiles import write_atomically

    path = tmp_path / "report.json"
    path.write_text("old\n")
    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, "new\n")
    assert path.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_ctrl_c_right_after_add_makes_its_temporary_file_leaves_nothing(project: Path, ctrl_c_after_mkstemp, capsys) -> None:
    path = _annotation(project)
    before = path.read_bytes()
    assert main(cli(project, "add", "fakedist/mod.py:L3-L3")) == 2
    assert "interrupted" in capsys.readouterr().err
    assert path.read_bytes() == before and _leftovers(project) == []
