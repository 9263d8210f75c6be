"""The device tests run on, chosen once: ``INFRALENS_TEST_DEVICE`` (``cpu`` default, or ``cuda``).

Imports torch only if it is installed and only to ask whether CUDA is there. No I/O here.
"""

from __future__ import annotations

import os

import pytest

DEVICE = os.environ.get("INFRALENS_TEST_DEVICE", "cpu").strip().lower() or "cpu"
if DEVICE not in ("cpu", "cuda"):
    raise ValueError(f"INFRALENS_TEST_DEVICE={DEVICE!r}: use 'cpu' or 'cuda'")


def cuda_available() -> bool:
    try:
        import torch
    except ModuleNotFoundError:
        return False
    return bool(torch.cuda.is_available())


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


requires_gpu = pytest.mark.skipif(not cuda_available(), reason="requires CUDA (a GPU and a CUDA build of torch)")
requires_torch = pytest.mark.skipif(not torch_available(), reason="requires torch (pip install -e '.[verify]')")
requires_test_device = pytest.mark.skipif(DEVICE == "cuda" and not cuda_available(), reason="INFRALENS_TEST_DEVICE=cuda but torch sees no CUDA device")
