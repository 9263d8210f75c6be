"""Writes that cannot lose data: the lock is written atomically, serialised, and round-trips comments.

These exercise the lock API of ``infralens.drift`` and
``infralens lock`` run in real subprocesses (which the tests kill or race).
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from infralens import drift
from infralens.drift import update

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))  # fuzz lives in tools/, not in the package
import fuzz

MOD = textwrap.dedent(
    """
    def f(a):
        x = a + 1
        y = x * 2
        return y


    def g(b):
        z = b - 1
        return z
    """
).lstrip()


def make_project(root: Path) -> Path:
    (root / "site" / "fakedist").mkdir(parents=True)
    (root / "site" / "fakedist" / "__init__.py").write_text('__version__ = "1.0"\n')
    (root / "site" / "fakedist" / "mod.py").write_text(MOD)
    (root / "annotations" / "fakedist").mkdir(parents=True)
    (root / "labs" / "lab-01-lab").mkdir(parents=True)
    for name, target, at in (("f", "f", "x = a + 1"), ("g", "g", "z = b - 1")):
        (root / "annotations" / "fakedist" / f"{name}.yaml").write_text(
            f"# a comment the lock must never touch\nid: ann-{name}\nlab: 01-lab\nsource: fakedist\ntarget: fakedist.mod.{target}\n"
            f"summary: s\nsteps:\n  - at: {at}\n    note: |\n      A note about {name}, with $math$.\n"
        )
    return root


def infralens(root: Path, *args: str, **popen) -> subprocess.Popen:
    argv = ["--source", f"fakedist={root / 'site'}", *args]
    code = f"import sys; from infralens.cli import main; sys.exit(main({argv!r}))"
    env = {**os.environ, "INFRALENS_CACHE_DIR": str(root / "cache")}
    return subprocess.Popen([sys.executable, "-c", code], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def run(root: Path, *args: str) -> tuple[int, str, str]:
    process = infralens(root, *args)
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


@pytest.fixture
def project(tmp_path):
    root = make_project(tmp_path / "project")
    code, _, err = run(root, "lock")
    assert code == 0, err
    return root


def lock_path(root: Path) -> Path:
    return root / "annotations" / "annotations.lock"


def test_lock_never_edits_annotation_files(project):
    before = {p: p.read_bytes() for p in (project / "annotations").rglob("*.yaml")}
    (project / "site" / "fakedist" / "mod.py").write_text(MOD.replace("x = a + 1", "x = a + 2"))
    for args in (["check"], ["lock", "--update"], ["lock"]):
        run(project, *args)
    assert {p: p.read_bytes() for p in (project / "annotations").rglob("*.yaml")} == before


def test_comments_survive_update_and_full_rewrite(project):
    path = lock_path(project)
    text = path.read_text()
    text = text.replace("[step ann-f/", "# reviewed by Ada on 2026-11-20\n[step ann-f/", 1)
    head, _, rest = text.partition("[step ann-f/")
    rest = rest.replace("\n", "\n# kept inside the entry\n", 1)
    path.write_text("# my own preamble comment\n" + head + "[step ann-f/" + rest)
    (project / "site" / "fakedist" / "mod.py").write_text("# moved\n" + MOD)
    for args in (["lock", "--update"], ["lock"]):
        code, _, err = run(project, *args)
        assert code == 0, err
        written = path.read_text()
        assert written.startswith("# my own preamble comment\n")
        assert "# kept inside the entry" in written
        drift.read_lock_text(path)  # still parses


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(fuzz.lock_entries(), st.lists(st.text(alphabet="abc #é", max_size=10), max_size=3), st.data())
def test_round_trip_keeps_entries_and_comments(tmp_path_factory, entries, comments, data):
    """Property: parse → compose → write → parse is the identity on entries and comments;
    a partial update leaves every other entry byte for byte."""
    path = tmp_path_factory.mktemp("lock") / "annotations.lock"
    path.write_text(fuzz._lock_text(entries, comments))
    parsed = drift.read_lock_text(path)
    drift.write_lock_file(path, drift.compose(parsed, entries, None, set()))
    again = drift.read_lock_text(path)
    assert again.lock.annotations == parsed.lock.annotations and again.lock.steps == parsed.lock.steps
    assert [b.comments for b in again.blocks] == [b.comments for b in parsed.blocks]
    if parsed.blocks:
        chosen = data.draw(st.sampled_from(parsed.blocks))
        partial = drift.compose(parsed, entries, {chosen.key}, set())
        for block in parsed.blocks:
            if block is not chosen:
                assert block.text.rstrip("\n") in partial
    assert sorted(p.name for p in path.parent.iterdir()) == ["annotations.lock"]


def test_a_write_killed_halfway_leaves_the_previous_file(project):
    """Kill the writer after the temporary file is written but before the rename."""
    path = lock_path(project)
    before = path.read_bytes()
    marker = project / "fsync-reached"
    (project / "site" / "fakedist" / "mod.py").write_text("# moved\n" + MOD)
    code = textwrap.dedent(
        f"""
        import os, pathlib, sys, time
        real_fsync = os.fsync
        def stall(fd):
            real_fsync(fd)
            pathlib.Path({str(marker)!r}).write_text("x")
            time.sleep(60)
        os.fsync = stall
        from infralens.cli import main
        sys.exit(main(["--source", {"fakedist=" + str(project / "site")!r}, "lock"]))
        """
    )
    env = {**os.environ, "INFRALENS_CACHE_DIR": str(project / "cache")}
    process = subprocess.Popen([sys.executable, "-c", code], cwd=project, env=env)
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert process.poll() is None, "the writer exited before reaching fsync"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert path.read_bytes() == before
    leftovers = [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    assert len(leftovers) == 1 and leftovers[0].startswith(".annotations.lock.")  # the unfinished temp file, never the lock
    # The next writer is not confused by the leftover and produces the new lock.
    code, _, err = run(project, "lock")
    assert code == 0, err
    assert drift.read_lock_text(path).lock.steps and path.read_bytes() != before


@pytest.mark.parametrize("delay", [0.2, 0.7, 1.2])
def test_a_lock_killed_at_any_moment_is_old_or_new_never_partial(project, delay):
    path = lock_path(project)
    old = path.read_bytes()
    (project / "site" / "fakedist" / "mod.py").write_text("# moved\n" + MOD)
    code, _, err = run(project, "lock")
    assert code == 0, err
    new = path.read_bytes()
    path.write_bytes(old)
    process = infralens(project, "lock")
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    assert path.read_bytes() in (old, new)


def test_two_concurrent_writers_do_not_corrupt_the_lock(project):
    path = lock_path(project)
    (project / "site" / "fakedist" / "mod.py").write_text("# moved\n" + MOD)
    writers = [infralens(project, *args) for args in (["lock", "--update", "ann-f"], ["lock", "--update", "ann-g"], ["lock"], ["lock", "--update"])]
    results = [w.communicate(timeout=300) + (w.returncode,) for w in writers]
    for _, err, code in results:
        assert code == 0, err
    parsed = drift.read_lock_text(path)
    assert set(parsed.lock.annotations) == {"ann-f", "ann-g"}
    assert all(step.lines[0] in (3, 9) for step in parsed.lock.steps.values())  # every entry describes the moved file
    code, out, err = run(project, "check")
    assert code == 0, out + err


def test_a_writer_waits_for_the_file_lock(project):
    """While another process holds the writer lock, ``infralens lock`` waits, then writes a whole file."""
    path = lock_path(project)
    holder_code = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from infralens.drift import writer_lock
        with writer_lock(Path({str(path)!r})):
            print("held", flush=True)
            time.sleep(3)
        """
    )
    holder = subprocess.Popen([sys.executable, "-c", holder_code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    started = time.monotonic()
    (project / "site" / "fakedist" / "mod.py").write_text("# moved\n" + MOD)
    code, _, err = run(project, "lock")
    waited = time.monotonic() - started
    holder.wait()
    assert code == 0, err
    assert waited >= 1.5, "the writer did not wait for the file lock"
    drift.read_lock_text(path)


def test_a_writer_that_cannot_get_the_lock_refuses_clearly(project, monkeypatch, capsys):
    """If the writer lock stays held past the timeout, ``lock`` exits 2 with a message and writes nothing."""
    from filelock import FileLock

    from infralens.cli import main

    path = lock_path(project)
    before = path.read_bytes()
    real = drift.writer_lock
    monkeypatch.setattr(update, "writer_lock", lambda p, timeout=60.0: real(p, timeout=0.2))
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(project / "cache"))
    (project / "site" / "fakedist" / "mod.py").write_text("# moved\n" + MOD)
    holder = FileLock(real(path).lock_file)
    with holder:
        code = main(["--project", str(project), "--source", f"fakedist={project / 'site'}", "lock"])
    assert code == 2
    err = capsys.readouterr().err
    assert "could not be acquired" in err and "another infralens process is writing; nothing was changed, try again" in err
    assert path.read_bytes() == before


# -- issue 18, point 3: modes, per-user writer locks, read-only projects --


def test_lock_writes_keep_the_file_mode(project):
    path = lock_path(project)
    path.chmod(0o640)
    (project / "site" / "fakedist" / "mod.py").write_text("# moved\n" + MOD)
    code, _, err = run(project, "lock")
    assert code == 0, err
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    path.chmod(0o644)
    (project / "site" / "fakedist" / "mod.py").write_text("# moved\n# again\n" + MOD)
    code, out, err = run(project, "lock", "--update", "ann-f")
    assert code == 0 and out.startswith("updated"), out + err
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_new_lock_gets_the_umask_mode(project):
    path = lock_path(project)
    path.unlink()
    for umask, expected in ((0o022, 0o644), (0o027, 0o640)):
        process = infralens(project, "lock", umask=umask)
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        assert stat.S_IMODE(path.stat().st_mode) == expected
        path.unlink()


def test_the_writer_lock_is_private_to_the_user(tmp_path):
    lock_file = Path(drift.writer_lock(tmp_path / "annotations.lock").lock_file)
    folder = lock_file.parent
    info = folder.lstat()
    assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
    assert stat.S_IMODE(info.st_mode) & 0o077 == 0, "the writer-lock folder is shared with other users"
    assert str(os.getuid()) in folder.name


def test_a_planted_writer_lock_folder_is_refused(tmp_path, monkeypatch):
    import tempfile

    from infralens.errors import LockfileError

    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    planted = tmp_path / f"infralens-writers-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)  # as another user would leave it for us
    with pytest.raises(LockfileError, match="not a private folder"):
        drift.writer_lock(tmp_path / "annotations.lock")


def _deny_replace(monkeypatch):
    def denied(src, dst):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(os, "replace", denied)


@pytest.mark.parametrize("how", ["chmod", "simulated"])
@pytest.mark.parametrize("update", [False, True])
def test_a_read_only_project_gives_a_clear_error(project, monkeypatch, capsys, how, update):
    from infralens.cli import main

    path = lock_path(project)
    folder = path.parent
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    (project / "site" / "fakedist" / "mod.py").write_text("# moved\n" + MOD)
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(project / "cache"))
    if how == "chmod":
        if os.geteuid() == 0:
            pytest.skip("root ignores file modes; the simulated case covers it")
        folder.chmod(0o555)
    else:
        _deny_replace(monkeypatch)
    try:
        code = main(["--project", str(project), "--source", f"fakedist={project / 'site'}", "lock", *(["--update", "ann-f"] if update else [])])
    finally:
        folder.chmod(0o755)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("infralens: error: ") and "Traceback" not in err
    assert str(path) in err and "cannot write the lock" in err and "nothing was changed" in err and "writable" in err
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before  # no temp file left either
