"""The cost figures drawn in fresh processes: the same bytes whatever the hash seed, and no model code imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPORT = Path(__file__).resolve().parents[2] / "reports" / "cost.json"


def drawn_in_two_processes(svg_expression: str) -> tuple[str, str]:
    """The output of two processes (``PYTHONHASHSEED`` 1 and 2) that each load the committed cost report as ``r``, with
    ``infralens.sphinx.cost_views`` as ``v``, and print the SHA-256 of *svg_expression* (a str built from them), then the
    model libraries (torch, diffusers, transformers, diffsynth) that drawing imported."""
    code = "\n".join(
        [
            "import hashlib, sys",
            "from infralens.reports import load_cost_report",
            "from infralens.sphinx import cost_views as v",
            f"r = load_cost_report({str(REPORT)!r})",
            f"print(hashlib.sha256(({svg_expression}).encode()).hexdigest())",
            'print(sorted(m for m in ("torch", "diffusers", "transformers", "diffsynth") if m in sys.modules))',
        ]
    )
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False, env=dict(os.environ, PYTHONHASHSEED=seed))
        for seed in ("1", "2")
    ]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr[-2000:]
    return runs[0].stdout, runs[1].stdout
