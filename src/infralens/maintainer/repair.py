"""``infralens fix``: re-anchor drifted steps in the annotation YAML, and flag each one for review.

After ``check`` finds drift, every *moved* or *changed* step inside its (possibly moved or renamed)
target gets a new selector computed from the statement's text now (the same way ``add`` chooses
one), the target is rewritten when it moved, and each touched step gets ``review: <why>`` so
``validate`` and the site show that a human must re-read its note. A *deleted* step, or one that
left its target, stays as it is, flagged with the closest candidates. The YAML is edited in place
span by span, so comments, order and notes are kept; the result is loaded and resolved before it is
written, and nothing is written when it would not resolve. Then ``lock --update`` accepts it.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from infralens.annotations import SingleSelector
from infralens.drift import CheckReport, StepKind, StepResult, TargetKind
from infralens.errors import InfralensError
from infralens.maintainer.scaffold import plan_step
from infralens.maintainer.scaffold_yaml import selector_text
from infralens.project import Project, load_annotations
from infralens.resolve import Resolver
from infralens.source import Statement


@dataclass(frozen=True)
class StepFix:
    """What ``fix`` does to one step: a new ``at:`` (or none) and the review note it leaves."""

    step_id: str
    kind: StepKind
    selector: tuple[SingleSelector, ...]
    """The new ``at:``: one selector, or the first and last of a block; empty to leave the selector."""
    review: str


@dataclass(frozen=True)
class FileFix:
    """The edits to one annotation file: old and new text, and what was done."""

    path: Path
    old: str
    new: str
    steps: tuple[StepFix, ...]
    target: str | None
    """The new ``target:``, when the target moved or was renamed."""

    def diff(self, display: str) -> str:
        lines = difflib.unified_diff(self.old.splitlines(keepends=True), self.new.splitlines(keepends=True), f"a/{display}", f"b/{display}")
        return "".join(lines)


def plan_fixes(project: Project, resolver: Resolver, report: CheckReport) -> list[FileFix]:
    """The edits that re-anchor or flag every drifted step of ``report``, grouped by annotation file."""
    targets = {t.entry.id: t for t in report.targets}
    by_file: dict[str, list[tuple[str, StepResult]]] = {}
    for result in report.steps:
        if result.kind is not StepKind.UNCHANGED:
            by_file.setdefault(report.annotation_path(result.entry.annotation), []).append((result.entry.annotation, result))
    fixes = []
    for relative, results in sorted(by_file.items()):
        path = project.root / relative
        old = path.read_text("utf-8")
        new, steps, new_target = old, [], None
        for annotation_id in dict.fromkeys(a for a, _ in results):
            target = targets.get(annotation_id)
            moved_target = target is not None and target.kind in (TargetKind.MOVED, TargetKind.RENAMED) and target.new is not None
            qualname = target.new.target if moved_target and target is not None and target.new else None
            if moved_target and target is not None and target.new is not None:
                new_target = f"{target.new.module}.{target.new.target}"
            chosen = [_step_fix(resolver, result, qualname or result.entry.target) for a, result in results if a == annotation_id]
            new = rewrite(new, annotation_id, chosen, new_target)
            steps.extend(chosen)
        fixes.append(FileFix(path, old, new, tuple(steps), new_target))
    return fixes


def _step_fix(resolver: Resolver, result: StepResult, target: str) -> StepFix:
    entry, place = result.entry, result.new
    if result.kind in (StepKind.MOVED, StepKind.CHANGED) and place is not None and place.target == target:
        selector = _selector_for(resolver, entry.distribution, place.relpath, target, place.lines, len(entry.texts))
        was = " / ".join(entry.texts)
        verb = "moved" if result.kind is StepKind.MOVED else "changed upstream"
        return StepFix(entry.step_id, result.kind, selector, f"infralens fix: {verb}; re-anchored at {place.describe()} (was: {_clip(was)}); re-read the note")
    if place is not None:
        return StepFix(
            entry.step_id,
            result.kind,
            (),
            f"infralens fix: the statement left {target} for {place.describe()}; move the step to an annotation of that function",
        )
    candidates = "; ".join(c.place.describe() for c in result.candidates[:2])
    found = f" (closest: {candidates})" if candidates else ""
    return StepFix(
        entry.step_id, result.kind, (), f"infralens fix: {result.kind.value} upstream: {result.message}{found}; delete the step or re-anchor it by hand"
    )


def _clip(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _selector_for(resolver: Resolver, distribution: str, relpath: str, target: str, lines: tuple[int, int], count: int) -> tuple[SingleSelector, ...]:
    """Selectors that resolve to exactly the statements at ``lines`` inside ``target`` (first and last for a block)."""
    source = resolver.source_file(resolver.tree(distribution), relpath)
    index = resolver.index(source)
    definition = next((d for d in index.definitions if d.qualname == target and d.start_line <= lines[0] <= d.end_line), None)
    if definition is None:
        raise InfralensError(f"{relpath}:{lines[0]}: {target} is not there; re-anchor the step by hand")
    pool = index.statements_within(definition.start_line, definition.end_line)
    first = _statement_at(relpath, pool, lines[0])
    planned = plan_step(resolver, index, definition, pool, first, source.lines)
    if count == 1:
        return (planned.selector,)
    last = [s for s in pool if first.start_line <= s.start_line <= lines[1]][-1]
    return (planned.selector, plan_step(resolver, index, definition, pool, last, source.lines).selector)


def _render_selector(selectors: tuple[SingleSelector, ...], column: int) -> str:
    """The YAML after ``at:`` for ``selectors``, for an ``at`` key at ``column``."""
    inner = " " * column
    if len(selectors) == 1:
        return selector_text(selectors[0], inner)
    return f"\n{inner}  from:" + selector_text(selectors[0], inner + "  ") + f"{inner}  to:" + selector_text(selectors[1], inner + "  ")


def _statement_at(relpath: str, pool: tuple[Statement, ...], line: int) -> Statement:
    for statement in pool:
        if statement.start_line == line:
            return statement
    raise InfralensError(f"{relpath}:{line}: no statement starts there; re-anchor the step by hand")


# --------------------------------------------------------------------------
# Editing the YAML text
# --------------------------------------------------------------------------


def rewrite(text: str, annotation_id: str, fixes: list[StepFix], target: str | None) -> str:
    """``text`` with each fixed step's ``at:`` replaced and ``review:`` set, and ``target:`` when it moved."""
    mapping = _annotation_node(text, annotation_id)
    fields = {key.value: (key, value) for key, value in mapping.value if isinstance(key, yaml.ScalarNode)}
    loaded = load_annotations_text(text, annotation_id)
    by_id = {f.step_id: f for f in fixes}
    edits: list[tuple[int, int, str]] = []
    steps_node = fields["steps"][1]
    assert isinstance(steps_node, yaml.SequenceNode)
    for step, node in zip(loaded, steps_node.value, strict=True):
        fix = by_id.get(step)
        if fix is None or not isinstance(node, yaml.MappingNode):
            continue
        step_fields = {key.value: (key, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)}
        at_key, at_value = step_fields["at"]
        if fix.selector:
            edits.append(_replace_value(text, at_key, at_value, _render_selector(fix.selector, at_key.start_mark.column)))
        indent = " " * at_key.start_mark.column
        review = f"{indent}review: {json.dumps(fix.review, ensure_ascii=False)}\n"
        if "review" in step_fields:
            edits.append(_replace_value(text, *step_fields["review"], " " + json.dumps(fix.review, ensure_ascii=False)))
        else:
            position = _line_after(text, at_value)
            edits.append((position, position, review))
    if target is not None and "target" in fields:
        edits.append(_replace_value(text, *fields["target"], " " + target))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _replace_value(text: str, key: yaml.Node, value: yaml.Node, new: str) -> tuple[int, int, str]:
    """An edit replacing ``key``'s value, from just after its colon to the value's last character.

    ``new`` starts with a space (a value on the key's line) or a newline (a block on the lines below).
    """
    start = key.end_mark.index
    while start < len(text) and text[start] != ":":
        start += 1
    return start + 1, _value_end(text, value), new.rstrip("\n")


def _value_end(text: str, value: yaml.Node) -> int:
    """Where the value's text ends (a block node's end mark runs on to the next key's indentation)."""
    return len(text[: value.end_mark.index].rstrip())


def _line_after(text: str, value: yaml.Node) -> int:
    """The offset of the first line after ``value``."""
    newline = text.find("\n", _value_end(text, value))
    return len(text) if newline < 0 else newline + 1


def _annotation_node(text: str, annotation_id: str) -> yaml.MappingNode:
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    mappings = root.value if isinstance(root, yaml.SequenceNode) else [root]
    for mapping in mappings:
        if isinstance(mapping, yaml.MappingNode):
            ident = next((v for k, v in mapping.value if isinstance(k, yaml.ScalarNode) and k.value == "id"), None)
            if isinstance(ident, yaml.ScalarNode) and ident.value == annotation_id:
                return mapping
    raise InfralensError(f"annotation {annotation_id!r} is not in the file any more")


def load_annotations_text(text: str, annotation_id: str) -> list[str]:
    """The step ids of annotation ``annotation_id`` in ``text``, in YAML order."""
    from infralens.annotations import load_text

    result = load_text(text, "fix.yaml")
    for annotation in result.annotations:
        if annotation.id == annotation_id:
            return [annotation.step_id(step) for step in annotation.steps]
    raise InfralensError(f"annotation {annotation_id!r} does not load; run 'infralens validate' first")


def apply_fixes(project: Project, resolver: Resolver, fixes: list[FileFix]) -> None:
    """Write every fixed file, after checking that the re-anchored steps resolve; nothing is written otherwise."""
    for fix in fixes:
        fix.path.write_text(fix.new, "utf-8")
    try:
        loaded = load_annotations(project, [str(f.path) for f in fixes])
        errors = [d for d in loaded.diagnostics if d.severity.value == "error"]
        fixed = {s.step_id for f in fixes for s in f.steps if s.selector}
        for annotation in loaded.annotations:
            lines = {where.line for step in annotation.steps if annotation.step_id(step) in fixed for where in (step.location, step.at.location) if where}
            errors.extend(p for p in resolver.resolve_annotation(annotation)[1] if p.location.line in lines)
        if errors:
            raise InfralensError(f"the re-anchored YAML does not resolve ({errors[0]}); files left unchanged")
    except InfralensError:
        for fix in fixes:
            fix.path.write_text(fix.old, "utf-8")
        raise
