"""``fix`` and ``add`` write whole files or nothing: Ctrl-C, read-only files and edits made meanwhile lose no data."""

from __future__ import annotations

import os
import signal
import stat
import time
from pathlib import Path

import pytest
from fix_samples import CHANGED_BOTH, CORE, DIST, OTHER_ANNOTATION, STEP_ANNOTATION, FixProject

from infralens.cli import main

CHANGED = CORE.replace("alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) ** 2")


def _interrupt_at_fsync(monkeypatch: pytest.MonkeyPatch, *, by_signal: bool = False) -> None:
    """Ctrl-C arriving while the new text is being flushed to disk (raised there, or a real SIGINT sent to the process)."""

    def interrupted(fd: int) -> None:
        if by_signal:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)  # the handler raises KeyboardInterrupt here
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*.tmp")]


@pytest.mark.parametrize("by_signal", [False, True], ids=["raised", "sigint"])
def test_ctrl_c_during_the_write_leaves_the_annotation_whole(fixproject: FixProject, monkeypatch, capsys, by_signal):
    fixproject.locked(("s.yaml", STEP_ANNOTATION))
    path = fixproject.root / "annotations" / "demo" / "s.yaml"
    before = path.read_bytes()
    new = fixproject.release("2.0", CHANGED)
    _interrupt_at_fsync(monkeypatch, by_signal=by_signal)
    assert fixproject.run(new, "fix") == 2
    assert path.read_bytes() == before and not _leftovers(fixproject.root)
    assert "interrupted" in capsys.readouterr().err


def test_ctrl_c_during_add_leaves_the_file_whole(project, cli, monkeypatch, capsys):
    assert main(cli("add", f"{DIST}.sched.Sched.step", "--lab", "01-lab", "--id", "sched-step")) == 0
    path = project / "annotations" / DIST / "sched-step.yaml"
    before = path.read_bytes()
    _interrupt_at_fsync(monkeypatch)
    assert main(cli("add", f"{DIST}/sched.py:L7-L8")) == 2
    assert path.read_bytes() == before and not _leftovers(project)
    assert "interrupted" in capsys.readouterr().err
    assert main(cli("add", f"{DIST}.sched.combine", "--lab", "01-lab", "--id", "combine")) == 2
    assert not (project / "annotations" / DIST / "combine.yaml").exists() and not _leftovers(project)


def test_an_edit_made_while_fix_runs_is_kept(fixproject: FixProject, monkeypatch, capsys):
    from infralens.maintainer import repair

    fixproject.locked(("s.yaml", STEP_ANNOTATION))
    path = fixproject.root / "annotations" / "demo" / "s.yaml"
    new = fixproject.release("2.0", CHANGED)
    real = repair.check_resolves

    def meanwhile(*args, **kwargs):
        real(*args, **kwargs)
        path.write_text(path.read_text() + "# the maintainer's edit\n")

    monkeypatch.setattr(repair, "check_resolves", meanwhile)  # where fix calls it
    assert fixproject.run(new, "fix") == 2
    assert path.read_text().endswith("# the maintainer's edit\n") and "review:" not in path.read_text()
    assert "changed while InfraLens was working on it" in capsys.readouterr().err


def test_an_edit_made_while_add_runs_is_kept(project, cli, monkeypatch, capsys):
    from infralens.maintainer import scaffold_yaml

    assert main(cli("add", f"{DIST}.sched.Sched.step", "--lab", "01-lab", "--id", "sched-step")) == 0
    path = project / "annotations" / DIST / "sched-step.yaml"
    real = scaffold_yaml.append_steps

    def meanwhile(*args, **kwargs):
        path.write_text(path.read_text() + "# the maintainer's edit\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(scaffold_yaml, "append_steps", meanwhile)
    assert main(cli("add", f"{DIST}/sched.py:L7-L8")) == 2
    assert path.read_text().endswith("# the maintainer's edit\n")
    assert "changed while InfraLens was working on it" in capsys.readouterr().err


def test_a_read_only_file_is_a_clear_error_and_fix_over_two_files_writes_neither(fixproject: FixProject, capsys):
    fixproject.locked(("a.yaml", STEP_ANNOTATION), ("b.yaml", OTHER_ANNOTATION))
    first, second = (fixproject.root / "annotations" / "demo" / name for name in ("a.yaml", "b.yaml"))
    before = first.read_bytes()
    second.chmod(stat.S_IRUSR)
    new = fixproject.release("2.0", CHANGED_BOTH)
    try:
        assert fixproject.run(new, "fix") == 2
    finally:
        second.chmod(stat.S_IRUSR | stat.S_IWUSR)
    err = capsys.readouterr().err
    assert "b.yaml: the file is read-only; nothing was written" in err and "Traceback" not in err
    assert first.read_bytes() == before


def test_a_write_that_fails_part_way_puts_the_first_file_back(fixproject: FixProject, monkeypatch, capsys):
    """The same all-or-nothing write as root (who may write read-only files): the second replace fails."""
    fixproject.locked(("a.yaml", STEP_ANNOTATION), ("b.yaml", OTHER_ANNOTATION))
    first, second = (fixproject.root / "annotations" / "demo" / name for name in ("a.yaml", "b.yaml"))
    before = (first.read_bytes(), second.read_bytes())
    new = fixproject.release("2.0", CHANGED_BOTH)
    real = os.replace

    def failing(source, destination):
        if str(destination).endswith("b.yaml"):
            raise PermissionError(13, "Permission denied", str(destination))
        return real(source, destination)

    monkeypatch.setattr(os, "replace", failing)
    assert fixproject.run(new, "fix") == 2
    assert (first.read_bytes(), second.read_bytes()) == before
    assert "b.yaml: cannot write the file" in capsys.readouterr().err


def test_add_to_a_read_only_file_is_a_clear_error(project, cli, capsys):
    assert main(cli("add", f"{DIST}.sched.Sched.step", "--lab", "01-lab", "--id", "sched-step")) == 0
    path = project / "annotations" / DIST / "sched-step.yaml"
    before = path.read_bytes()
    path.chmod(stat.S_IRUSR)
    try:
        assert main(cli("add", f"{DIST}/sched.py:L7-L8")) == 2
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert path.read_bytes() == before
    err = capsys.readouterr().err
    assert "read-only" in err and "Traceback" not in err
