"""A step's verdict does not depend on which annotations are checked with it (``infralens check ID …``).

The real-history benchmark is checked whole, then in random subsets of its annotations, each by a matcher that
never saw the others: every step checked in a subset gets the verdict and the new place it got in the whole run.
"""

from __future__ import annotations

import random

import pytest
from corpus_runs import benchmark_rows
from test_history_corpus import BENCHMARK, run_corpus

pytestmark = [pytest.mark.network, pytest.mark.slow]

SEEDS = (1, 2, 3)


def _verdicts(rows: list) -> dict[str, tuple[str, str]]:
    return {row[4].entry.step_id: (row[2], repr(row[4].new)) for row in rows}


def test_a_verdict_does_not_depend_on_the_other_annotations_checked(tmp_path_factory) -> None:
    from infralens.source.cache import default_cache_dir

    whole_rows = benchmark_rows(tmp_path_factory)  # run_corpus on BENCHMARK, once per test run
    whole = _verdicts(whole_rows)
    annotations = sorted({row[4].entry.annotation for row in whole_rows})
    assert len(annotations) > 10
    for seed in SEEDS:
        chosen = frozenset(random.Random(seed).sample(annotations, k=len(annotations) // 4))
        part = _verdicts(run_corpus(default_cache_dir(), BENCHMARK, only=chosen))
        assert part, seed
        differ = {step: (whole[step], got) for step, got in part.items() if whole[step] != got}
        assert not differ, (
            f"seed {seed}: {len(differ)} steps get another verdict when checked with {len(chosen)} of {len(annotations)} annotations: "
            f"{list(differ.items())[:3]}"
        )


TWO_OLD = """
class Mixer:
    def run(self, x):
        h = self.norm(x)
        a = h * 2
        b = h * 3
        return a + b
"""
TWO_NEW = TWO_OLD.replace("        a = h * 2\n        b = h * 3\n", "        a = h * 2.5\n").replace("return a + b", "return a")
TWO_STEPS = """
id: two
lab: 01-demo
source: demo
target: demo.mixer.Mixer.run
summary: Two steps that want one statement.
steps:
  - key: a
    at: 'a = h * 2'
    note: the first
  - key: b
    at: 'b = h * 3'
    note: the second
"""


def test_a_step_checked_by_its_id_is_decided_with_its_annotations_other_steps(demo) -> None:
    """``check ID/STEP`` (and ``--explain STEP``) decides the step as the whole run does: with every step of its
    annotation, so that the one-to-one assignment between them (here two steps and one rewritten statement) is the same,
    and only the report is narrowed to the step."""
    demo.write_annotation("two.yaml", TWO_STEPS)
    old = demo.write_source("1.0", {"mixer.py": TWO_OLD})
    demo.lock(old)
    new = demo.write_source("2.0", {"mixer.py": TWO_NEW})
    whole = {s.entry.step_id: (s.kind.value, repr(s.new)) for s in demo.check(new).steps}
    assert sorted(kind for kind, _ in whole.values()) == ["changed", "deleted"], whole  # one of them gets the statement
    for step_id, verdict in whole.items():
        alone = demo.check(new, ids=[step_id]).steps
        assert [(s.entry.step_id, (s.kind.value, repr(s.new))) for s in alone] == [(step_id, verdict)]
