"""What the target lost, paired in order with a function it now leads to (rule ``aligned-in-reached``).

When a block leaves the target for a function the target now calls (an attention body becoming a module-level
``eager_attention_forward``), some of its statements arrive verbatim and the rest rewritten: ``torch . bmm ( query_states ,
…)`` is now ``torch . matmul ( query , … ) * scaling``. The verbatim ones are anchors; between two anchors the lost
statements and the new function's statements keep their order, as the lines of a diff do. Pairing them there, each lost
statement with the one that resembles it most (same kind of statement, close text) under that order, gives a rewritten
statement the context its deleted neighbours no longer give it.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from infralens.drift.lock.entries import StepLock, short_hash
from infralens.drift.match.position import occurrence_ranks
from infralens.drift.match.rules import CONTENTLESS, Thresholds
from infralens.drift.match.texts import ratio_at_least, statement_shape
from infralens.source import ModuleIndex, SourceFile, Statement

Held = Callable[[SourceFile, ModuleIndex, Statement], bool]
"""Whether the function around a statement held its text at the review already."""


@dataclass(frozen=True)
class LostOrder:
    """What the target lost, in the reviewed order, and where each one-statement step stood in it."""

    lost: tuple[tuple[int, str], ...]
    """(rank in the reviewed body, text) of each reviewed statement whose text the target lost."""
    ranks: Mapping[str, int]
    """Step id → its rank in the reviewed body."""
    held: Held

    def paired(self, source: SourceFile, index: ModuleIndex, pool: Sequence[Statement], t: Thresholds) -> dict[str, Statement]:
        """Step id → the statement of ``pool`` (a function in ``source``) it pairs with (:func:`aligned`)."""
        pairs = aligned(self.lost, pool, t, lambda s: self.held(source, index, s))
        return {step_id: pairs[rank] for step_id, rank in self.ranks.items() if rank in pairs}


def lost_order(reviewed: Sequence[str] | None, lost: Counter[str], steps: Sequence[StepLock], held: Held) -> LostOrder | None:
    """The :class:`LostOrder` of a target whose reviewed body's texts are ``reviewed`` (None: not at hand)."""
    if reviewed is None:
        return None
    hashes = [short_hash(text) for text in reviewed]
    at = occurrence_ranks(hashes)
    ranks = {s.step_id: rank for s in steps if len(s.texts) == 1 and (rank := at.get((short_hash(s.texts[0]), s.occurrence))) is not None}
    return LostOrder(tuple((rank, text) for rank, (text, digest) in enumerate(zip(reviewed, hashes, strict=True)) if lost[digest] > 0), ranks, held)


def aligned(lost: Sequence[tuple[int, str]], home: Sequence[Statement], t: Thresholds, held: Callable[[Statement], bool]) -> dict[int, Statement]:
    """Reviewed rank → the statement of ``home`` it pairs with, for lost statements rewritten between the anchors (the
    statements that ``home`` holds verbatim and did not hold at the review: ``held``). Nothing when
    ``home`` gained no anchor that tells (:func:`_telling`): no sign the block went there; never a statement ``home``
    held already."""
    texts = [text for _, text in lost]
    now = [s.text for s in home]
    anchors = _anchors(texts, now)
    if not any(_telling(texts[i]) and not held(home[j]) for i, j in anchors):
        return {}
    found: dict[int, int] = {}  # index in ``lost`` → index in ``home``
    i0, j0 = 0, 0
    for i1, j1 in [*anchors, (len(texts), len(now))]:
        found.update({i0 + i: j0 + j for i, j in _pair(texts[i0:i1], now[j0:j1], t) if not held(home[j0 + j])})
        i0, j0 = i1 + 1, j1 + 1
    return {lost[i][0]: home[j] for i, j in found.items()}


def _telling(text: str) -> bool:
    """Whether a statement found verbatim says the block went there: one with content that is not a ``return`` (every
    function ends in one, and ``return "cpu"`` ends many)."""
    return text not in CONTENTLESS and statement_shape(text) != "return"


def _anchors(old: list[str], new: list[str]) -> list[tuple[int, int]]:
    """(old index, new index) of the statements ``new`` holds verbatim, in order (the longest common subsequence's
    matches, as ``diff`` finds them)."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(a + k, b + k) for a, b, size in matcher.get_matching_blocks() for k in range(size)]


def _pair(old: list[str], new: list[str], t: Thresholds) -> list[tuple[int, int]]:
    """The order-keeping pairing of ``old`` and ``new`` with the greatest total similarity, counting only pairs of one
    kind of statement at least :attr:`~.rules.Thresholds.edit_similarity` alike (a gap too large to compare pair by
    pair, over :attr:`~.rules.Thresholds.aligned_max_pairs`, pairs nothing)."""
    if not old or not new or len(old) * len(new) > t.aligned_max_pairs:
        return []
    score = [[_alike(a, b, t) for b in new] for a in old]
    best = [[0.0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for i in range(len(old) - 1, -1, -1):
        for j in range(len(new) - 1, -1, -1):
            best[i][j] = max(best[i + 1][j], best[i][j + 1], best[i + 1][j + 1] + score[i][j] if score[i][j] > 0.0 else 0.0)
    pairs, i, j = [], 0, 0
    while i < len(old) and j < len(new):
        if score[i][j] > 0.0 and best[i][j] == best[i + 1][j + 1] + score[i][j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return [(i, j) for i, j in pairs if _clearly_each_others(score, i, j, t.aligned_margin)]


def _clearly_each_others(score: list[list[float]], i: int, j: int, margin: float) -> bool:
    """Whether old ``i`` and new ``j`` resemble each other more, by ``margin``, than either resembles any other
    statement of the gap (a pair the order alone chose between look-alikes is no evidence)."""
    others = [score[i][k] for k in range(len(score[i])) if k != j] + [score[k][j] for k in range(len(score)) if k != i]
    return all(other < score[i][j] - margin for other in others)


def _alike(old: str, new: str, t: Thresholds) -> float:
    """The similarity of two statements of one kind with content, when at least the edit threshold; else 0."""
    if old in CONTENTLESS or new in CONTENTLESS or statement_shape(old) != statement_shape(new):
        return 0.0
    return ratio_at_least(old, new, t.edit_similarity, t.quick_reject_similarity) or 0.0
