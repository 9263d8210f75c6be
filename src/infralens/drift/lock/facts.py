"""Facts about statements that let the drift checker re-find them: context and fingerprints.

The same functions build lock entries (from the reviewed sources) and describe
candidates (in the sources being checked), so both sides are measured alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from infralens.drift.lock.entries import CONTEXT_SIZE, AnnotationLock, LockEntry, StepLock, short_hash, text_hash
from infralens.resolve import ResolvedAnnotation
from infralens.source import Definition, ModuleIndex, SourceFile, Statement


def header_of(index: ModuleIndex, definition: Definition) -> Statement | None:
    """The ``def``/``class`` header statement of ``definition``."""
    for statement in index.statements_starting(definition.def_line):
        if statement.text.startswith(("def ", "async ", "class ")):
            return statement
    return None


def body_of(index: ModuleIndex, definition: Definition) -> tuple[Statement, ...]:
    """Statements inside ``definition`` after its header (nested statements included)."""
    header = header_of(index, definition)
    after = header.header_end_line if header else definition.def_line
    return tuple(s for s in index.statements_within(definition.start_line, definition.end_line) if s.start_line > after)


def enclosing_definitions(index: ModuleIndex, statement: Statement) -> list[Definition]:
    """Definitions whose body holds ``statement``, innermost first."""
    found = []
    for definition in index.definitions:
        if definition.start_line <= statement.start_line and statement.end_line <= definition.end_line:
            if statement.start_line <= definition.def_line:
                continue  # the statement is this definition's own header or decorator
            found.append(definition)
    found.sort(key=lambda d: d.end_line - d.start_line)
    return found


@dataclass(frozen=True)
class Surroundings:
    """Where a statement sits: its innermost definition, neighbours and that definition's fingerprint."""

    definition: Definition | None
    before: tuple[str, ...]
    after: tuple[str, ...]
    function_sha256: str


def surroundings(index: ModuleIndex, first: Statement, last: Statement | None = None) -> Surroundings:
    """Context of a statement (or of a block from ``first`` to ``last``)."""
    last = last or first
    definitions = enclosing_definitions(index, first)
    definition = definitions[0] if definitions else None
    pool = body_of(index, definition) if definition else tuple(s for s in index.statements if s.scope == "")
    positions = {id(s): n for n, s in enumerate(pool)}
    start = positions.get(id(first))
    end = positions.get(id(last), start)
    if start is None or end is None:
        return Surroundings(definition, (), (), text_hash(s.text for s in pool))
    before = tuple(s.text for s in pool[max(0, start - CONTEXT_SIZE) : start])
    after = tuple(s.text for s in pool[end + 1 : end + 1 + CONTEXT_SIZE])
    return Surroundings(definition, before, after, text_hash(s.text for s in pool))


def definition_facts(source: SourceFile, index: ModuleIndex, definition: Definition) -> dict[str, Any]:
    """The fields of an :class:`AnnotationLock` that the target's definition and its file decide (a lock's entry, and the
    same entry moved to another release by a walk)."""
    return {
        "relpath": source.relpath,
        "target": definition.qualname,
        "kind": definition.kind,
        "span": (definition.start_line, definition.end_line),
        "body_sha256": text_hash(s.text for s in body_of(index, definition)),
        "body": body_hashes(index, definition),
        "source_sha256": source.sha256,
        "decorators": definition.decorators,
    }


def body_hashes(index: ModuleIndex, definition: Definition) -> tuple[str, ...]:
    return tuple(short_hash(s.text) for s in body_of(index, definition))


def jaccard(left: tuple[str, ...] | set[str], right: tuple[str, ...] | set[str]) -> float:
    a, b = set(left), set(right)
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def occurrence_in(pool: tuple[Statement, ...], statement: Statement) -> int:
    """1-based rank of ``statement`` among statements of the same text in ``pool``."""
    same = [s for s in pool if s.text == statement.text]
    for rank, item in enumerate(same, 1):
        if item is statement:
            return rank
    return 1


def entries_for(resolved: ResolvedAnnotation, index: ModuleIndex, annotation_path: str, annotation_sha256: str) -> list[LockEntry]:
    """Lock entries (the annotation's, then one per step) for a resolved annotation."""
    annotation = resolved.annotation
    source: SourceFile = resolved.target.source
    definition = resolved.target.definition
    target_pool = index.statements_within(definition.start_line, definition.end_line)
    steps: list[StepLock] = []
    for resolved_step in resolved.steps:
        statements = resolved_step.statements
        around = surroundings(index, statements[0], statements[-1])
        step = resolved_step.step
        where = step.at.location or step.location
        steps.append(
            StepLock(
                step_id=annotation.step_id(step),
                annotation=annotation.id,
                yaml_line=where.line if where else 1,
                distribution=source.distribution,
                version=source.version,
                relpath=source.relpath,
                module=resolved.target.module,
                target=definition.qualname,
                scope=statements[0].scope,
                lines=(statements[0].start_line, statements[-1].end_line),
                texts=tuple(s.text for s in statements),
                text_sha256=text_hash(s.text for s in statements),
                before=around.before,
                after=around.after,
                function_sha256=around.function_sha256,
                file_sha256=source.sha256,
                occurrence=occurrence_in(target_pool, statements[0]),
                copies=sum(1 for s in target_pool if s.text == statements[0].text),
                review=step.review or "",
            )
        )
    where = annotation.location
    head = AnnotationLock(
        id=annotation.id,
        path=annotation_path,
        yaml_line=where.line if where else 1,
        file_sha256=annotation_sha256,
        distribution=source.distribution,
        version=source.version,
        module=resolved.target.module,
        **definition_facts(source, index, definition),
        steps=tuple(s.step_id for s in steps),
    )
    return [head, *steps]
