"""Whole numbers and seconds as a user's or an upstream file, or the command line, spells them.

One rule for every number field that is read from text (annotation YAML, the lock, CLI options): the
digits 0-9 only, so no sign, no ``0x``/``0o``/``0b`` prefix, no ``_`` separator, no leading zero (YAML 1.1
reads ``017`` as octal 15), no other script's digits, and no more digits than the largest allowed value has,
checked before anything is converted (Python refuses to convert more than 4,300 digits, and a 4,000-digit
number is slow to print). Seconds may add a decimal fraction; ``nan``, ``inf``, ``1e3`` and zero are refused.
The messages never repeat the text they refuse.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_DECIMAL = re.compile(r"(?:0|[1-9][0-9]*)\Z", re.ASCII)
_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]+)?\Z", re.ASCII)
MAX_SECONDS_CHARS = 16
"""Longest seconds text read (``86400.000000001`` fits)."""

PLAIN_DIGITS = "write it with the digits 0-9 only (no sign, '0x', '0o', '0b', '_' or leading zero)"


class BadNumber(ValueError):
    """Why a text or value is not an allowed number (the message never quotes the text).

    ``problem`` is a predicate for the caller's subject (``"is not a plain whole number"``: "nth is not …",
    "value of 'lines' is not …"); ``hint`` says what to write instead; ``str()`` is both, about "the value".
    """

    def __init__(self, problem: str, hint: str = "") -> None:
        self.problem, self.hint = problem, hint
        super().__init__(f"the value {problem} — {hint}" if hint else f"the value {problem}")


def check_spelling(text: str, max_digits: int) -> None:
    """Refuse (:class:`BadNumber`) a whole number not written as at most ``max_digits`` plain decimal digits."""
    if not _DECIMAL.match(text):
        raise BadNumber("is not a plain whole number", PLAIN_DIGITS)
    if len(text) > max_digits:
        raise BadNumber(f"is too long (at most {max_digits} digits)")


def decimal_number(text: str, minimum: int, maximum: int) -> int:
    """The whole number ``text`` spells in plain decimal digits, between ``minimum`` and ``maximum`` (``minimum >= 0``).

    Text longer than ``maximum`` is refused before it is converted.
    """
    check_spelling(text, len(text))
    if len(text) > len(str(maximum)):
        raise BadNumber(f"must be between {minimum} and {maximum}")
    return whole_number(int(text), minimum, maximum)


def whole_number(value: object, minimum: int, maximum: int) -> int:
    """``value`` when it is an ``int`` (not a ``bool``) between ``minimum`` and ``maximum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadNumber(f"must be a whole number, not {'true or false' if isinstance(value, bool) else type(value).__name__}")
    if value.bit_length() > maximum.bit_length() + 1 or not minimum <= value <= maximum:
        raise BadNumber(f"must be between {minimum} and {maximum}")
    return value


def seconds(text: str, maximum: float) -> float:
    """A finite, positive number of seconds up to ``maximum``, written as digits with an optional decimal fraction."""
    if len(text) > MAX_SECONDS_CHARS or not _SECONDS.match(text):
        raise BadNumber("is not a number of seconds", f"write a positive number such as 900 or 2.5, at most {maximum:g}")
    value = float(text)
    if not 0 < value <= maximum:
        raise BadNumber(f"must be more than 0 and at most {maximum:g} seconds")
    return value


def cli_whole(minimum: int, maximum: int) -> Callable[[str], int]:
    """An argparse ``type=`` for a whole number option: a bad value is a usage error (exit 2) saying why."""

    def read(text: str) -> int:
        try:
            return decimal_number(text, minimum, maximum)
        except BadNumber as error:
            import argparse

            raise argparse.ArgumentTypeError(str(error)) from None

    read.__name__ = "whole number"  # argparse names the type in its own messages
    return read


def cli_seconds(maximum: float) -> Callable[[str], float]:
    """An argparse ``type=`` for a duration in seconds (finite, more than 0, at most ``maximum``)."""

    def read(text: str) -> float:
        try:
            return seconds(text, maximum)
        except BadNumber as error:
            import argparse

            raise argparse.ArgumentTypeError(str(error)) from None

    read.__name__ = "seconds"
    return read
