"""Diagnostics and the exception tree.

Every problem a user can fix is a :class:`Diagnostic` that names a file, a
line and a column, says what is wrong and what to do about it. Exceptions
carry diagnostics so the CLI can print them without a traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

FORMAT_CHARACTERS = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
"""Unicode's format characters (category Cf): bidirectional overrides and isolates, zero-width spaces and joiners, BOMs."""
_INVISIBLE = f"\x7f-\x9f\u2028\u2029\ud800-\udfff{FORMAT_CHARACTERS.pattern[1:-1]}"
_UNSEEN = re.compile(f"[\x00-\x08\x0a-\x1f{_INVISIBLE}]")
"""What a printed field never shows as it is: C0 controls but the tab, DEL and C1, line and paragraph
separators, lone surrogates (a file name Python could not decode) and format characters."""
_UNSEEN_BUT_NEWLINE = re.compile(f"[\x00-\x08\x0b-\x1f{_INVISIBLE}]")
_COMMAND_START = re.compile(r"^([^\S\n]*):(?=:)", re.MULTILINE)
"""``::`` opening a line, after any blanks: GitHub's runner trims a line's start and reads ``::name …::`` as a command."""
_LEGACY_COMMAND = re.compile(r"#(?=#(?:vso)?\[)", re.IGNORECASE)
"""``##[`` (and Azure's ``##vso[``) anywhere in a line: the runner's older parser looks for it at any position."""
_JSON_UNSEEN = re.compile(f"[{_INVISIBLE}]|#(?=#(?:vso)?\\[)", re.IGNORECASE)


def _escape(found: re.Match[str]) -> str:
    return ascii(found.group())[1:-1]


def neutralised(text: str) -> str:
    """*text* with nothing a CI log reads as a workflow command: ``::`` at a line start becomes ``\\x3a:`` and
    ``##[`` anywhere becomes ``\\x23#[``. Control characters are left alone (for output that colours on purpose)."""
    return _LEGACY_COMMAND.sub(r"\\x23", _COMMAND_START.sub(r"\1\\x3a", text))


def escaped(text: str) -> str:
    """*text* with every character :func:`printable` escapes written as its escape, line breaks kept, and nothing
    neutralised: for a piece of a line (a highlighted token) whose whole line is :func:`neutralised` later."""
    return _UNSEEN_BUT_NEWLINE.sub(_escape, text)


def printable(text: str) -> str:
    """*text*, whose lines may come from anywhere, as terminal and log text: every control, C1, format or
    bidirectional character and every lone surrogate written as a visible escape (``\\x1b``, ``\\u202e``,
    ``\\udcff``) and every line :func:`neutralised`. Line breaks stay; it can never drive the terminal (colour
    codes, cursor moves), reorder what is shown, or start a workflow command."""
    return neutralised(escaped(text))


def printable_line(text: str) -> str:
    """:func:`printable` of one field or line, also escaping line breaks (``\\n``): one visible line, so a name
    from an upstream wheel or a folded ``Version:`` cannot start a new log line (``::error`` …)."""
    return neutralised(_UNSEEN.sub(_escape, text))


def json_text(document: str) -> str:
    """A JSON document (``json.dumps(..., ensure_ascii=False)``) made safe to print: always valid UTF-8 and
    inert in a terminal or a CI log, read back by any parser as the same data except for lone surrogates.

    Control, C1, format and separator characters become ``\\uXXXX`` escapes, and so does the first ``#``
    of ``##[`` (all read back unchanged). A lone surrogate (a byte of a file name that is not UTF-8, which
    Python keeps as U+DC80–U+DCFF) becomes the six characters ``\\udcXX``, the text the other formats show
    for it, since strict parsers refuse a lone surrogate even as an escape. Outside strings a JSON text
    holds none of these characters, so the document is rewritten as a whole."""
    return _JSON_UNSEEN.sub(_json_escape, document)


def _json_escape(found: re.Match[str]) -> str:
    code = ord(found.group()[0])
    return f"\\\\u{code:04x}" if 0xD800 <= code <= 0xDFFF else f"\\u{code:04x}"


def github_data(message: str) -> str:
    """A workflow command's message: :func:`printable`, then GitHub's escaping of data (``%`` → ``%25``,
    ``\\r`` → ``%0D``, ``\\n`` → ``%0A``), so the command is one log line whose every shown line is inert."""
    return printable(message).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(value: str) -> str:
    """A workflow command's property value (``file=``, ``title=``): :func:`printable_line`, then GitHub's
    escaping of properties (data's, plus ``:`` → ``%3A`` and ``,`` → ``%2C``)."""
    return printable_line(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")


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
        return f"{printable_line(self.path)}:{self.line}:{self.col}"


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
