"""The one selector matcher: whether a selector picks a statement, given normalised statement text.

The resolver uses it to find a step's statements in a function; drift uses it to ask whether a
selector would still pick the statements the lock recorded. Both compare normalised text
(:func:`infralens.source.normalize`), so layout, comments and layout-only commas never matter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from infralens.annotations import BlockSelector, ContainsSelector, Selector, SingleSelector
from infralens.source import normalize, strip_header_colon

_T = TypeVar("_T")


def needle(selector: SingleSelector) -> str:
    """The selector's text, normalised like statement texts are (empty when it is blank)."""
    return normalize(selector.text)


def picks(selector: SingleSelector, text: str, normalised_needle: str | None = None) -> bool:
    """Whether *selector* picks a statement whose normalised text is *text*.

    ``contains`` matches anywhere in the statement; exact text matches the whole statement, where a
    compound statement (``for …:``) may be written with or without its colon.
    """
    wanted = needle(selector) if normalised_needle is None else normalised_needle
    if isinstance(selector, ContainsSelector):
        return wanted in text
    return strip_header_colon(wanted) == strip_header_colon(text)


def picked(selector: SingleSelector, items: Iterable[_T], text_of: Callable[[_T], str]) -> list[_T]:
    """The items (statements, usually) whose text *selector* picks, in order."""
    wanted = needle(selector)
    return [item for item in items if picks(selector, text_of(item), wanted)]


def still_picks(selector: Selector, texts: tuple[str, ...]) -> bool:
    """Whether *selector*, applied to the recorded statement text(s), would still pick them."""
    if isinstance(selector, BlockSelector):
        return bool(texts) and picks(selector.start, texts[0]) and picks(selector.end, texts[-1])
    return len(texts) == 1 and picks(selector, texts[0])
