"""Writes go only where the user pointed, as a regular file (issue 38, item 4).

Every ``--output``, ``--report`` and ``--json`` path and every file of the project (annotations, the lock, the
concept map) is written through :mod:`infralens.userfiles`: a FIFO, a device, a folder or a link that leads out is
refused with one line (exit 2) before anything is opened; a link inside the project (or, for an output, inside its
own folder) is written through to its target, which is replaced atomically, and stays a link; ``-`` is standard
output. Each FIFO case runs under a deadline, so a write that would block fails the test instead of hanging it.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from pathlib import Path

import pytest

from infralens.cli import main
from infralens.reports import ScenarioRecord, ScenarioStatus, StepRecord, StepStatus, VerifyReport, dumps_report, load_history_runs

from write_samples import RENAMED, STEP_ANNOTATION, FixProject, cli  # isort: skip  (puts tests/ on the path)
from _deadline import deadline  # isort: skip

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not hasattr(os, "symlink"), reason="needs FIFOs and symbolic links")

CONCEPTS = """\
- pair: sampler
  title: A sampler
  diffusers: demo.core.Sampler.step
  diffsynth: "demo.core.other"
  same: Words about the step.
"""


def _verify_report(folder: Path) -> Path:
    """A small verification report named for the release it ran (what ``history --runs`` reads)."""
    step = StepRecord(StepStatus.PASSED, 1, "toy", "annotations/a.yaml", 2, None, (), None)
    scenarios = {"toy": ScenarioRecord(ScenarioStatus.PASSED, 1.0)}
    report = VerifyReport("2026-11-25T20:00:00Z", "cpu", None, {"python": "3.11", "demo": "0.9.0"}, (), scenarios, {"a/x": step})
    path = folder / "demo-0.9.0.json"
    path.write_text(dumps_report(report), "utf-8")
    return path


def _runs(folder: Path, output: str) -> int:
    """``infralens history --runs REPORT --output OUTPUT``: the lightest command with an ``--output``."""
    return main(["history", "--runs", str(_verify_report(folder)), "--output", output])


def _one_line_error(err: str, *words: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "nothing was written" in lines[0] and all(word in lines[0] for word in words), err


# -- outputs: --output, --report, --json ---------------------------------------------------------


def test_an_output_onto_a_fifo_is_refused_without_hanging(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with deadline(20):
        code = _runs(tmp_path, str(fifo))
    assert code == 2 and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    _one_line_error(capsys.readouterr().err, str(fifo), "FIFO", "'-' for standard output")


def test_an_output_onto_a_character_device_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A replica of ``/dev/null``: run as root, ``--output /dev/null`` replaced the machine's ``/dev/null``."""
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot make a device node here ({error})")
    with deadline(20):
        code = _runs(tmp_path, str(device))
    assert code == 2 and stat.S_ISCHR(os.lstat(device).st_mode)
    _one_line_error(capsys.readouterr().err, str(device), "character device")


def test_an_output_through_a_link_to_standard_output_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "out.json"
    link.symlink_to("/dev/stdout")
    with deadline(20):
        code = _runs(tmp_path, str(link))
    assert code == 2 and link.is_symlink() and os.readlink(link) == "/dev/stdout"
    _one_line_error(capsys.readouterr().err, str(link), "symbolic link")


def test_an_output_through_a_link_to_a_users_file_elsewhere_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "home" / "notes.txt"
    elsewhere.parent.mkdir()
    elsewhere.write_text("the user's own notes\n")
    (tmp_path / "reports").mkdir()
    link = tmp_path / "reports" / "history-runs.json"
    link.symlink_to(elsewhere)
    code = _runs(tmp_path, str(link))
    assert code == 2 and link.is_symlink() and elsewhere.read_text() == "the user's own notes\n"
    _one_line_error(capsys.readouterr().err, str(link), "outside")


def test_an_output_link_to_a_file_in_its_own_folder_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "history-runs-2026.json"
    real.write_text("old\n")
    link = tmp_path / "history-runs.json"
    link.symlink_to(real.name)
    assert _runs(tmp_path, str(link)) == 0
    assert link.is_symlink() and os.readlink(link) == real.name
    assert load_history_runs(real).series and not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_dash_writes_the_output_to_standard_output(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _runs(tmp_path, "-") == 0
    out = capsys.readouterr().out
    assert out.startswith("{") and '"history_runs"' in out
    assert not (tmp_path / "-").exists()


def test_a_report_on_standard_output_leaves_the_prints_on_standard_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """``verify --report -`` and ``coverage --json -``: the report alone on standard output."""
    from infralens.userfiles import report_on_standard_output

    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    with report_on_standard_output("verify.json") as path:
        print("summary table")
        path.write_text('{"report": 1}\n')
    assert out.getvalue() == '{"report": 1}\n' and err.getvalue() == "summary table\n"
    assert not path.parent.exists()


def test_cost_verify_and_coverage_check_their_output_before_working(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO output is refused at once (exit 2), not after the counting, the scenarios or a hang."""
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    for argv in (["cost", "--output", str(fifo)], ["verify", "--report", str(fifo)], ["coverage", "tiny-sd-ddim", "--json", str(fifo)]):
        with deadline(30):
            assert main(["--project", str(tmp_path), *argv]) == 2, argv
        _one_line_error(capsys.readouterr().err, str(fifo), "FIFO")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# -- the project's own files: the lock, annotations, the concept map -----------------------------


def test_a_lock_that_links_inside_the_project_is_written_through(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = project / "shared" / "annotations.lock"
    real.parent.mkdir()
    real.write_text("")
    link = project / "annotations" / "annotations.lock"
    link.symlink_to(Path("..") / "shared" / "annotations.lock")
    assert main(cli(project, "lock")) == 0, capsys.readouterr().err
    assert link.is_symlink() and "[annotation ann-f]" in real.read_text()
    assert main(cli(project, "check")) == 0


def test_a_lock_that_links_outside_the_project_is_refused(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "elsewhere.lock"
    outside.write_text("a file of the user's\n")
    link = project / "annotations" / "annotations.lock"
    link.symlink_to(outside)
    assert main(cli(project, "lock")) == 2
    err = capsys.readouterr().err
    assert "outside the project" in err and str(link) in err and "Traceback" not in err
    assert link.is_symlink() and outside.read_text() == "a file of the user's\n"


def test_an_annotation_file_that_links_inside_the_project_is_extended_through_the_link(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``add`` already wrote the link's target (it names files by their real path): kept so by the one policy."""
    link = project / "annotations" / "fakedist" / "f.yaml"
    real = project / "shared" / "f.yaml"
    real.parent.mkdir()
    link.rename(real)
    link.symlink_to(Path("..") / ".." / "shared" / "f.yaml")
    assert main(cli(project, "add", "fakedist/mod.py:L3-L3")) == 0, capsys.readouterr().err
    assert link.is_symlink() and "y = x * 2" in real.read_text()


def test_fix_writes_through_a_concept_map_that_links_inside_the_project(fixproject: FixProject, capsys: pytest.CaptureFixture[str]) -> None:
    """A target renamed upstream: the annotation and the linked concept map change in one journaled write."""
    real = fixproject.root / "shared" / "concepts.yaml"
    real.parent.mkdir()
    real.write_text(CONCEPTS)
    link = fixproject.root / "labs" / "concepts.yaml"
    link.symlink_to(Path("..") / "shared" / "concepts.yaml")
    fixproject.locked(("s.yaml", STEP_ANNOTATION))
    new = fixproject.release("2.0", RENAMED)
    capsys.readouterr()
    assert fixproject.run(new, "fix") in (0, 1), capsys.readouterr().err
    assert link.is_symlink() and "demo.core.EulerSampler.step" in real.read_text()
    assert "target: demo.core.EulerSampler.step" in (fixproject.root / "annotations" / "demo" / "s.yaml").read_text()
    assert not list(fixproject.root.rglob("*.tmp")) and not list(fixproject.root.rglob("*.journal"))


def test_fix_refuses_a_concept_map_that_links_outside_the_project(fixproject: FixProject, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "users-concepts.yaml"
    outside.write_text(CONCEPTS)
    link = fixproject.root / "labs" / "concepts.yaml"
    link.symlink_to(outside)
    fixproject.locked(("s.yaml", STEP_ANNOTATION))
    annotation = fixproject.root / "annotations" / "demo" / "s.yaml"
    before = annotation.read_bytes()
    new = fixproject.release("2.0", RENAMED)
    capsys.readouterr()
    assert fixproject.run(new, "fix") == 2
    err = capsys.readouterr().err
    assert "outside the project" in err and "Traceback" not in err
    assert link.is_symlink() and outside.read_text() == CONCEPTS and annotation.read_bytes() == before  # all or nothing


def test_the_policy_never_opens_the_path(tmp_path: Path) -> None:
    """``write_target`` looks with lstat/stat only: a FIFO with no writer would block an open for reading."""
    from infralens.userfiles import Placement, UserFileError, write_target

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with deadline(10), pytest.raises(UserFileError, match="FIFO"):
        write_target(fifo, output=True)
    folder_link = tmp_path / "to-folder"
    folder_link.symlink_to(tmp_path)
    with pytest.raises(UserFileError, match="which is a folder"):
        write_target(folder_link)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(UserFileError, match="symbolic link"):
        write_target(loop)
    dangling = tmp_path / "new-link"
    dangling.symlink_to("created-later.json")
    target = write_target(dangling, output=True)
    assert target.placement is Placement.THROUGH_LINK and target.real == Path(os.path.realpath(tmp_path)) / "created-later.json"


def test_a_link_inside_the_project_may_lead_anywhere_in_it_and_one_outside_only_into_its_folder(tmp_path: Path) -> None:
    from infralens.userfiles import Placement, UserFileError, write_target

    root = tmp_path / "project"
    (root / "reports").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "data" / "history.json").write_text("{}\n")
    inside = root / "reports" / "history.json"
    inside.symlink_to(Path("..") / "data" / "history.json")
    assert write_target(inside, within=root, output=True).placement is Placement.THROUGH_LINK
    with pytest.raises(UserFileError, match="outside its folder"):
        write_target(inside, output=True)  # no project named: only the link's own folder
    (tmp_path / "elsewhere").mkdir()
    outside = tmp_path / "elsewhere" / "history.json"
    outside.symlink_to(root / "data" / "history.json")
    with pytest.raises(UserFileError, match="outside its folder"):
        write_target(outside, within=root, output=True)


def test_a_link_to_a_file_not_there_yet_is_created_through_the_link(tmp_path: Path) -> None:
    from infralens.userfiles import write_atomically

    link = tmp_path / "report.json"
    link.symlink_to("report-2026.json")
    write_atomically(link, "{}\n", output=True)
    assert link.is_symlink() and (tmp_path / "report-2026.json").read_text() == "{}\n"


def test_a_file_with_a_newline_in_its_name_is_named_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "out\n::error::x.json"
    os.mkfifo(fifo)
    with deadline(20):
        assert _runs(tmp_path, str(fifo)) == 2
    _one_line_error(capsys.readouterr().err, "FIFO")


def test_the_existing_lock_helpers_still_answer(tmp_path: Path) -> None:
    """The writer lock moved into ``infralens.userfiles``; ``infralens.drift`` still offers it."""
    from infralens import drift, userfiles

    assert Path(drift.writer_lock(tmp_path / "a.lock").lock_file) == Path(userfiles.writer_lock(tmp_path / "a.lock").lock_file)
