"""The answer rounds ``--check`` is run with: the right answers as the page writes them, then one round per trap depth.

Round 0 holds every answer as the lab page's folded Answers write it; round *n* puts the *n*-th trap of every
exercise that has one in place of its right answer (the right answers elsewhere), so a trap fails alone or not at
all. :func:`trap_rounds` covers the exercises of ``traps.py``, :func:`cost_rounds` the "What it costs" exercises
(``infralens.cost``), whose traps live beside their computation.
"""

from __future__ import annotations

import ast
import re

from _exercises import as_answer, exercises
from _starters import page_text
from solutions import SOLUTIONS
from traps import EXERCISES

from infralens.cost import EXERCISES as COST_EXERCISES, cost_exercises

_WRITTEN = re.compile(r"^([0-9][0-9,]*(?:\.[0-9]+)?%?)")


def trap_rounds(lab: str) -> list[dict]:
    """Round 0: every answer as the page writes it (cost answers from ``solutions``); round n: each n-th trap."""
    right = {key: as_answer(EXERCISES[lab][key].written) if key in EXERCISES[lab] else value for key, value in SOLUTIONS[lab].items()}
    depth = max((len(exercise.traps) for exercise in EXERCISES[lab].values()), default=0)
    trapped = [dict(right, **{key: exercise.traps[n] for key, exercise in EXERCISES[lab].items() if len(exercise.traps) > n}) for n in range(depth)]
    return [right, *trapped]


def trapped_keys(lab: str, number: int) -> set[str]:
    """The keys whose trap round *number* (from 1) puts in place of the right answer."""
    return {key for key, exercise in EXERCISES[lab].items() if len(exercise.traps) >= number} if number else set()


def has_cost_exercises(lab: str) -> bool:
    return lab[:2] in COST_EXERCISES


def asked(lab: str, key: str) -> tuple[str, str]:
    """(question, folded answer) of the exercise that names *key*, each on one line."""
    questions, folded = exercises(page_text(lab))
    numbers = [number for number, question in questions.items() if f"(`{key}`)" in question]
    assert len(numbers) == 1, f"{lab}: {key} is asked by questions {numbers}"
    return " ".join(questions[numbers[0]].split()), folded.get(numbers[0], "")


def as_written(folded: str) -> object:
    """The answer as the fold writes it first ("22.6 GiB: ..." → 22.6, "7%: ..." → "7%", "4186 TFLOP" → 4186)."""
    match = _WRITTEN.match(folded.strip())
    assert match, f"the folded answer does not start with its value:\n{folded}"
    text = match.group(1).replace(",", "")
    return text if text.endswith("%") else ast.literal_eval(text)


def cost_rounds(lab: str) -> list[dict]:
    """Round 0: the folded cost answers (the rest from ``solutions``); round n: each cost exercise's n-th trap."""
    found = cost_exercises(lab[:2])
    right = dict(SOLUTIONS[lab], **{exercise.key: as_written(asked(lab, exercise.key)[1]) for exercise in found})
    depth = max(len(exercise.traps) for exercise in found)
    return [right, *(dict(right, **{e.key: e.traps[n] for e in found if len(e.traps) > n}) for n in range(depth))]


def cost_trapped_keys(lab: str, number: int) -> set[str]:
    return {exercise.key for exercise in cost_exercises(lab[:2]) if len(exercise.traps) >= number} if number else set()
