"""The "What it costs" exercises (labs 07, 11-17, 19 and 20) need thinking and are checked fairly.

- Each answer is worked out from ``reports/cost.json`` by ``infralens.cost.exercises`` with the precision its
  question states in words, and the starter passes that precision to ``finish`` (``cost_tolerances``).
- ``--check`` rejects each exercise's trap (the tempting wrong value it exists to tell apart) and accepts the answer
  as the page's Answers fold writes it: in-process through ``report_answers`` with the starter's tolerances, and
  end to end by running each starter once (slow).
- No cost answer is printed on its page outside the folds: not in the prose, nor in what the ``{infralens-cost}``
  directives draw (tables, sentences, figure labels), worked out here from the same views the site uses, and
  (slow) in the built HTML outside every ``<details>``.
"""

from __future__ import annotations

import ast
import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _answers import outside_dropdowns
from _rounds import as_written, asked, cost_rounds, cost_trapped_keys
from _starters import ROOT, load_starter, page_text, starter_path
from solutions import SOLUTIONS

from infralens.cost import EXERCISES, cost_exercises, cost_tolerances, show_cost_exercises
from infralens.reports import load_cost_report
from infralens.tiny.labkit import Decimals, Significant, answer_matches, report_answers

LABS = tuple(lab for lab in SOLUTIONS if lab[:2] in EXERCISES)
_DIRECTIVE = re.compile(r"^```\{infralens-cost\} (\w+)\n((?::\w+: [^\n]*\n)*)```", re.M)
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def test_every_lab_with_cost_exercises_is_covered():
    assert sorted(lab[:2] for lab in LABS) == sorted(EXERCISES)


def _words(precision: object) -> str:
    """How a question states *precision* ("to one decimal", "as a share to two decimals", "to three significant figures")."""
    if isinstance(precision, Decimals):
        unit = "decimal" if precision.places == 1 else "decimals"
        return ("as a share " if precision.share else "") + f"to {_NUMBER_WORDS[precision.places]} {unit}"
    assert isinstance(precision, Significant), precision
    return f"to {_NUMBER_WORDS[precision.digits]} significant figure" + ("" if precision.digits == 1 else "s")


@pytest.mark.parametrize("lab", LABS)
def test_starter_asks_exactly_the_computed_exercises(lab):
    asked = [key for key in load_starter(lab).ANSWERS if key.startswith("cost_")]
    assert asked == [e.key for e in cost_exercises(lab[:2])]
    assert {k: v for k, v in SOLUTIONS[lab].items() if k.startswith("cost_")} == {e.key: e.value for e in cost_exercises(lab[:2])}


@pytest.mark.parametrize("lab", LABS)
def test_each_question_states_its_precision_and_each_exercise_a_trap(lab):
    exercises = cost_exercises(lab[:2])
    assert exercises, f"{lab} has no cost exercise"
    for exercise in exercises:
        question, _ = asked(lab, exercise.key)
        assert exercise.traps, exercise.key
        if isinstance(exercise.value, float):
            assert exercise.precision is not None, f"{exercise.key}: a float answer without a precision"
            assert _words(exercise.precision) in question, f"{lab}: the question of {exercise.key} does not say {_words(exercise.precision)!r}:\n{question}"
        else:
            assert exercise.precision is None and isinstance(exercise.value, int) and "whole number" in question, exercise.key


@pytest.mark.parametrize("lab", LABS)
def test_check_rejects_each_trap_and_accepts_the_folded_answer(lab, capsys):
    """What ``--check`` does with the starter's tolerances: the fold's answer passes, every trap fails on its own."""
    exercises = cost_exercises(lab[:2])
    tolerances = cost_tolerances(lab[:2])
    computed = {e.key: e.value for e in exercises}
    written = {e.key: as_written(asked(lab, e.key)[1]) for e in exercises}
    assert report_answers(written, computed, tolerances=tolerances) == 0, capsys.readouterr().out
    for exercise in exercises:
        for trap in exercise.traps:
            assert not answer_matches(trap, exercise.value, tolerances.get(exercise.key)), f"{exercise.key}: --check accepts the trap {trap!r}"
            assert report_answers(dict(written, **{exercise.key: trap}), computed, tolerances=tolerances) == 1
            assert f"[WRONG] {exercise.key}: your answer" in capsys.readouterr().out


def _passes_cost_tolerances(starter: Path, lab: str) -> bool:
    """Whether the starter's ``finish`` call passes ``cost_tolerances(lab)`` within its ``tolerances=``."""
    for node in ast.walk(ast.parse(starter.read_text("utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "finish":
            for keyword in node.keywords:
                if keyword.arg == "tolerances":
                    calls = [n for n in ast.walk(keyword.value) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "cost_tolerances"]
                    return any(ast.literal_eval(call.args[0]) == lab for call in calls if call.args)
    return False


@pytest.mark.parametrize("lab", LABS)
def test_starter_passes_the_cost_precisions_to_finish(lab):
    assert _passes_cost_tolerances(starter_path(lab), lab[:2]), f"{lab}: finish(...) is not given tolerances with cost_tolerances({lab[:2]!r})"


def test_an_unknown_lab_and_a_missing_report_are_clear_errors(tmp_path):
    from infralens.reports import CostReportError

    with pytest.raises(KeyError, match="has no cost exercises"):
        cost_exercises("99")
    with pytest.raises(CostReportError, match=r"cost\.json"):
        cost_exercises("07", tmp_path / "cost.json")
    with pytest.raises(SystemExit, match=r"run `make cost`") as stopped:
        show_cost_exercises("07", report_path=tmp_path / "cost.json")
    assert "Traceback" not in str(stopped.value)


# No answer on the page outside its fold.


def _forms(exercise) -> list[str]:
    """How the page could print *exercise*'s answer: as the question asks it, and as the report's figure."""
    value, precision = exercise.value, exercise.precision
    if isinstance(value, int):
        return [str(value), f"{value:,}"] if abs(value) >= 10 else []  # a small whole number says nothing alone
    found = {repr(value)}
    if isinstance(precision, Decimals):
        found.add(f"{value:.{precision.places}f}")
        if precision.share:
            found.add(f"{value * 100:.{max(precision.places - 2, 0)}f}%")
    elif isinstance(precision, Significant):
        digits = precision.digits - 1 - int(f"{abs(value):e}".split("e")[1])
        text = f"{round(value, digits):.{max(digits, 0)}f}"
        found |= {text, f"{float(text):,.{max(digits, 0)}f}"}
    return sorted(found)


def _stated(text: str, exercises) -> dict[str, str]:
    found = {}
    for exercise in exercises:
        for form in _forms(exercise):
            if re.search(rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d)", text):
                found[exercise.key] = form
    return found


def _view(report, kind: str, option: dict[str, str]):
    """What the site's directive draws for one ``{infralens-cost} KIND`` block of a page (the same view functions)."""
    from infralens.sphinx import cost_views as views

    names = [n.strip() for n in option.get("models", option.get("pipelines", "")).split(",") if n.strip()]
    single = option.get("model", option.get("pipeline", "")).strip()
    if kind in ("weights", "fit", "generation", "kv", "decode"):
        chosen = {"weights": views.weights_view, "fit": views.fit_view, "generation": views.generation_view, "kv": views.kv_view, "decode": views.decode_view}
        return chosen[kind](report, names)
    return {"flops": views.flops_view, "vae": views.vae_view, "offload": views.offload_view, "fbc": views.fbc_view}[kind](report, single)


def _drawn_text(lab: str) -> str:
    """Everything the page's ``{infralens-cost}`` directives print: tables, sentences, lists and the figures' text."""
    report = load_cost_report(ROOT / "reports" / "cost.json")
    parts = []
    for kind, options in _DIRECTIVE.findall(page_text(lab)):
        view = _view(report, kind, dict(re.findall(r"^:(\w+): ([^\n]*)$", options, re.M)))
        for block in view.blocks:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, list):
                parts += block
            else:
                parts += [" | ".join(block.header), *(" | ".join(row) for row in block.rows)]
        parts += [html.unescape(t) for t in re.findall(r"<(?:text|tspan)\b[^>]*>([^<]+)<", view.svg)]
        parts.append(view.alt)
    return "\n".join(parts)


@pytest.mark.parametrize("lab", LABS)
def test_no_cost_answer_is_printed_above_its_fold(lab):
    text = outside_dropdowns(page_text(lab)) + "\n" + _drawn_text(lab)
    found = _stated(text, cost_exercises(lab[:2]))
    assert not found, f"{lab}: the page prints cost answers outside its folds: {found}"


class _Outside(HTMLParser):
    """The text of a page's main content (its ``role="main"`` element: not the site's navigation, where other labs'
    numbers are link text) outside every ``<details>`` element and outside scripts and styles."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.skip = 0
        self.main: list[str] = []  # the tag of the role="main" element, while inside it
        self.main_depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        if not self.main and ("role", "main") in attrs:
            self.main = [tag]
        elif self.main and tag == self.main[0]:
            self.main_depth += 1
        self.depth += tag == "details"
        self.skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        if self.main and tag == self.main[0]:
            self.main_depth -= 1
            if self.main_depth < 0:
                self.main, self.main_depth = [], 0
        self.depth -= tag == "details" and self.depth > 0
        self.skip -= tag in ("script", "style") and self.skip > 0

    def handle_data(self, data: str) -> None:
        if self.main and not self.depth and not self.skip:
            self.parts.append(data)


@pytest.fixture(scope="module")
def built_site(docs_site: Path) -> Path:
    """The site built from ``docs/`` once per test run (``docs_site``): it was a second full build of its own."""
    return docs_site


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_built_page_states_no_cost_answer_outside_details(built_site, lab):
    page = (built_site / "_infralens" / "labs" / f"lab-{lab}" / "index.html").read_text("utf-8")
    assert "il-cost-svg" in page, f"{lab}: no cost figure drawn"
    reader = _Outside()
    reader.feed(page)
    assert reader.parts, f"{lab}: no text found in the page's main content"
    found = _stated(" ".join(reader.parts), cost_exercises(lab[:2]))
    assert not found, f"{lab}: the built page states cost answers outside <details>: {found}"
    assert reader.depth == 0


# End to end: each starter once (its ``cost`` variant, ``_session.py``), its real --check report for the folded
# answers and for each round of traps.


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_starter_check_rejects_traps_and_accepts_folded_answers(lab, starter_sessions):
    rounds = cost_rounds(lab)
    right = rounds[0]
    result = starter_sessions((lab,))[lab]["cost"]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    reports = dict(re.findall(r"^== round (\d+)\n(.*?)^== round \1 exit \d+$", result.stdout, re.M | re.S))
    assert sorted(int(n) for n in reports) == list(range(len(rounds)))
    assert "[WRONG]" not in reports["0"] and f"check: {len(right)}/{len(right)} answers correct" in reports["0"], reports["0"]
    for n in range(1, len(rounds)):
        trapped = cost_trapped_keys(lab, n)
        wrong = set(re.findall(r"^  \[WRONG\] (\S+):", reports[str(n)], re.M))
        assert wrong == trapped, f"{lab} round {n}: [WRONG] {sorted(wrong)}, traps {sorted(trapped)}"
