"""Picking the clearly best of scored candidates: the one rule every place search ends with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def best_scored(scored: Sequence[tuple[float, T]], floor: float, margin: float) -> list[T]:
    """The candidates scoring at least ``floor`` and within ``margin`` of the best, best first: one means it is
    clearly the best; several, that none is (unless told apart)."""
    good = sorted((item for item in scored if item[0] >= floor), key=lambda item: -item[0])
    return [found for score, found in good if score >= good[0][0] - margin] if good else []


def clearly_best(scored: Sequence[tuple[float, T]], floor: float, margin: float) -> T | None:
    """The one candidate :func:`best_scored` leaves, or None."""
    tied = best_scored(scored, floor, margin)
    return tied[0] if len(tied) == 1 else None
