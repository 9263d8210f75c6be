"""Render a :class:`~infralens.render.view.FunctionView` for a terminal with pygments.

The whole file is lexed once (so multi-line strings highlight correctly) and
then cut into real lines; notes are wrapped beside their first line, or under
it when the code line is too wide.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from pygments import format as pygments_format
from pygments.formatters import TerminalFormatter
from pygments.lexers import PythonLexer
from pygments.token import Token

from infralens.errors import escaped, neutralised, printable_line
from infralens.render.view import FunctionView, NoteView
from infralens.source import split_lines

if TYPE_CHECKING:
    from pygments.token import _TokenType


def visible(text: str) -> str:
    """Control and format characters as escapes (``\\x1b``, ``\\u202e``), so notes or upstream text cannot drive
    the terminal or reorder, hide or join what it shows (bidirectional overrides, zero-width characters); the
    one escape of :func:`infralens.errors.printable`, applied to a token or a line; each drawn line is then
    :func:`~infralens.errors.neutralised`, so none can start a workflow command."""
    return escaped(text)


MARK = "▶"
GUTTER = " │ "


def highlighted_lines(text: str, color: bool) -> list[str]:
    """Each line of ``text``, highlighted for a terminal when ``color`` is set."""
    if not color:
        return [visible(line) for line in split_lines(text)]
    lexer = PythonLexer(stripnl=False, ensurenl=False)
    formatter = TerminalFormatter()
    lines: list[list[tuple[_TokenType, str]]] = [[]]
    for token_type, value in lexer.get_tokens(text):
        pieces = value.split("\n")
        for index, piece in enumerate(pieces):
            if index:
                lines.append([])
            if piece:
                lines[-1].append((token_type, visible(piece)))
    return [pygments_format(tokens or [(Token.Text, "")], formatter) for tokens in lines]


def render(view: FunctionView, *, color: bool = False, width: int = 160, code_width: int = 88) -> str:
    """The definition's real lines with real numbers and notes beside the annotated lines."""
    source, definition = view.source, view.definition
    where = f"{source.relpath}:{view.first_line}-{view.last_line}"
    out = [printable_line(f"{source.distribution} {source.version} · {where} · {definition.kind.value} {definition.qualname}")]  # from upstream metadata
    all_lines = highlighted_lines(source.text, color)
    plain = source.lines
    number_width = len(str(view.last_line))
    notes_at = view.notes_starting_at()
    marked = view.marked_lines()
    note_width = max(24, width - number_width - len(GUTTER) - code_width - 4)
    for number in range(view.first_line, view.last_line + 1):
        raw = visible(plain[number - 1]) if number - 1 < len(plain) else ""
        shown = all_lines[number - 1] if number - 1 < len(all_lines) else raw
        mark = MARK if number in marked else " "
        prefix = f"{number:>{number_width}}{mark}{GUTTER.lstrip()}"
        notes = notes_at.get(number, [])
        if not notes:
            out.append(prefix + shown)
            continue
        wrapped = [line for note in notes for line in _note_lines(note.annotation_id, note.note, note_width)]
        if len(raw.expandtabs()) <= code_width:
            padding = " " * (code_width - len(raw.expandtabs()))
            out.append(f"{prefix}{shown}{padding}  {wrapped[0]}")
            continue_prefix = " " * number_width + " " + GUTTER.lstrip() + " " * code_width + "  "
            out.extend(continue_prefix + line for line in wrapped[1:])
        else:
            out.append(prefix + shown)
            indent = " " * (number_width + 1) + GUTTER.lstrip() + "    "
            out.extend(indent + line for line in _note_lines_full(notes, width - len(indent)))
    return "\n".join(neutralised(line) for line in out) + "\n"  # colour codes stay; a wrapped note cannot start a command


def _note_lines(annotation_id: str, note: str, width: int) -> list[str]:
    lines: list[str] = []
    annotation_id = visible(annotation_id)
    for paragraph in paragraphs(visible(note)):
        lines.extend(textwrap.wrap(paragraph, width - 2) or [""])
    lines = lines or [""]
    lines[0] = f"◀ {lines[0]}"
    return [lines[0]] + ["  " + line for line in lines[1:]] + [f"  [{annotation_id}]"]


def paragraphs(note: str) -> list[str]:
    """Reflow a note: lines of one paragraph are joined; blank lines separate paragraphs."""
    blocks = [" ".join(line.strip() for line in block.splitlines()) for block in note.strip().split("\n\n")]
    return [block for block in blocks if block] or [""]


def _note_lines_full(notes: list[NoteView], width: int) -> list[str]:
    return [line for note in notes for line in _note_lines(note.annotation_id, note.note, max(24, width))]
