"""``--check`` is fair: it accepts each right answer as the lab page writes it, rejects the tempting wrong
answer each exercise exists to catch (``traps.py``), and compares every float answer at the precision its
question states in words.

Each starter runs once (its ``traps`` variant, ``_session.py``): the right answers are computed once, then the real ``--check``
report is printed for round 0 (every answer as its page writes it) and for one round per trap depth (the
n-th trap of every exercise that has one, the right answers elsewhere), so a trap fails alone or not at all.
"""

from __future__ import annotations

import ast
import re

import pytest
from _answers import revealed_answers
from _exercises import exercises, question_numbers, states
from _rounds import trap_rounds, trapped_keys
from _starter_sessions import StarterRun, variant_runs
from _starters import load_starter, page_text
from solutions import SOLUTIONS
from traps import EXERCISES

from infralens.cost import cost_tolerances
from infralens.tiny.labkit import holds_float, precision_words

LABS = tuple(SOLUTIONS)
COST = "cost_"
ROUND = re.compile(r"^== round (\d+)\n(.*?)^== round \1 exit (\d+)$", re.M | re.S)


def _is_cost(key: str) -> bool:
    return key.startswith(COST)


@pytest.fixture(scope="module")
def check_runs(starter_sessions, selected_labs) -> dict[str, StarterRun]:
    return variant_runs(starter_sessions, selected_labs, "traps")


def reports(stdout: str) -> dict[int, tuple[set[str], set[str], int]]:
    """{round: (keys reported [WRONG] or [EMPTY], keys reported [ok], exit code)} from a driver's output."""
    found: dict[int, tuple[set[str], set[str], int]] = {}
    for number, body, code in ROUND.findall(stdout):
        lines = body.splitlines()
        wrong = {line.split("] ", 1)[1].split(":", 1)[0] for line in lines if line.startswith(("  [WRONG] ", "  [EMPTY] "))}
        ok = {line.split("] ", 1)[1].split(":", 1)[0] for line in lines if line.startswith("  [ok] ")}
        found[int(number)] = (wrong, ok, int(code))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_right_answers_pass_as_written_and_each_trap_fails_alone(check_runs, lab):
    result = check_runs[lab]
    assert result.returncode == 0, f"{lab}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    found = reports(result.stdout)
    assert sorted(found) == list(range(len(trap_rounds(lab)))), f"{lab}: rounds reported {sorted(found)}"
    wrong, ok, code = found[0]
    assert not wrong and code == 0, f"{lab}: answers written as the page writes them are rejected: {sorted(wrong)}"
    assert ok == set(SOLUTIONS[lab])
    passed = {}
    for number in range(1, len(found)):
        wrong, _, code = found[number]
        expected = trapped_keys(lab, number)
        assert wrong <= expected, f"{lab} round {number}: right answers rejected: {sorted(wrong - expected)}"
        passed.update({key: EXERCISES[lab][key].traps[number - 1] for key in expected - wrong})
        assert code == 1
    assert not passed, f"{lab}: --check accepts these traps: {passed}"


def _precisions(lab: str) -> dict:
    """The precision of each answer: the starter's PRECISION, and its cost exercises' (``infralens.cost``)."""
    precisions = dict(getattr(load_starter(lab), "PRECISION", {}))
    if any(_is_cost(key) for key in SOLUTIONS[lab]):
        precisions.update(cost_tolerances(lab[:2]))
    return precisions


@pytest.mark.parametrize("lab", LABS)
def test_every_exercise_lists_its_page_answer(lab):
    asked = [key for key in SOLUTIONS[lab] if not _is_cost(key)]
    assert sorted(EXERCISES[lab]) == sorted(asked), f"{lab}: traps.py lists {sorted(EXERCISES[lab])}, the starter asks {asked}"


@pytest.mark.parametrize("lab", LABS)
def test_fold_writes_each_answer_in_its_exercise_item(lab):
    page = page_text(lab)
    questions, folded = exercises(page)
    numbers = question_numbers(page)
    assert sorted(folded) == sorted(questions), f"{lab}: answers numbered {sorted(folded)} for questions {sorted(questions)}"
    broken = [number for number, item in folded.items() if not item.strip() or re.match(r"\d+\. ", item)]
    assert not broken, f"{lab}: answers {broken} are empty or start with another number (a line wrapped before 'N.')"
    for key, exercise in EXERCISES[lab].items():
        assert key in numbers, f"{lab}: no question asks ({key!r})"
        item = folded[numbers[key]]
        assert states(item, exercise.written), f"{lab}: answer {numbers[key]} does not write {key} as {exercise.written!r}:\n{item}"


@pytest.mark.parametrize("lab", LABS)
def test_float_answers_have_a_precision_their_question_states(lab):
    precisions = _precisions(lab)
    floats = {key for key, value in SOLUTIONS[lab].items() if holds_float(value) and not _is_cost(key)}
    assert floats <= set(precisions), f"{lab}: float answers without a precision in the starter's PRECISION: {sorted(floats - set(precisions))}"
    questions, _ = exercises(page_text(lab))
    numbers = question_numbers(page_text(lab))
    for key, precision in precisions.items():
        words = precision_words(precision)
        question = " ".join(questions[numbers[key]].split())
        assert words in question, f"{lab}: the question of {key} does not say {words!r}:\n{question}"


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_computed_float_answers_have_a_precision(check_runs, lab):
    """The right answers the starter computes (its --reveal list), not the test's copy: each float has a precision."""
    computed = {key: ast.literal_eval(text) for key, text in revealed_answers(check_runs[lab].stdout).items()}
    unstated = sorted(key for key, value in computed.items() if holds_float(value) and not _is_cost(key) and key not in _precisions(lab))
    assert not unstated, f"{lab}: float answers compared at no stated precision: {unstated}"


@pytest.mark.slow
@pytest.mark.parametrize("lab", [lab for lab in LABS if any(_is_cost(key) for key in SOLUTIONS[lab])])
def test_cost_float_answers_have_a_precision(check_runs, lab):
    computed = {key: ast.literal_eval(text) for key, text in revealed_answers(check_runs[lab].stdout).items()}
    unstated = sorted(key for key, value in computed.items() if holds_float(value) and _is_cost(key) and key not in _precisions(lab))
    assert not unstated, f"{lab}: cost answers compared at no stated precision: {unstated}"
