"""--against sources: release pins (cached wheels, no download needed here), wheel files, directories."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from _deadline import CTRL_C_REACHES_PYTHON

from infralens.errors import InfralensError, SourceNotFoundError
from infralens.source.distributions import DirectoryTree, WheelTree
from infralens.source.wheels import cached_wheel, fetch_wheel, open_against


def _wheel(folder, name="demo", version="2.0"):
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("demo/__init__.py", "")
        archive.writestr("demo/core.py", "def f():\n    return 1\n")
        archive.writestr(f"{name}-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return path


def test_pinned_release_comes_from_the_wheel_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path))
    (tmp_path / "wheels").mkdir()
    wheel = _wheel(tmp_path / "wheels")
    assert cached_wheel("Demo", "2.0") == wheel
    assert fetch_wheel("demo", "2.0") == wheel  # no pip run: already cached
    tree = open_against("demo==2.0", {"demo"})
    assert isinstance(tree, WheelTree) and tree.version == "2.0"


def test_pin_for_a_distribution_the_lock_does_not_know_is_refused_before_any_download(tmp_path, monkeypatch):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path))
    with pytest.raises(InfralensError, match="no annotations on torch"):
        open_against("torch==2.13.0", {"diffusers"})
    assert not (tmp_path / "wheels").exists()


def test_wheel_file_and_directories(tmp_path):
    wheel = _wheel(tmp_path)
    assert isinstance(open_against(str(wheel), {"demo"}), WheelTree)
    (tmp_path / "checkout" / "src" / "demo").mkdir(parents=True)
    (tmp_path / "checkout" / "src" / "demo" / "__init__.py").write_text("")
    tree = open_against(str(tmp_path / "checkout"), {"demo", "other"})
    assert isinstance(tree, DirectoryTree) and tree.distribution == "demo"
    named = open_against(f"demo={tmp_path / 'checkout'}", {"demo"})
    assert named.distribution == "demo"
    with pytest.raises(InfralensError, match="cannot tell which distribution"):
        open_against(str(tmp_path), {"demo", "other"})
    with pytest.raises(SourceNotFoundError, match="expected DIST==VERSION"):
        open_against(str(tmp_path / "missing"), {"demo"})


# A stand-in for pip: writes half a wheel into --dest, records its pid, ignores SIGTERM (so only a kill
# ends it) and hangs. Nothing touches the network.
_SLOW_PIP = """
import pathlib, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
dest = pathlib.Path(sys.argv[sys.argv.index("--dest") + 1])
(dest / "demo-1.0-py3-none-any.whl").write_bytes(b"PK\\x03\\x04 half a wheel")
pathlib.Path(sys.argv[1]).write_text("started")
time.sleep(60)
"""


def _slow_pip(tmp_path):
    script = tmp_path / "slow_pip.py"
    script.write_text(_SLOW_PIP)
    return (sys.executable, str(script), str(tmp_path / "pip.started"))


def _gone(pid, within=2.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def _pids_of(script):
    """Processes whose command line names *script* (the fake pip), found through /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(script).encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.slow
def test_a_pip_past_its_timeout_is_stopped_and_reported_as_a_timeout(tmp_path, monkeypatch):
    from infralens.source import wheels

    monkeypatch.setattr(wheels, "PIP_COMMAND", _slow_pip(tmp_path))
    monkeypatch.setattr(wheels, "PIP_TIMEOUT_S", 0.5)
    cache = tmp_path / "wheels"
    with pytest.raises(SourceNotFoundError, match=r"pip timed out after 0\.5 s downloading demo==1\.0"):
        fetch_wheel("demo", "1.0", cache)
    assert list(cache.iterdir()) == []  # no wheel moved into place, no temporary folder left
    assert all(_gone(pid) for pid in _pids_of(tmp_path / "slow_pip.py"))


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stop_during_the_download_ends_pip_and_leaves_no_partial_cache_entry(tmp_path, signum):
    cache = tmp_path / "wheels"
    driver = (
        CTRL_C_REACHES_PYTHON + "import sys\n"
        "from infralens.source import wheels\n"
        f"wheels.PIP_COMMAND = {_slow_pip(tmp_path)!r}\n"
        "try:\n"
        f"    wheels.fetch_wheel('demo', '1.0', wheels.Path({str(cache)!r}))\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(130)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", driver], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while not (tmp_path / "pip.started").exists():
            assert process.poll() is None and time.monotonic() < deadline, "the fake pip never started"
            time.sleep(0.05)
        pips = _pids_of(tmp_path / "slow_pip.py")
        assert pips
        sent = time.monotonic()
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=5)
        assert time.monotonic() - sent < 2.5
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, stderr
    assert all(_gone(pid) for pid in pips), "pip outlived the stop"
    assert list(cache.iterdir()) == []


def test_the_package_directory_itself_is_understood(tmp_path):
    """``--against …/site-packages/demo`` (the package, not its parent) reads the same tree as its parent."""
    package = tmp_path / "unpacked" / "demo"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "mod.py").write_text("def f():\n    return 1\n")
    for spec in (str(package), f"demo={package}"):
        tree = open_against(spec, {"demo", "other"})
        assert isinstance(tree, DirectoryTree) and tree.distribution == "demo"
        assert "demo/sub/mod.py" in set(tree.iter_python_files())
