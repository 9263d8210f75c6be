"""Rule cases for a function the target reaches that held the step's text already (issue 41's set 28 misses): the
target lost its own copy of a line its helper has always had (``held-at-review``); :mod:`rule_cases` adds them."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import Action, Filter

HELPER = """
    def prepare(self, kwargs):
        name = self.cache_name()
        cache = kwargs.get(name)
        return self.build(cache)
"""
HELD_OLD = (
    """
class Generator:
    def run(self, x, kwargs):
        name = self.cache_name()
        cache = kwargs.get(name)
        if cache is None:
            self.warn(x)
        state = self.prepare(kwargs)
        return self.loop(x, state)
"""
    + HELPER
)
HELD_NEW = (
    """
class Generator:
    def run(self, x, kwargs):
        state = self.prepare(kwargs)
        return self.loop(x, state)
"""
    + HELPER
)
# run() called prepare() at the review already, and prepare() held the same lookup then: run's copy was dropped, not moved.
FIRST_CALLED_OLD = HELD_OLD.replace("        state = self.prepare(kwargs)\n", "        state = self.setup(cache)\n")
# The same, but run() did not call prepare() at the review: it now hands the lookup to a helper that had one (moved).

CASES: list[RuleCase] = [
    RuleCase(
        "held-at-review",
        Filter.HELD_AT_REVIEW,
        {"mixer.py": HELD_OLD},
        {"mixer.py": HELD_NEW},
        ("cache = kwargs.get(name)",),
        action=Action.VETOED,
        target="demo.mixer.Generator.run",
        kind="deleted",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "held-at-review-not-for-a-helper-the-target-newly-calls",
        Filter.HELD_AT_REVIEW,
        {"mixer.py": FIRST_CALLED_OLD},
        {"mixer.py": HELD_NEW},
        ("cache = kwargs.get(name)",),
        action=Action.VETOED,
        target="demo.mixer.Generator.run",
        kind="moved",
    ),
]
