"""Diagnostics and the exception tree.

Every problem a user can fix is a :class:`Diagnostic` that names a file, a
line and a column, says what is wrong and what to do about it. Exceptions
carry diagnostics so the CLI can print them without a traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
FORMAT_CHARACTERS = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
"""Unicode's format characters (category Cf): bidirectional overrides and isolates, zero-width spaces and joiners, BOMs."""
_UNSEEN = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029{FORMAT_CHARACTERS.pattern[1:-1]}]")


def printable(text: str) -> str:
    """*text* with control characters written as escapes (``\\x1b``), so a file name or a value can never
    drive the terminal (colour codes, cursor moves) or split a message line."""
    return _CONTROL.sub(lambda found: ascii(found.group())[1:-1], text)


def printable_line(text: str) -> str:
    """:func:`printable`, also escaping line breaks and format characters (``\\u202e``): one visible line,
    so a name from an upstream wheel cannot start a new log line (``::error`` …) or reorder what is shown."""
    return _UNSEEN.sub(lambda found: ascii(found.group())[1:-1], text)


class Severity(str, Enum):
    """How bad a diagnostic is."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Location:
    """A position in a file: 1-based line and column."""

    path: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{printable(self.path)}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    """One finding about an annotation file (or a source it points at)."""

    location: Location
    message: str
    hint: str = ""
    severity: Severity = Severity.ERROR
    code: str = "invalid"
    """A short machine-readable kind, e.g. ``yaml``, ``schema``, ``selector``."""

    def __str__(self) -> str:
        text = f"{self.location}: {self.severity.value}: {printable(self.message)}"
        if self.hint:
            text += f" — {printable(self.hint)}"
        return text


class InfralensError(Exception):
    """Base class of every error this package raises on purpose."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = ()) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics


class AnnotationLoadError(InfralensError):
    """An annotation file could not be read or does not follow the schema."""


class SourceNotFoundError(InfralensError):
    """A distribution, wheel, directory or module could not be located."""


class ResolutionError(InfralensError):
    """A target or selector matched nothing, or more than one thing."""

    def __init__(self, message: str, candidates: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates


class UnsafePathError(InfralensError):
    """A path would leave the distribution or project it belongs to."""


class LockfileError(InfralensError):
    """The lock file is missing, malformed or cannot be written."""
