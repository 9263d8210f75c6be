"""Root pytest configuration: markers, one torch thread, the test device.

Torch on a 2-core CI machine oversubscribes its thread pool as soon as anything else runs (tiny
model calls go from 0.14 s to 5 s), so every test process and the worker processes it starts use
one thread. ``INFRALENS_TEST_DEVICE`` (see ``tests/_device.py``) picks cpu or cuda.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from _shared import built_once, pytest_addhooks, pytest_collection_modifyitems, shared_builds  # noqa: F401 - hooks of tests/_shared.py

for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

pytest_plugins = ["sphinx.testing.fixtures"]
"""Sphinx's app/rootdir fixtures for tests/sphinx and tests/hardening (allowed only in the root conftest)."""

_MARKERS = {
    "gpu": "needs CUDA; skipped cleanly without it",
    "slow": "takes more than a few seconds (left out of make test-fast)",
    "network": "needs a package registry (skipped with a reason when unreachable)",
    "browser": "drives a real Chromium with Playwright",
}


@pytest.fixture(scope="session", autouse=True)
def private_temporary_folder(tmp_path_factory):
    """Temporary files of the tests and of the processes they start go under pytest's own folder.

    The lock writers' per-user folder (``<tmp>/infralens-writers-<uid>``) holds one small file per lock path
    it ever served; hundreds of throwaway test projects would otherwise leave them all in the real ``/tmp``.
    Torch's compile cache keeps its usual place, so compiled kernels are still reused between runs.
    """
    folder = tmp_path_factory.mktemp("tmp")
    saved = {name: os.environ.get(name) for name in ("TMPDIR", "TORCHINDUCTOR_CACHE_DIR")}
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(tempfile.gettempdir(), f"torchinductor_{_user()}"))
    os.environ["TMPDIR"] = str(folder)
    previous, tempfile.tempdir = tempfile.tempdir, str(folder)
    yield folder
    tempfile.tempdir = previous
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


@pytest.fixture(scope="session", autouse=True)
def shared_builds_in_background(request, tmp_path_factory, private_temporary_folder):
    """The first worker starts the shared builds the selected tests need (docs site, starter sessions) on a thread
    at once, instead of when a test first asks; at the end of its session it waits for the build under way."""
    with shared_builds(request, tmp_path_factory):
        yield


def pytest_configure(config) -> None:
    declared = {line.split(":", 1)[0].strip() for line in config.getini("markers")}
    for name, text in _MARKERS.items():
        if name not in declared:
            config.addinivalue_line("markers", f"{name}: {text}")


def pytest_runtest_setup(item) -> None:
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


SITE_BUILD_TIMEOUT_S = 900


@pytest.fixture(scope="session")
def docs_site(tmp_path_factory) -> Path:
    """This project's documentation site as HTML, built once per test run from ``docs/`` (about a minute; once for all
    xdist workers, see ``tests/_shared.py``), for the browser tests and the lab-page tests alike.

    ``INFRALENS_BUILT_SITE=<folder>`` uses a build of this checkout made beforehand instead (``python -m sphinx
    -b html docs <folder>``); the tests then read that folder, so it must be built from the files under test.
    """
    given = os.environ.get("INFRALENS_BUILT_SITE")
    if given:
        folder = Path(given)
        assert (folder / "index.html").is_file(), f"INFRALENS_BUILT_SITE={given} holds no built site (index.html)"
        return folder
    return built_once(tmp_path_factory, "docs-site", _build_docs_site) / "html"


def _build_docs_site(folder: Path, env: dict[str, str] | None = None) -> None:
    """Sphinx's html build of ``docs/`` into ``folder/html`` (*env*: the environment it runs in, else this process's)."""
    root = Path(__file__).resolve().parents[1]
    html, doctrees = folder / "html", folder / "doctrees"
    command = [sys.executable, "-m", "sphinx", "-q", "--keep-going", "-b", "html", "-d", str(doctrees), str(root / "docs"), str(html)]
    result = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=SITE_BUILD_TIMEOUT_S, check=False, env=env)
    assert result.returncode == 0, f"the site did not build:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"


def pytest_infralens_shared_fixtures():
    return ["docs_site"]


def pytest_infralens_shared_builds(items, factory):
    """The docs site, when a selected test uses ``docs_site`` and no prebuilt site is given. It is built in the
    environment of now: a test running meanwhile may change ``os.environ`` (``monkeypatch.setenv``)."""
    if os.environ.get("INFRALENS_BUILT_SITE") or not any("docs_site" in getattr(item, "fixturenames", ()) for item in items):
        return []
    env = dict(os.environ)
    return [lambda: built_once(factory, "docs-site", lambda folder: _build_docs_site(folder, env))]
