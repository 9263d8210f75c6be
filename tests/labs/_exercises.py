"""Read a lab page's ``## Exercises`` section: its numbered questions, its folded answers, the keys each asks.

A question names the ``ANSWERS`` keys it checks in a parenthesis of backticked names, ``(`key_a`, `key_b`)``;
the folded ``:::{dropdown} Answers`` block answers it in the item with the same number.
"""

from __future__ import annotations

import ast
import re

_ITEM = re.compile(r"^(\d+)\. ", re.M)
_KEY_GROUP = re.compile(r"\((`[^`]+`(?:,\s*`[^`]+`)*)\)")


def _numbered(text: str) -> dict[int, str]:
    """{number: text} of a numbered Markdown list (an item runs to the next item or the end)."""
    marks = list(_ITEM.finditer(text))
    return {
        int(mark.group(1)): text[mark.end() : following.start() if following else len(text)] for mark, following in zip(marks, [*marks[1:], None], strict=True)
    }


def exercises(page: str) -> tuple[dict[int, str], dict[int, str]]:
    """({number: question}, {number: folded answer}) of the page's ``## Exercises`` section."""
    section = page.split("\n## Exercises\n", 1)[1].split("\n## ", 1)[0]
    questions, found, fold = section.partition(":::{dropdown} Answers\n")
    assert found, "the exercises have no ':::{dropdown} Answers' block"
    return _numbered(questions), _numbered(fold.split("\n:::", 1)[0])


def question_numbers(page: str) -> dict[str, int]:
    """{key: the number of the question that asks it}, from the questions' ``(`key`, ...)`` groups."""
    numbers: dict[str, int] = {}
    for number, question in exercises(page)[0].items():
        for group in _KEY_GROUP.findall(question):
            for key in re.findall(r"`([^`]+)`", group):
                assert key not in numbers, f"{key!r} is asked by questions {numbers[key]} and {number}"
                numbers[key] = number
    return numbers


def states(text: str, form: str) -> bool:
    """Whether *text* contains *form* as a whole value (not inside a longer number or word; "yes" matches "Yes")."""
    return re.search(rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d)", text, re.IGNORECASE) is not None


def as_answer(written: str) -> object:
    """What a learner puts in ``ANSWERS`` for an answer the page writes as *written*.

    ``"Yes"``/``"True"`` is True, ``"No"``/``"False"`` False, ``"−332"`` (a typographic minus) is -332, a
    percentage stays a string (``"49%"``, accepted for a share), a Python literal is itself, other text a string.
    """
    text = written.strip().strip("`").replace("\N{MINUS SIGN}", "-")
    if text.lower() in ("yes", "true"):
        return True
    if text.lower() in ("no", "false"):
        return False
    if text.endswith("%"):
        return text
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
