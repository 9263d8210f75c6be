"""``infralens fix --reviewed ID``: remove the ``review:`` marks of steps whose notes were re-read.

Only the ``review:`` line (and the lines its value continues on) is removed; comments, layout and every other
key stay as they were. The edited text is loaded again and must give the same annotations with those marks
gone, or nothing is written. Files are written through :mod:`infralens.userfiles`, all or none.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from infralens.annotations import Annotation, Step, load_text
from infralens.errors import InfralensError
from infralens.project import Project, load_annotations
from infralens.userfiles import FileChange, project_writes, write_together


@dataclass(frozen=True)
class Cleared:
    """The steps of one file whose marks were removed."""

    path: str
    step_ids: tuple[str, ...]


def clear_reviews(project: Project, ids: Collection[str], *, dry_run: bool = False) -> list[Cleared]:
    """Remove the ``review:`` marks of ``ids`` (annotation ids: all their steps; ``annotation/step``: one step)."""
    loaded = load_annotations(project)
    by_id = {a.id: a for a in loaded.annotations}
    chosen: dict[str, set[str]] = {}
    for item in ids:
        annotation_id, _, step_key = item.partition("/")
        annotation = by_id.get(annotation_id)
        if annotation is None or (step_key and step_key not in {s.key for s in annotation.steps}):
            raise InfralensError(f"{item}: no such annotation or step (ids are annotation ids or annotation/step ids)")
        marked = {s.key for s in annotation.steps if s.review and (not step_key or s.key == step_key)}
        if not marked:
            raise InfralensError(f"{item}: no step here is marked 'review:'; nothing to clear")
        chosen.setdefault(annotation.path, set()).update(f"{annotation_id}/{key}" for key in marked)
    changes: list[FileChange] = []
    done: list[Cleared] = []
    for path, step_ids in sorted(chosen.items()):
        file = project.root / path
        old = file.read_text("utf-8")
        annotations = [a for a in loaded.annotations if a.path == path]
        new = _without_marks(old, path, annotations, step_ids)
        changes.append(FileChange(file, new, old))
        done.append(Cleared(path, tuple(sorted(step_ids))))
    if not dry_run:
        with project_writes(project.lock_path, project.root) as journal:  # the writer lock; a write of several files is journaled
            write_together(changes, what="annotation file", within=project.root, journal=journal)
    return done


def _without_marks(text: str, path: str, annotations: list[Annotation], step_ids: set[str]) -> str:
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for annotation in annotations:
        starts = sorted((s.location.line if s.location else 0) for s in annotation.steps)
        for step in annotation.steps:
            if annotation.step_id(step) in step_ids:
                drop |= _mark_lines(lines, step, starts, path)
    new = "".join(line for number, line in enumerate(lines, 1) if number not in drop)
    expected = [_cleared(a, step_ids) for a in annotations]
    again = load_text(new, path)
    if list(again.annotations) != expected:
        raise InfralensError(f"{path}: removing the 'review:' lines would change more than the marks; nothing was written — remove them by hand")
    return new


def _cleared(annotation: Annotation, step_ids: set[str]) -> Annotation:
    steps = tuple(replace(s, review=None) if annotation.step_id(s) in step_ids else s for s in annotation.steps)
    return replace(annotation, steps=steps)


def _mark_lines(lines: list[str], step: Step, starts: list[int], path: str) -> set[int]:
    """The line numbers of the step's ``review:`` key and of the lines its value continues on."""
    where = step.location
    if where is None:
        raise InfralensError(f"{path}: step {step.key!r} has no position; remove its 'review:' line by hand")
    indent = where.col - 1
    end = next((line for line in starts if line > where.line), len(lines) + 1)
    for number in range(where.line, min(end, len(lines) + 1)):
        line = lines[number - 1]
        if _indent(line) == indent and line[indent:].startswith("review:"):  # a key of the step's mapping (not its first)
            found = {number}
            for after in range(number + 1, len(lines) + 1):
                text = lines[after - 1]
                if text.strip() and _indent(text) <= indent:
                    break
                found.add(after)
            while max(found) > number and not lines[max(found) - 1].strip():
                found.discard(max(found))  # blank lines before the next key are not the value's
            return found
    raise InfralensError(f"{path}:{where.line}: step {step.key!r}: cannot find its 'review:' line; remove it by hand")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def describe(cleared: list[Cleared]) -> list[str]:
    """One line per step cleared, for the command's output."""
    return [f"{item.path}: {step_id}: review: removed" for item in cleared for step_id in item.step_ids]


def mark_reviewed(ids: tuple[str, ...], dry_run: bool, open_context: Callable[[], tuple[Project, object]]) -> int:
    """What ``infralens fix --reviewed IDS`` does: clear the marks, say which, and what to run next."""
    from infralens.commands import EXIT_OK, EXIT_USAGE, say

    if not ids:
        say("infralens: error: fix --reviewed needs the annotation or step ids whose notes were re-read", error=True)
        return EXIT_USAGE
    project, _resolver = open_context()
    cleared = clear_reviews(project, ids, dry_run=dry_run)
    for line in describe(cleared):
        say(line + (" (dry run: nothing written)" if dry_run else ""))
    if not dry_run:
        say(f"next: infralens lock --update {' '.join(ids)}")
    return EXIT_OK
