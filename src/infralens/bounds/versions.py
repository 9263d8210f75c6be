"""The one reading of a version: from upstream metadata, file and folder names, caches and the command line.

A version is one line of at most :data:`MAX_VERSION_CHARS` characters from ``[A-Za-z0-9.+!_-]`` that
``packaging`` reads as a PEP 440 version. The characters are checked before ``packaging`` sees the text (it
converts every number, and more than 4,300 digits raise), so a 5,000-digit release, a ``Version:`` header
folded onto a second line (RFC 822 continuation) or one holding control characters is refused, and the
message never repeats text that could start a CI workflow command or move a terminal's cursor.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from packaging.version import Version

MAX_VERSION_CHARS = 64
"""Longest version read. The longest diffusers or DiffSynth release is 10 characters (``0.36.0rc1``);
PEP 440 allows long local versions (``+cu121.abc``), and 64 leaves room for them."""

_SAFE = re.compile(r"[A-Za-z0-9.+!_-]+\Z", re.ASCII)
VERSION_PATTERN = f"^[A-Za-z0-9.+!_-]{{1,{MAX_VERSION_CHARS}}}$"
"""The same rule's characters and length as a JSON Schema pattern (a report's version fields; PEP 440 is not checked there)."""
EXAMPLE = "expected something like 0.38.0"


class BadVersion(ValueError):
    """Why a text is not a version (the message quotes it only when it is short and holds only safe characters)."""


def shown_text(text: str) -> str:
    """``text`` quoted when it is short and safe to print, else a description of it (its length, a line break, …)."""
    if len(text) <= MAX_VERSION_CHARS and _SAFE.match(text):
        return repr(text)
    if len(text) > MAX_VERSION_CHARS:
        return f"a text of {len(text):,} characters"
    if "\n" in text or "\r" in text:
        return "a text on more than one line"
    if not text.isprintable():
        return "a text holding control characters"
    return "a text holding characters other than letters, digits and . + ! _ -" if text else "an empty text"


def checked_version(text: str) -> str:
    """``text`` itself when it is a version (see the module's rule), else :class:`BadVersion` saying why."""
    parsed_version(text)
    return text


def parsed_version(text: str) -> Version:
    """The :class:`packaging.version.Version` ``text`` spells, under the rule of :func:`checked_version`."""
    from packaging.version import InvalidVersion, Version

    if len(text) > MAX_VERSION_CHARS or not _SAFE.match(text):
        limit = f"at most {MAX_VERSION_CHARS} characters" if len(text) > MAX_VERSION_CHARS else "one line of letters, digits and . + ! _ -"
        raise BadVersion(f"{shown_text(text)} is not a version ({EXAMPLE}: {limit})")
    try:
        return Version(text)
    except (InvalidVersion, ValueError):
        raise BadVersion(f"{shown_text(text)} is not a version ({EXAMPLE}, PEP 440)") from None
