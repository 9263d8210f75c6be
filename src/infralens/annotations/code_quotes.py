"""Curly quotes inside code: an error in notes, summaries, the concept map and lab pages.

A reader pastes what sits in a code span (```` `…` ````) or a fenced block; a ``‘`` or ``“`` there
breaks the command or expression. :func:`curly_quotes_in_code` finds them in Markdown (MyST:
backtick, tilde and colon fences; a directive fence other than a code block holds Markdown, so its
spans are read too). :func:`value_diagnostics` places them in a YAML file, :func:`page_diagnostics`
in a Markdown page, each at its own line and column.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from infralens.annotations.positions import PathKey, PositionedDocument
from infralens.errors import FORMAT_CHARACTERS, Diagnostic, Location

CURLY_QUOTES = "‘’“”"
MESSAGE = "curly quote inside a code span"
HINT = "use straight quotes ' or \""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}|:{3,})(.*)$")
_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode"})
_TICKS = re.compile(r"`+")


def curly_quotes_in_code(text: str) -> list[int]:
    """Offsets in *text* of each curly quote inside an inline code span or a fenced code block."""
    found: list[int] = []
    fences: list[tuple[str, int, bool]] = []  # (fence character, length, holds code) of each open fence
    prose: list[tuple[int, str]] = []  # the paragraph being read: (offset of each line, line)
    offset = 0
    for line in text.splitlines(keepends=True):
        fence = _FENCE.match(line.rstrip("\r\n"))
        if fences and fences[-1][2]:  # inside a code block: only its closing fence ends it
            char, length, _ = fences[-1]
            if fence and fence.group(1)[0] == char and len(fence.group(1)) >= length and not fence.group(2).strip():
                fences.pop()
            else:
                found.extend(offset + index for index, char in enumerate(line) if char in CURLY_QUOTES)
        elif fence or not line.strip():
            found.extend(_in_spans(prose))
            prose = []
            if fence:
                _fence_line(fences, fence)
        else:
            prose.append((offset, line))
        offset += len(line)
    found.extend(_in_spans(prose))
    return found


def _fence_line(fences: list[tuple[str, int, bool]], fence: re.Match[str]) -> None:
    """Open or close a fence at a fence line outside code."""
    marks, info = fence.group(1), fence.group(2).strip()
    if fences and marks[0] == fences[-1][0] and len(marks) >= fences[-1][1] and not info:
        fences.pop()
        return
    if marks[0] == "`" and "`" in info:  # not a fence: an inline code span at the start of a line
        return
    name = info[1 : info.index("}")].strip().lower() if info.startswith("{") and "}" in info else None
    fences.append((marks[0], len(marks), name is None or name in _CODE_DIRECTIVES))


def _in_spans(prose: list[tuple[int, str]]) -> list[int]:
    """Curly quotes inside the inline code spans of one paragraph (CommonMark: a run of n backticks to the next run of n)."""
    if not prose:
        return []
    start = prose[0][0]
    text = "".join(line for _, line in prose)
    found: list[int] = []
    runs = [run for run in _TICKS.finditer(text) if not _escaped(text, run.start())]
    index = 0
    while index < len(runs):
        opening = runs[index]
        closing = next((later for later in range(index + 1, len(runs)) if len(runs[later].group()) == len(opening.group())), None)
        if closing is None:
            index += 1
            continue
        body = range(opening.end(), runs[closing].start())
        found.extend(start + at for at in body if text[at] in CURLY_QUOTES)
        index = closing + 1
    return found


def _escaped(text: str, at: int) -> bool:
    backslashes = len(text[:at]) - len(text[:at].rstrip("\\"))
    return backslashes % 2 == 1


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def page_diagnostics(text: str, shown: str) -> list[Diagnostic]:
    """One error per line of a Markdown page (shown as *shown*) with a curly quote in code."""
    found: list[Diagnostic] = []
    lines: set[int] = set()
    for offset in curly_quotes_in_code(text):
        line, col = _line_col(text, offset)
        if line not in lines:
            lines.add(line)
            found.append(Diagnostic(Location(shown, line, col), MESSAGE, HINT, code="quotes"))
    return found


def value_diagnostics(value: str, document: PositionedDocument, path: PathKey) -> list[Diagnostic]:
    """The curly quotes in code in the Markdown *value* at *path* of a YAML document, each at its place in the file.

    The k-th curly quote of the value is the k-th one of the file from the value's start (escapes
    such as ``\\u2019`` aside); the value's own position stands in when that cannot be found.
    """
    offsets = curly_quotes_in_code(value)
    if not offsets:
        return []
    where = document.where(path)
    source = document.source
    lines = source.split("\n")
    start = sum(len(line) + 1 for line in lines[: where.line - 1]) + where.col - 1
    in_file = [at for at in range(start, len(source)) if source[at] in CURLY_QUOTES] if source else []
    found: list[Diagnostic] = []
    seen: set[int] = set()
    for offset in offsets:
        rank = sum(1 for at in range(offset) if value[at] in CURLY_QUOTES)
        location = Location(where.path, *_line_col(source, in_file[rank])) if rank < len(in_file) else where
        if location.line not in seen:
            seen.add(location.line)
            found.append(Diagnostic(location, MESSAGE, HINT, code="quotes"))
    return found


def hidden_character_diagnostics(value: str, document: PositionedDocument, path: PathKey) -> list[Diagnostic]:
    """One error per format character (bidirectional override, zero-width space, BOM …) in the text *value* at *path*.

    Such characters are invisible, or reorder what a reader sees, so a note could show one thing and say another.
    Each is placed at its line in the file when it is written there as itself, else at the value's start.
    """
    found_at = [match.start() for match in FORMAT_CHARACTERS.finditer(value)]
    if not found_at:
        return []
    where = document.where(path)
    source = document.source or ""
    lines = source.split("\n")
    start = sum(len(line) + 1 for line in lines[: where.line - 1]) + where.col - 1
    in_file = [match.start() for match in FORMAT_CHARACTERS.finditer(source, max(start, 0))]
    found: list[Diagnostic] = []
    for rank, offset in enumerate(found_at):
        location = Location(where.path, *_line_col(source, in_file[rank])) if rank < len(in_file) else where
        character = value[offset]
        found.append(
            Diagnostic(
                location,
                f"invisible character U+{ord(character):04X} ({unicodedata.name(character, 'format character')}) in the text",
                "delete it: bidirectional and zero-width characters can make a note show something other than what it says",
                code="schema",
            )
        )
    return found


def lab_pages(labs_dir: Path, within: Path | None = None) -> list[Path]:
    """The Markdown pages of every ``lab-*`` folder, in a stable order.

    Walked without recursion and never through a link; a folder nested too deep is an :class:`InfralensError` naming it.
    *within*: a lab folder that is a link leading outside this folder (the project) is not entered (its
    caller reports it: ``validate`` through :func:`infralens.resolve.lab_checks.read_lab_pages`).
    """
    from infralens.bounds import FolderTooDeep, leads_outside, walk
    from infralens.errors import InfralensError

    if not labs_dir.is_dir():
        return []
    pages: list[Path] = []
    for lab in sorted(folder for folder in labs_dir.iterdir() if folder.is_dir() and folder.name.startswith("lab-")):
        if within is not None and leads_outside(lab, within):
            continue
        try:
            pages.extend(Path(where) / name for where, _, names in walk(lab) for name in names if Path(name).suffix == ".md")
        except FolderTooDeep as error:
            raise InfralensError(error.describe(str(lab))) from None
    return sorted(pages)
