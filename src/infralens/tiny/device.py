"""The one device chooser: ``auto`` → CUDA when torch sees it, else CPU; torch kept to one CPU thread.

On a 2-core machine torch's default thread pool oversubscribes the cores as soon as anything
else runs; a 0.14 s tiny pipeline call then takes 5 s. One thread is always fast enough for
these model sizes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

DEVICES = ("auto", "cpu", "cuda")


def choose_device(name: str = "auto") -> str:
    """``"cpu"`` or ``"cuda"`` for *name*, without setting anything up (torch is imported only when needed).

    Raises:
        ValueError: unknown name, torch missing, or ``cuda`` asked for but not available.
    """
    if name not in DEVICES:
        raise ValueError(f"unknown device {name!r}: use one of {', '.join(DEVICES)}")
    if name == "cpu":
        return "cpu"
    try:
        import torch
    except ModuleNotFoundError:
        raise ValueError("torch is not installed: pip install 'infralens[verify]'") from None
    available = torch.cuda.is_available()
    if name == "cuda" and not available:
        raise ValueError(f"device 'cuda' asked for, but torch sees no CUDA device (torch {torch.__version__})")
    return "cuda" if available else "cpu"


def pick_device(name: str = "auto") -> str:
    """:func:`choose_device`, then torch on one CPU thread; returns ``"cpu"`` or ``"cuda"``.

    Raises:
        ValueError: as :func:`choose_device`.
    """
    device = choose_device(name)
    import torch

    torch.set_num_threads(1)
    if device == "cuda":
        # float32 means float32 here: cuDNN convolutions default to TF32 on Ampere and later, which moves a tiny
        # model's outputs by ~1e-3 and would break claims written (and checked on CPU) to 1e-5.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    return device


def generator(device: str, seed: int = 0) -> torch.Generator:
    """A seeded ``torch.Generator`` on *device* (pipelines want it on the latents' device)."""
    import torch

    return torch.Generator(device=device).manual_seed(seed)
