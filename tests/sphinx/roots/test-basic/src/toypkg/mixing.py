"""Blending helpers (synthetic, for tests)."""

import math


def blend(clean, noise, alpha):
    """Mix a clean value with noise.

    The docstring is long on purpose so that the renderer folds it:
    line one of padding,
    line two of padding,
    line three of padding,
    line four of padding,
    line five of padding.
    """
    signal = math.sqrt(alpha) * clean
    spread = math.sqrt(1 - alpha) * noise
    if alpha > 1:
        raise ValueError("alpha must be at most 1")
    return signal + spread


def unused(x):
    return x
