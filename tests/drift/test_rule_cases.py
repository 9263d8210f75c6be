"""Every rule of the drift matcher's rule book has its own cases, and each case does what it says in a real check.

A case (:mod:`rule_cases`) writes release 1.0 of a small tree, locks an annotation on it, writes release 2.0, checks
it, and looks for the rule's event (fired, vetoed, removed or declined) in the trace of one step or of the target. The
rule book and the thresholds are asserted to be one table each.
"""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

import pytest
from rule_cases import CASES, HELD_BACK, RuleCase

from infralens.drift.match.rulebook import SPECS
from infralens.drift.match.rules import STEP_ORDER, Rule, RuleEvent, Thresholds

MATCH = Path(__file__).resolve().parents[2] / "src" / "infralens" / "drift" / "match"


def _annotation(case: RuleCase) -> str:
    lines = [f"id: case\nlab: 01-demo\nsource: demo\ntarget: {case.target}\nsummary: A rule case.\nsteps:"]
    for n, step in enumerate(case.steps):
        text, nth = step if isinstance(step, tuple) else (step, None)
        at = f"{{text: {text!r}, nth: {nth}}}" if nth else repr(text)
        lines.append(f"  - key: s{n}\n    at: {at}\n    note: step {n}")
    return "\n".join(lines) + "\n"


def _events(report, item: str) -> tuple[tuple[RuleEvent, ...], str]:
    if item == "target":
        (target,) = report.targets
        return target.trace, target.kind.value
    step = next(s for s in report.steps if s.entry.step_id.split("/")[1] == item)
    return step.trace, step.kind.value


def test_every_rule_has_its_own_case_and_states_its_invariant():
    covered = {case.rule for case in CASES}
    assert set(SPECS) - covered == set(), "rules without a case"
    assert all(spec.invariant.endswith(".") and len(spec.invariant) > 20 for spec in SPECS.values())
    assert set(STEP_ORDER) == set(Rule) and STEP_ORDER[-1] is Rule.NOTHING_CORRESPONDS


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_rule_case(demo, case: RuleCase):
    demo.write_annotation("case.yaml", _annotation(case))
    old = demo.write_source("1.0", case.old)
    demo.lock(old)
    new = old if case.same_file else demo.write_source("2.0", case.new)
    report = demo.check(new, "1.0" if case.same_file else "2.0", reviewed="1.0" if case.reviewed else None)
    trace, kind = _events(report, case.item)
    chain = "\n".join(event.describe() for event in trace)
    assert any(event.rule == case.rule and event.action is case.action for event in trace), f"{case.rule.value} did not {case.action.value}:\n{chain}"
    if case.kind is not None:
        assert kind == case.kind, chain


@pytest.mark.parametrize("case", HELD_BACK, ids=[case.name for case in HELD_BACK])
def test_rule_held_back(demo, case: RuleCase):
    """A near miss the rule's invariant excludes: the rule does not do its action there."""
    demo.write_annotation("case.yaml", _annotation(case))
    old = demo.write_source("1.0", case.old)
    demo.lock(old)
    report = demo.check(demo.write_source("2.0", case.new), "2.0", reviewed="1.0" if case.reviewed else None)
    trace, kind = _events(report, case.item)
    chain = "\n".join(event.describe() for event in trace)
    assert not any(event.rule == case.rule and event.action is case.action for event in trace), chain
    if case.kind is not None:
        assert kind == case.kind, chain


def test_the_thresholds_are_one_table():
    """No module of the matcher holds a number of its own (beyond 0, 1 and halves of a share), nor a table global."""
    numbers = {field.name for field in fields(Thresholds)}
    assert len(numbers) > 20
    found = []
    for path in sorted(MATCH.glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value not in (0.0, 0.5, 1.0):
                found.append(f"{path.name}:{node.lineno}: {node.value}")
            if isinstance(node, ast.Name) and node.id == "THRESHOLDS":
                found.append(f"{path.name}:{node.lineno}: THRESHOLDS")
    # thresholds.py is the table itself (its defaults are the numbers); assign.py's FORBIDDEN is the assignment's infinity
    assert [f for f in found if not f.startswith("thresholds.py") and not (f.startswith("assign.py:") and f.endswith(": 1000000000.0"))] == []
