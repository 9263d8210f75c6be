"""Every lab page reads in the same order and folds its answers: goal, Run it, checkpoints, then the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(ROOT.glob("labs/lab-*/index.md"))
FIRST = ("Goal", "Run it", "Reading checkpoints", "The code, annotated")
DROPDOWN = re.compile(r"^:::\{dropdown\} Answers\n(.*?)^:::$", re.M | re.S)


def _sections(text: str) -> list[str]:
    return re.findall(r"^## (.+?)\s*$", text, re.M)


def _numbered(block: str) -> list[int]:
    return [int(n) for n in re.findall(r"^(\d+)\. ", block, re.M)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_sections_come_in_the_learners_order(page):
    sections = _sections(page.read_text("utf-8"))
    assert all(name in sections for name in FIRST), f"{page.parent.name}: needs sections {FIRST}, has {sections}"
    positions = [sections.index(name) for name in FIRST]
    assert positions == sorted(positions), f"{page.parent.name}: {FIRST} must come in this order, found {sections}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_answers_are_folded_and_numbered_like_the_exercises(page):
    text = page.read_text("utf-8")
    assert ":class: dropdown" not in text, "fold answers with :::{dropdown} (sphinx-design), not an admonition class"
    blocks = DROPDOWN.findall(text)
    assert len(blocks) == 2, f"{page.parent.name}: two ':::{{dropdown}} Answers' blocks expected (checkpoints, exercises), found {len(blocks)}"
    exercises = text.split("## Exercises", 1)[1].split(":::{dropdown}", 1)[0]
    asked, answered = _numbered(exercises), _numbered(blocks[-1])
    assert asked == list(range(1, len(asked) + 1)) and asked, f"{page.parent.name}: exercises numbered {asked}"
    assert answered == asked, f"{page.parent.name}: answers numbered {answered} for exercises {asked}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_display_math_stands_in_its_own_paragraph(page):
    lines = page.read_text("utf-8").splitlines()
    assert lines, f"{page} is empty"
    for number, line in enumerate(lines, 1):
        if "$$" in line:
            assert line.strip().startswith("$$") and not re.match(r"\s*([-*]|\d+\.)\s", line), f"{page.parent.name}:{number}: $$ inside a list item"
