"""Build a project's Sphinx site under ``-W`` in a child process, with this checkout's InfraLens on the path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def build_strictly(root: Path, site: Path, doctrees: Path) -> subprocess.CompletedProcess[str]:
    """``sphinx -W --keep-going -b html`` of ``root/docs`` into ``site`` (the caller asserts on the result)."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(doctrees), "docs", str(site)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])},
        check=False,
    )
