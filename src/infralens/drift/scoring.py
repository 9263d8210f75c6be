"""How well a candidate place matches a locked statement, and which candidate wins.

Text similarity (difflib ratio on the normalised text), neighbour-context agreement and
locality are scored separately (:class:`~infralens.drift.results.Scores`); the functions
here threshold and rank them. They never read sources.
"""

from __future__ import annotations

import difflib
from functools import lru_cache

from infralens.drift.entries import StepLock
from infralens.drift.results import CHANGED_SIMILARITY, CHANGED_SIMILARITY_CONFIDENT, MOVED_CONTEXT, MOVED_LOCALITY, Candidate

ASSIGNMENT_SIMILARITY = 0.3
"""Minimum similarity when the only statement assigning the same name is taken as the edited one."""
CANDIDATE_SIMILARITY = 0.45
"""Below this text similarity a statement is not a candidate for *changed* at all."""
AMBIGUOUS_MARGIN = 0.02
"""A runner-up whose rank is within this of the best makes a *changed* verdict ambiguous."""
MOVED_MARGIN = 0.05
"""Two homes elsewhere whose locality + context differ by less than this are equally good."""


@lru_cache(maxsize=65536)
def ratio(left: str, right: str) -> float:
    """Text similarity of two normalised texts in [0, 1] (cheap upper bound first; remembered: a history asks again)."""
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    if matcher.real_quick_ratio() < CHANGED_SIMILARITY / 2:
        return matcher.real_quick_ratio() / 2
    return matcher.ratio()


def ratio_at_least(left: str, right: str, floor: float) -> float | None:
    """:func:`ratio` when it is at least ``floor``, else None (decided by difflib's cheap upper bounds when they can)."""
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
        return None
    similarity = ratio(left, right)
    return similarity if similarity >= floor else None


EDITED_NEIGHBOUR = 0.5
"""What a recorded neighbour is worth, in tolerant mode, when it was edited or shifted by one statement."""


def context_agreement(entry: StepLock, before: tuple[str, ...], after: tuple[str, ...], *, tolerant: bool = False) -> float:
    """Share of the recorded neighbours found at the same distance (1.0 when both sides record none).

    ``tolerant`` (for a statement that may itself have been edited): a neighbour that was edited too
    (text similarity at least :data:`CHANGED_SIMILARITY`) or sits one statement nearer or farther
    counts :data:`EDITED_NEIGHBOUR` instead of nothing.
    """
    recorded = len(entry.before) + len(entry.after)
    if recorded == 0:
        return 1.0 if not before and not after else 0.5
    nearest_first = (tuple(reversed(entry.before)), tuple(reversed(before))), (entry.after, after)
    hits = 0.0
    for wanted, found in nearest_first:
        for distance, text in enumerate(wanted):
            hits += _neighbour(text, found, distance, tolerant)
    return hits / recorded


def _neighbour(text: str, found: tuple[str, ...], distance: int, tolerant: bool) -> float:
    """How well the recorded neighbour ``text`` at ``distance`` (0 = adjacent) is found in ``found`` (nearest first)."""
    if distance < len(found) and found[distance] == text:
        return 1.0
    if not tolerant:
        return 0.0
    if any(0 <= d < len(found) and found[d] == text for d in (distance - 1, distance + 1)):
        return EDITED_NEIGHBOUR
    if distance < len(found) and ratio_at_least(text, found[distance], CHANGED_SIMILARITY) is not None:
        return EDITED_NEIGHBOUR
    return 0.0


def acceptable_change(candidate: Candidate) -> bool:
    """Text similarity and neighbour agreement, thresholded together: weak text needs context."""
    s = candidate.scores
    if s.similarity >= CHANGED_SIMILARITY_CONFIDENT:
        return True
    if s.similarity >= CHANGED_SIMILARITY:
        return s.context > 0.0
    return s.similarity >= CANDIDATE_SIMILARITY and s.context >= 1.0


def confident_change(candidate: Candidate) -> bool:
    """Close enough in text and context to be *changed* without searching elsewhere first."""
    return candidate.scores.similarity >= CHANGED_SIMILARITY_CONFIDENT and candidate.scores.context >= 0.5


def changed_rank(candidate: Candidate) -> float:
    """The order of candidates for *changed*: mostly text, partly context."""
    return 0.7 * candidate.scores.similarity + 0.3 * candidate.scores.context


def close_runner_up(best: Candidate, others: list[Candidate]) -> bool:
    """Whether the next candidate ranks about as high as ``best`` (the verdict is then ambiguous)."""
    return bool(others) and changed_rank(others[0]) >= changed_rank(best) - AMBIGUOUS_MARGIN


def claimed_by_sibling(candidate: Candidate, sibling_texts: list[tuple[str, ...]]) -> bool:
    """A statement belongs to the locked step it resembles most: skip those closer to another step."""
    text = "\n".join(candidate.place.texts)
    return any(ratio(text, "\n".join(other)) > candidate.scores.similarity for other in sibling_texts)


def pick_exact(candidates: list[Candidate], entry: StepLock) -> tuple[Candidate, bool]:
    """The best of several exact copies inside the target, and whether the choice was ambiguous.

    Best context wins; among equals, the recorded occurrence, else the nearest to the recorded line.
    """
    if len(candidates) == 1:
        return candidates[0], False
    best_context = max(c.scores.context for c in candidates)
    top = [c for c in candidates if c.scores.context == best_context]
    if len(top) == 1:
        return top[0], False
    if 1 <= entry.occurrence <= len(candidates):
        return candidates[entry.occurrence - 1], True
    return min(top, key=lambda c: abs(c.place.lines[0] - entry.lines[0])), True


SAME_COPY_CONTEXT = 0.5
"""Context agreement above which a surviving copy of a repeated statement is taken for the annotated one."""


def same_copy(candidates: list[Candidate], entry: StepLock) -> bool:
    """Whether the neighbours single out one surviving copy as the annotated one (after some copies went)."""
    best = max(c.scores.context for c in candidates)
    return best >= SAME_COPY_CONTEXT and sum(1 for c in candidates if c.scores.context == best) == 1


def pick_moved(candidates: list[Candidate]) -> tuple[Candidate | None, list[Candidate]]:
    """The one clearly best home for a statement found outside its target, and the other places (best first).

    A home counts when it is the reviewed function (same fingerprint) or resembles it in locality and
    context; two equally good homes are ambiguous and never guessed between (the best is then None).
    """
    ranked = sorted(candidates, key=lambda c: (c.function_same, c.scores.locality + c.scores.context), reverse=True)
    good = [c for c in ranked if c.function_same or (c.scores.locality >= MOVED_LOCALITY and c.scores.context >= MOVED_CONTEXT)]
    if not good:
        return None, ranked
    best = good[0]
    floor = best.scores.locality + best.scores.context - MOVED_MARGIN
    if any(c.function_same == best.function_same and c.scores.locality + c.scores.context >= floor for c in good[1:]):
        return None, ranked
    return best, [c for c in ranked if c is not best]


def assigned_name(text: str) -> str | None:
    """The target of a plain assignment in normalised text (``a . b = ...`` → ``a . b``), else None."""
    tokens = text.split(" ")
    if "=" not in tokens:
        return None
    left = tokens[: tokens.index("=")]
    if not left or len(left) > 9 or any(t in ("(", "[", "{", "lambda", "if", "for", "def", "class") for t in left):
        return None
    return " ".join(left)


_HEADS = {
    "if": "if",
    "elif": "if",
    "for": "for",
    "async": "async",
    "while": "while",
    "with": "with",
    "try": "try",
    "except": "except",
    "return": "return",
    "raise": "raise",
    "yield": "yield",
    "assert": "assert",
    "del": "del",
    "import": "import",
    "from": "import",
    "def": "def",
    "class": "class",
}
_ASSIGNMENTS = {"=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", ">>=", "<<="}


def statement_shape(text: str) -> str:
    """What kind of statement a normalised text is: its keyword (``if``/``elif`` alike), ``assign`` or ``expression``.

    An edit keeps the shape: an assignment does not turn into an ``if`` header or a ``raise``.
    """
    tokens = text.split(" ")
    head = _HEADS.get(tokens[0])
    if head is not None:
        return head
    depth = 0
    for token in tokens:
        if token in ("(", "[", "{"):
            depth += 1
        elif token in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and token in _ASSIGNMENTS:
            return "assign"
    return "expression"
