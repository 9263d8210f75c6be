"""Where the diff of the reviewed body and the new body puts a step: positional evidence for edits in place.

The lock keeps the reviewed target's body as short hashes in order. Aligning it with the mapped
target's body now (the longest common runs, as ``diff`` does) leaves *hunks*: runs of old statements
replaced by runs of new ones between two unchanged anchors. A step whose statement was edited in
place has its new form inside its own hunk; when the hunk has as many new statements as old ones,
at the same rank. That is context that survives when the neighbours were rewritten too (a variable
renamed through a block), and it tells two equally similar candidates apart by where they stand.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from infralens.drift.lock.entries import StepLock, short_hash
from infralens.source import Statement


class Position(str, Enum):
    """Where a candidate stands relative to the step's hunk."""

    PAIRED = "paired"
    """In a hunk of as many new statements as old ones, at the step's own rank."""
    IN_HUNK = "in its hunk"
    """Between the two unchanged statements that enclosed the step."""
    OUTSIDE = "outside its hunk"
    UNKNOWN = "unknown"
    """The step's statement is not in the recorded body (or no body is recorded)."""


@dataclass(frozen=True)
class _Hunk:
    old_start: int
    old_end: int
    new_start: int
    new_end: int


def occurrence_ranks(body: Sequence[str]) -> dict[tuple[str, int], int]:
    """(fingerprint, occurrence) → rank in ``body`` (statement fingerprints in order): where a step, which records the
    occurrence of its text, stood in the reviewed body."""
    seen: dict[str, int] = {}
    ranks = {}
    for rank, digest in enumerate(body):
        seen[digest] = seen.get(digest, 0) + 1
        ranks[(digest, seen[digest])] = rank
    return ranks


class Alignment:
    """The reviewed body (hashes, in order) aligned with the body of the mapped target now."""

    def __init__(self, old_body: tuple[str, ...], new_body: tuple[Statement, ...]) -> None:
        self._old_ranks = occurrence_ranks(old_body)
        self.new_rank = {id(s): n for n, s in enumerate(new_body)}  # statements of one index: identity is position
        new_hashes = [short_hash(s.text) for s in new_body]
        self._hunks: dict[int, _Hunk] = {}
        self._kept: dict[int, int] = {}
        """Old rank → new rank of each statement an unchanged run keeps."""
        matcher = difflib.SequenceMatcher(None, list(old_body), new_hashes, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                self._kept.update(zip(range(i1, i2), range(j1, j2), strict=True))
            else:
                for i in range(i1, i2):
                    self._hunks[i] = _Hunk(i1, i2, j1, j2)

    def old_rank(self, entry: StepLock) -> int | None:
        """The step's place in the reviewed body (its recorded occurrence of its first text)."""
        return self._old_ranks.get((short_hash(entry.texts[0]), entry.occurrence))

    def keeps(self, entry: StepLock, candidate: Statement) -> bool:
        """Whether the diff keeps the step's statement as ``candidate`` (an unchanged run pairs the two)."""
        rank, new = self.old_rank(entry), self.new_rank.get(id(candidate))
        return rank is not None and new is not None and self._kept.get(rank) == new

    def rank_gap(self, entry: StepLock, candidate: Statement) -> int | None:
        """How far apart the step and ``candidate`` stand from the start of the step's hunk (None outside it): of two
        old statements that collapsed into one, the one at the nearer rank keeps it, as ``diff`` would pair them."""
        rank = self.old_rank(entry)
        new = self.new_rank.get(id(candidate))
        hunk = self._hunks.get(rank) if rank is not None else None
        if rank is None or new is None or hunk is None or not hunk.new_start <= new < hunk.new_end:
            return None
        return abs((rank - hunk.old_start) - (new - hunk.new_start))

    def position(self, entry: StepLock, candidate: Statement) -> Position:
        """Where ``candidate`` (a statement of the new body) stands relative to ``entry``'s hunk."""
        rank = self.old_rank(entry)
        new = self.new_rank.get(id(candidate))
        if rank is None or new is None:
            return Position.UNKNOWN
        hunk = self._hunks.get(rank)
        if hunk is None or not hunk.new_start <= new < hunk.new_end:
            return Position.OUTSIDE
        same_size = hunk.old_end - hunk.old_start == hunk.new_end - hunk.new_start
        return Position.PAIRED if same_size and rank - hunk.old_start == new - hunk.new_start else Position.IN_HUNK
