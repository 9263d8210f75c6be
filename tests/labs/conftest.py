"""Fixtures for the lab tests (helpers themselves are in ``_starters.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _starters import ROOT, run_starters

SITE_BUILD_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def starter_runs(request, tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """A solved copy of each starter of the requesting module's ``LABS``, run once per module with ``--steps 2 --check --reveal``."""
    return run_starters(request.module.LABS, tmp_path_factory.mktemp("solved"))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The documentation site as HTML, built once per session from ``docs/`` (about a minute).

    ``INFRALENS_BUILT_SITE=<folder>`` uses a build of this checkout made beforehand instead (``python -m sphinx
    -b html docs <folder>``); the tests then read that folder, so it must be built from the files under test.
    """
    given = os.environ.get("INFRALENS_BUILT_SITE")
    if given:
        folder = Path(given)
        assert (folder / "index.html").is_file(), f"INFRALENS_BUILT_SITE={given} holds no built site (index.html)"
        return folder
    folder = tmp_path_factory.mktemp("site")
    html, doctrees = folder / "html", folder / "doctrees"
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-d", str(doctrees), str(ROOT / "docs"), str(html)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=SITE_BUILD_TIMEOUT_S, check=False)
    assert result.returncode == 0, f"the site did not build:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return html
