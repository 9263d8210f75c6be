"""What a reader sees for one annotated definition, independent of the output format.

Both the terminal renderer and the Sphinx extension build their output from
:class:`FunctionView`, so they agree on which lines carry which notes.
"""

from __future__ import annotations

from dataclasses import dataclass

from infralens.resolve import ResolvedAnnotation, ResolvedStep
from infralens.source import Definition, SourceFile


@dataclass(frozen=True)
class NoteView:
    """One note and the real lines it sits beside."""

    annotation_id: str
    step_id: str
    lab: str | None
    note: str
    first_line: int
    last_line: int
    span_end_line: int
    """Last line of the selected statements (the whole block for compound ones)."""
    expect: tuple[str, ...] = ()
    static: str | None = None
    review: str | None = None
    """The step's ``review:`` mark: the note waits for a re-read against the code."""


@dataclass(frozen=True)
class FunctionView:
    """A definition's real lines with the notes that belong beside them."""

    source: SourceFile
    definition: Definition
    notes: tuple[NoteView, ...]

    @property
    def first_line(self) -> int:
        return self.definition.start_line

    @property
    def last_line(self) -> int:
        return self.definition.end_line

    def code_lines(self) -> list[tuple[int, str]]:
        lines = self.source.lines
        return [(n, lines[n - 1] if n - 1 < len(lines) else "") for n in range(self.first_line, self.last_line + 1)]

    def notes_starting_at(self) -> dict[int, list[NoteView]]:
        by_line: dict[int, list[NoteView]] = {}
        for note in self.notes:
            by_line.setdefault(note.first_line, []).append(note)
        return by_line

    def marked_lines(self) -> set[int]:
        marked: set[int] = set()
        for note in self.notes:
            marked.update(range(note.first_line, note.last_line + 1))
        return marked


def note_view(resolved: ResolvedAnnotation, step: ResolvedStep) -> NoteView:
    first, last = step.anchor_lines
    return NoteView(
        annotation_id=resolved.annotation.id,
        step_id=resolved.annotation.step_id(step.step),
        lab=resolved.annotation.lab,
        note=step.step.note.strip(),
        first_line=first,
        last_line=last,
        span_end_line=step.end_line,
        expect=step.step.expect,
        static=step.step.static,
        review=step.step.review,
    )


def function_view(source: SourceFile, definition: Definition, annotations: list[ResolvedAnnotation]) -> FunctionView:
    """Collect the notes of every annotation of ``definition`` in line order."""
    notes = [note_view(resolved, step) for resolved in annotations for step in resolved.steps]
    notes.sort(key=lambda n: (n.first_line, n.annotation_id))
    return FunctionView(source, definition, tuple(notes))
