"""Root pytest configuration: markers, one torch thread, the test device.

Torch on a 2-core CI machine oversubscribes its thread pool as soon as anything else runs (tiny
model calls go from 0.14 s to 5 s), so every test process and the worker processes it starts use
one thread. ``INFRALENS_TEST_DEVICE`` (see ``tests/_device.py``) picks cpu or cuda.
"""

from __future__ import annotations

import os
import sys

for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

pytest_plugins = ["sphinx.testing.fixtures"]
"""Sphinx's app/rootdir fixtures for tests/sphinx and tests/hardening (allowed only in the root conftest)."""

_MARKERS = {
    "gpu": "needs CUDA; skipped cleanly without it",
    "slow": "takes more than a few seconds",
    "network": "needs a package registry (skipped with a reason when unreachable)",
    "browser": "drives a real Chromium with Playwright",
}


def pytest_configure(config) -> None:
    declared = {line.split(":", 1)[0].strip() for line in config.getini("markers")}
    for name, text in _MARKERS.items():
        if name not in declared:
            config.addinivalue_line("markers", f"{name}: {text}")


def pytest_runtest_setup(item) -> None:
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)
