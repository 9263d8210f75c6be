"""How a function's lines are grouped for display: annotated clusters and (folded) plain stretches.

Format-free: the site draws each :class:`Segment` as a block of code with its notes beside it, and a
folded one inside ``<details>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from infralens.render.view import FunctionView, NoteView

CONTEXT_LINES = 2
"""Unannotated lines kept visible at each edge of a folded stretch."""


@dataclass(frozen=True)
class Segment:
    """Lines ``first``..``last`` of the function; ``notes`` empty for plain code."""

    first: int
    last: int
    notes: tuple[NoteView, ...] = ()
    folded: bool = False


def segments(view: FunctionView, fold_min: int) -> list[Segment]:
    """Cut the function into annotated clusters and (possibly folded) plain stretches."""
    clusters: list[list[NoteView]] = []
    spans: list[list[int]] = []
    for note in sorted(view.notes, key=lambda n: (n.first_line, n.last_line)):
        if spans and note.first_line <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], note.last_line)
            clusters[-1].append(note)
        else:
            spans.append([note.first_line, note.last_line])
            clusters.append([note])
    result: list[Segment] = []
    cursor = view.first_line
    for (first, last), notes in zip(spans, clusters, strict=True):
        result.extend(_plain(cursor, first - 1, fold_min))
        result.append(Segment(first, last, tuple(notes)))
        cursor = last + 1
    result.extend(_plain(cursor, view.last_line, fold_min))
    return result


def _plain(first: int, last: int, fold_min: int) -> list[Segment]:
    if last < first:
        return []
    if last - first + 1 < fold_min:
        return [Segment(first, last)]
    inner_first, inner_last = first + CONTEXT_LINES, last - CONTEXT_LINES
    return [Segment(first, inner_first - 1), Segment(inner_first, inner_last, folded=True), Segment(inner_last + 1, last)]
