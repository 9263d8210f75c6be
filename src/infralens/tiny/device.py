"""Pick the device for tiny runs and keep CPU runs single-threaded.

On a 2-core machine torch's default thread pool oversubscribes the cores as soon as anything
else runs; a 0.14 s tiny pipeline call then takes 5 s. One thread is always fast enough for
these model sizes.
"""

from __future__ import annotations

DEVICES = ("auto", "cpu", "cuda")


def pick_device(name: str = "auto") -> str:
    """Return ``"cpu"`` or ``"cuda"`` for *name* (``auto``: CUDA when available).

    Raises:
        ValueError: unknown name, or ``cuda`` asked for but not available.
    """
    import torch

    if name not in DEVICES:
        raise ValueError(f"unknown device {name!r}: use one of {', '.join(DEVICES)}")
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' asked for, but torch sees no CUDA device (torch " + torch.__version__ + ")")
    if name == "cpu":
        torch.set_num_threads(1)
    return name


def generator(device: str, seed: int = 0):
    """A seeded ``torch.Generator`` on *device* (pipelines want it on the latents' device)."""
    import torch

    return torch.Generator(device=device).manual_seed(seed)
