"""The search for a step's text elsewhere parses only the best-ranked files that hold it, and says when more hold it."""

from __future__ import annotations

import pytest
from drift_samples import MIXER_ANNOTATION

from infralens.drift.match.rules import Thresholds

OLD = """
class Mixer:
    def run(self, x):
        gate = compute_the_gate(x, 3)
        return x * 2
"""
NEW = OLD.replace("        gate = compute_the_gate(x, 3)\n", "")
COPY = """
def helper_{n}(x):
    gate = compute_the_gate(x, 3)
    return gate
"""


def _decoys_message(demo, copies: int) -> str:
    demo.write_annotation("mixer.yaml", MIXER_ANNOTATION.format(steps="  - key: s0\n    at: 'gate = compute_the_gate(x, 3)'\n    note: the gate"))
    demo.lock(demo.write_source("1.0", {"mixer.py": OLD}))
    files = {"mixer.py": NEW, **{f"copy_{n}.py": COPY.format(n=n) for n in range(copies)}}
    (step,) = demo.check(demo.write_source("2.0", files)).steps
    assert (step.kind.value, step.rule) == ("deleted", "decoys-only")
    return step.message


@pytest.mark.parametrize("extra", [0, 1, 3])
def test_a_search_cut_at_its_limit_says_more_files_hold_the_text(demo, extra: int) -> None:
    limit = Thresholds().max_search_files
    message = _decoys_message(demo, limit + 1 + extra)
    assert f"appears in {limit} other place(s) in the {limit} best-ranked files holding it (more files hold it, unsearched)" in message


def test_a_search_under_its_limit_counts_every_place(demo) -> None:
    limit = Thresholds().max_search_files
    message = _decoys_message(demo, limit)
    assert message == f"the same text appears in {limit} other place(s), none of them clearly the reviewed function"
