"""Clean stops: Ctrl-C or SIGTERM ends ``infralens verify`` and its workers quickly; a timeout is named as one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _deadline import CTRL_C_REACHES_PYTHON
from verify_helpers import REPO_SCENARIOS

from infralens.reports import ScenarioStatus
from infralens.scenarios import discover_scenarios
from infralens.verify.run.plan import Plan
from infralens.verify.run.runner import run_plan

# A stand-in worker: records its pid, ignores SIGTERM (so only a kill ends it) and hangs.
_HANGING_WORKER = """
import pathlib, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
pathlib.Path(sys.argv[1]).write_text(str(__import__("os").getpid()))
time.sleep(60)
"""


@pytest.mark.slow
def test_a_worker_past_the_timeout_is_reported_as_timed_out_and_its_scenarios_as_not_run():
    # The real worker cannot import torch and run a scenario in 0.2 s.
    result = run_plan(Plan((), (), catalog=discover_scenarios(REPO_SCENARIOS)), "cpu", timeout=0.2, scenarios=("forward-noise", "guider"))
    assert [(s.scenario, s.status, s.error) for s in result.scenarios] == [
        ("forward-noise", ScenarioStatus.NOT_RUN, "timed out after 0.2 s"),
        ("guider", ScenarioStatus.NOT_RUN, "timed out after 0.2 s"),
    ]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_verify_stops_within_two_seconds_ends_its_workers_and_exits_2(tmp_path: Path, signum: int):
    project = tmp_path / "project"
    (project / "annotations").mkdir(parents=True)
    (project / "scenarios").symlink_to(REPO_SCENARIOS, target_is_directory=True)
    worker, started = tmp_path / "worker.py", tmp_path / "worker.pid"
    worker.write_text(_HANGING_WORKER)
    driver = (
        CTRL_C_REACHES_PYTHON + "import sys\n"
        "from infralens.verify.run import runner\n"
        f"runner.WORKER_COMMAND = (sys.executable, {str(worker)!r}, {str(started)!r})\n"
        "from infralens.cli import main\n"
        f"sys.exit(main(['--project', {str(project)!r}, '--no-cache', 'verify', '--device', 'cpu', '--scenario', 'forward-noise']))\n"
    )
    process = subprocess.Popen([sys.executable, "-c", driver], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 15
        while not started.exists() or not started.read_text():
            assert process.poll() is None and time.monotonic() < deadline, "the worker never started"
            time.sleep(0.05)
        pid = int(started.read_text())
        sent = time.monotonic()
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=10)
        took = time.monotonic() - sent
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 2, stderr
    assert took < 2.0
    assert "Traceback" not in stderr
    assert "infralens: interrupted" in stderr
    deadline = time.monotonic() + 1
    while _alive(pid) and time.monotonic() < deadline:  # a killed orphan is reaped by init
        time.sleep(0.05)
    assert not _alive(pid), "a worker outlived verify"


def test_a_worker_runs_in_a_folder_of_its_own_that_is_removed_after(tmp_path, monkeypatch):
    """Upstream code (or a mutant) writing to a relative path, or leaving a temporary folder behind (a forked mutant run
    that exits inside ``TemporaryDirectory``), must not litter the folder verify was started from or the system's."""
    from infralens.verify.run import runner

    monkeypatch.chdir(tmp_path)
    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(system_tmp))
    script = "import os, sys, tempfile; open('stray.txt', 'w').write('x'); tempfile.mkdtemp(prefix='left-'); print(os.getcwd()); sys.stdout.flush()"
    monkeypatch.setattr(runner, "WORKER_COMMAND", (sys.executable, "-c", script))
    workers = runner._Workers()
    with open(tmp_path / "stderr.txt", "w") as stderr:
        worker = workers.start("cpu", stderr)
    assert worker is not None
    out, _ = worker.communicate(timeout=60)
    folder = out.strip()
    assert folder != str(tmp_path) and (Path(folder) / "stray.txt").is_file()
    workers.ended(worker)
    assert not Path(folder).exists() and not (tmp_path / "stray.txt").exists()
    assert list(system_tmp.iterdir()) == []
    assert (tmp_path / "stderr.txt").read_text() == ""


def test_sigterm_interrupts_turns_sigterm_into_ctrl_c_in_the_main_thread_and_does_nothing_elsewhere():
    import threading

    from infralens.stops import sigterm_interrupts

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), sigterm_interrupts():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)
    assert signal.getsignal(signal.SIGTERM) is before
    seen = []

    def in_a_thread() -> None:
        with sigterm_interrupts():
            seen.append(signal.getsignal(signal.SIGTERM) is before)

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert seen == [True]
