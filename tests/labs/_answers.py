"""Helpers for the "answers stay hidden until asked" tests: read a ``--reveal`` list, find answers in text.

An answer *leaks* when its value, written the way the starter's ``--reveal`` list writes it (or as
the other sequence type, or a string without its quotes), appears in text a learner reads before
asking. Values too common to mean anything on their own (bools, integers below 10, ``0.0``,
``1.0``, ``0.5``, strings shorter than 4 characters) are not searched for.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

REVEAL_HEADING = "== the right answers (--reveal)"
DROPDOWN = re.compile(r"^:::\{dropdown\}[^\n]*\n.*?^:::$", re.M | re.S)
_LINE = re.compile(r"^  (\S+) = (.+)$")


def revealed_answers(stdout: str) -> dict[str, str]:
    """The ``key = literal`` lines of a starter's ``--reveal`` list, as printed (literal text, unparsed)."""
    assert REVEAL_HEADING in stdout, f"no {REVEAL_HEADING!r} list in the output:\n{stdout[-2000:]}"
    block = stdout.split(REVEAL_HEADING, 1)[1].splitlines()[1:]
    return dict(match.groups() for line in block if (match := _LINE.match(line)))


def answers_source(printed: dict[str, str]) -> str:
    """An ``ANSWERS = {...}`` block with each value pasted literally as printed, as a learner would."""
    return "ANSWERS = {\n" + "".join(f"    {key!r}: {text},\n" for key, text in printed.items()) + "}"


def _forms(value: object) -> list[str]:
    """How *value* may be written in prose or output; empty when it is too common to search for."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int):
        return [str(value)] if abs(value) >= 10 else []
    if isinstance(value, float):
        whole = [str(int(value))] if value.is_integer() and abs(value) >= 10 else []  # 3500.0 is also written 3500
        return [] if value in (0.0, 1.0, 0.5) or len(repr(value)) <= 3 else [repr(value), *whole]
    if isinstance(value, str):
        return [value] if len(value) >= 4 else []
    if isinstance(value, list | tuple):
        if not any(_forms(item) for item in value) and len(value) < 3:
            return []
        items = ", ".join(repr(item) for item in value)
        return [f"[{items}]", f"({items})"]
    return [repr(value)]


_DURATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|µs|us|s)\b")
_UNIT = r"\s?(?:[KMGT]i?B\b|kB\b|[GT]FLOPs?\b|GB/s|%)"
"""A size, FLOP count or percentage written after a number (``80 GiB``, ``48.2 TFLOP``, ``20%``)."""
_KEY_UNIT = re.compile(r"_(?:[kmg]ib|[kmg]b|[gt]flop)(?:_|$)")
"""An answer key that names its unit (``cost_flux_q4_k_gib``): its value is written with that unit."""


def leaked(text: str, printed: dict[str, str], skip: frozenset[str] = frozenset(), also: Mapping[str, list[str]] | None = None) -> dict[str, str]:
    """{key: the form found} for every answer in *printed* (``--reveal`` literals) that *text* states.

    *also* gives more forms of a key's answer (a share's percentages). Durations the run measured (``first call
    1.65 s``) are left out: a wall-clock time that happens to equal an answer states nothing (lab 15's compile
    time once matched its 1.65 TFLOP answer). So is a number followed by a unit (``80 GiB``, ``20%``) when the
    key names no unit: a card size is not an embedding width. A percentage form (from *also*) always counts."""
    text = _DURATION.sub("<duration>", text)
    found = {}
    for key, literal in printed.items():
        if key in skip:
            continue
        unit = "" if _KEY_UNIT.search(key) else f"|{_UNIT}"
        extra = (also or {}).get(key, [])
        for form in [*_forms(ast.literal_eval(literal)), *extra]:
            if re.search(rf"(?<![\w.]){re.escape(form)}(?![\w]|\.\d{'' if form in extra else unit})", text):
                found[key] = form
                break
    return found


def outside_dropdowns(page: str) -> str:
    """A lab page's text without its folded ``:::{dropdown}`` blocks."""
    return DROPDOWN.sub("", page)
