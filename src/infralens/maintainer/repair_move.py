"""Moving a step's note when upstream moved its statement into a function the target calls.

The step's own YAML (note, expects, key, scenario, an earlier review) is cut from its annotation and
appended to the annotation of the function the statement is in now — an existing one, or a new file
``annotations/<dist>/<slug>.yaml`` in the same lab — with a selector that finds the statement there and
``review:`` saying where it came from. A step that cannot move safely (flow-style YAML, the last step of
its annotation, a key the other annotation already uses) stays where it is, flagged, and is listed.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from infralens.annotations import Annotation, BlockSelector, Selector, SingleSelector, Step, selector_key
from infralens.drift import Place
from infralens.errors import InfralensError
from infralens.maintainer.repair_step import REVIEW_PREFIX, StepFix, edit_step_node, selector_for, still_selects
from infralens.maintainer.repair_yaml import YamlFile, next_line, quoted, read_user_text, value_end
from infralens.maintainer.scaffold_yaml import slug_for
from infralens.project import Project, load_annotations
from infralens.resolve import Resolver

_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class MoveRequest:
    """Move step ``index`` of annotation ``annotation_id`` (in ``path``) to an annotation of ``fix.moved_to``."""

    path: Path
    annotation_id: str
    index: int
    fix: StepFix
    place: Place


@dataclass(frozen=True)
class MovePlan:
    fixes: tuple[tuple[Path, StepFix], ...] = ()
    """What was done to each requested step, by the file it was in."""
    expected: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    """Step id in its new annotation → where its statement is."""
    created: tuple[YamlFile, ...] = ()
    not_moved: tuple[str, ...] = ()


@dataclass(frozen=True)
class _NewFile:
    """An annotation file being made for a function that had none."""

    annotation_id: str
    data: dict[str, Any]
    header: list[str]
    steps: list[str] = field(default_factory=list)


def plan_moves(project: Project, resolver: Resolver, docs: dict[Path, YamlFile], requests: list[MoveRequest]) -> MovePlan:
    if not requests:
        return MovePlan()
    everything = load_annotations(project).annotations
    used_ids = {a.id for a in everything}
    moving = Counter((r.path, r.annotation_id) for r in requests)
    fixes: list[tuple[Path, StepFix]] = []
    expected: dict[str, tuple[str, int, int]] = {}
    not_moved: list[str] = []
    new_files: dict[str, _NewFile] = {}
    added_keys: dict[str, set[str]] = {}
    originals = {(r.path, r.annotation_id): list(docs[r.path].annotation(r.annotation_id)[1]["steps"]) for r in requests}
    for request in requests:
        doc = docs[request.path]
        annotation = next(a for a in (doc.loaded.annotations if doc.loaded else ()) if a.id == request.annotation_id)
        sequence = doc.steps(request.annotation_id)
        node = sequence.value[request.index]
        _, owner = doc.annotation(request.annotation_id)
        step_data = originals[(request.path, request.annotation_id)][request.index]
        step = next(s for s in annotation.steps if annotation.step_id(s) == request.fix.step_id)
        destination = _destination(everything, annotation, request.fix.moved_to or "")
        reason = None
        try:
            keep = still_selects(resolver, annotation.source, request.place, step.at)
            selector = () if keep else selector_for(resolver, annotation.source, request.place, len(request.place.texts))
        except InfralensError as error:
            selector, reason = (), str(error)
        key = str(step_data.get("key") or selector_key(_as_selector(selector, step)))
        target_id = destination.id if destination else ""
        taken = added_keys.setdefault(request.fix.moved_to or "", {s.key for s in destination.steps} if destination else set())
        chunk = _chunk(doc, sequence, request.index)
        if reason is None:
            reason = _refusal(request, annotation, chunk is None, moving[(request.path, request.annotation_id)] >= len(annotation.steps), key, taken)
        dest_doc = None
        if reason is None and destination is not None:
            dest_doc = _doc(docs, project, destination)
            if dest_doc.steps(destination.id).flow_style:
                reason = f"the steps of {destination.id} are written in flow style"
        if reason is not None:
            moving[(request.path, request.annotation_id)] -= 1
            flagged = StepFix(
                request.fix.step_id,
                request.fix.kind,
                (),
                f"{REVIEW_PREFIX} the statement moved into {request.place.describe()}; move this step to an annotation of that function by hand",
            )
            edit_step_node(doc, node, step_data, flagged)
            fixes.append((request.path, flagged))
            not_moved.append(f"{doc.where(node)}: step {request.fix.step_id} was not moved: {reason}; move it by hand")
            continue
        assert chunk is not None
        start, end, _, text = chunk
        moved_fix = replace(request.fix, selector=selector)
        moved_text, moved_data = _edited_step(doc, text, step_data, moved_fix)
        doc.remove(start, end)
        owner["steps"] = [s for s in owner["steps"] if s is not step_data]
        taken.add(key)
        if destination is not None and dest_doc is not None:
            _append_step(dest_doc, destination.id, moved_text, moved_data)
        else:
            pending = new_files.get(request.fix.moved_to or "")
            if pending is None:
                pending = _new_file(project, annotation, owner, request, used_ids)
                new_files[request.fix.moved_to or ""] = pending
            pending.steps.append(_indented(moved_text, 2))
            pending.data["steps"].append(moved_data)
            target_id = pending.annotation_id
        fixes.append((request.path, moved_fix))
        expected[f"{target_id}/{key}"] = (request.place.relpath, request.place.lines[0], request.place.lines[1])
    created = tuple(_created(project, pending) for pending in new_files.values())
    return MovePlan(tuple(fixes), expected, created, tuple(not_moved))


def _refusal(request: MoveRequest, annotation: Annotation, flow: bool, last: bool, key: str, taken: set[str]) -> str | None:
    """Why the step cannot move (None: it can): written in flow style, the last step left, or its key taken there."""
    if flow:
        return "the step is written in flow style ({...} or [...])"
    if last:
        return f"it is the last step of {annotation.id}"
    if key in taken:
        return f"the annotation of {request.fix.moved_to} already has a step with key {key!r}"
    return None


def _append_step(dest_doc: YamlFile, destination_id: str, moved_text: str, moved_data: dict[str, Any]) -> None:
    """Append a moved step's text and data after the last step of the existing annotation *destination_id*."""
    dest_sequence = dest_doc.steps(destination_id)
    at = next_line(dest_doc.text, value_end(dest_doc.text, dest_sequence.value[-1]))
    insert = _indented(moved_text, dest_sequence.start_mark.column)
    if at == len(dest_doc.text) and not dest_doc.text.endswith(("\n", "\r")):
        insert = "\n" + insert.rstrip("\n")
    dest_doc.insert(at, insert)
    dest_doc.annotation(destination_id)[1]["steps"].append(moved_data)


def _destination(everything: tuple[Annotation, ...], annotation: Annotation, dotted: str) -> Annotation | None:
    same = sorted((a for a in everything if a.target == dotted and a.source == annotation.source), key=lambda a: a.id)
    return same[0] if same else None


def _as_selector(selector: tuple[SingleSelector, ...], step: Step) -> Selector:
    if not selector:
        return step.at
    return selector[0] if len(selector) == 1 else BlockSelector(selector[0], selector[1])


def _doc(docs: dict[Path, YamlFile], project: Project, annotation: Annotation) -> YamlFile:
    path = project.root / annotation.path if not Path(annotation.path).is_absolute() else Path(annotation.path)
    if path not in docs:
        display = project.relative(path)
        docs[path] = YamlFile(path, display, read_user_text(path, display))
    return docs[path]


def _chunk(doc: YamlFile, sequence: yaml.SequenceNode, index: int) -> tuple[int, int, int, str] | None:
    """The step's lines (``start``, ``end``, dash column, text at column 0 with ``\\n`` line ends); None for flow style."""
    node = sequence.value[index]
    if sequence.flow_style or node.flow_style:
        return None
    text = doc.text
    begin = node.start_mark.index
    line_start = max(text.rfind("\n", 0, begin), text.rfind("\r", 0, begin)) + 1
    prefix = text[line_start:begin]
    if not re.fullmatch(r"[ \t]*-[ \t]+", prefix):
        return None
    dash = prefix.index("-")
    end = next_line(text, value_end(text, node))
    lines = _BREAK.split(text[line_start:end])
    body = "\n".join(line[dash:] if not line[:dash].strip() else line.lstrip() for line in lines)
    return line_start, end, dash, body if body.endswith("\n") else body + "\n"


def _edited_step(doc: YamlFile, text: str, data: dict[str, Any], fix: StepFix) -> tuple[str, dict[str, Any]]:
    """The step's text and data with its new ``at:`` and ``review:``."""
    piece = YamlFile(doc.path, f"{doc.display} (the step moving out)", text)
    piece_data = piece.data[0] if isinstance(piece.data, list) and piece.data else None
    if not isinstance(piece.root, yaml.SequenceNode) or piece_data != data:
        raise InfralensError(f"{doc.display}: step {fix.step_id} could not be cut out whole; nothing was written — move it by hand")
    edit_step_node(piece, piece.root.value[0], piece_data, fix)
    return piece.edited(), copy.deepcopy(piece_data)


def _indented(text: str, column: int) -> str:
    pad = " " * column
    return "".join((pad + line if line.strip() else line) + "\n" for line in text.rstrip("\n").split("\n"))


def _new_file(project: Project, annotation: Annotation, owner: dict[str, Any], request: MoveRequest, used: set[str]) -> _NewFile:
    dotted = request.fix.moved_to or ""
    base = slug_for(request.place.target)
    folder = project.annotations_dir / annotation.source
    annotation_id, number = base, 1
    while annotation_id in used or (folder / f"{annotation_id}.yaml").exists():
        number += 1
        annotation_id = f"{base}-{number}"
    used.add(annotation_id)
    summary = f"TODO: say in one or two sentences what {request.place.target} does and why the lab reads it."
    data: dict[str, Any] = {"id": annotation_id, "lab": annotation.lab, "source": annotation.source, "target": dotted, "summary": summary}
    header = [
        f"# {request.place.target}: steps moved here by 'infralens fix' from {annotation.id}, whose statements upstream moved into this function.",
        "# Write the summary, re-read each note marked 'review:', then: infralens validate, infralens lock --update.",
        f"id: {annotation_id}",
        f"lab: {annotation.lab}",
        f"source: {annotation.source}",
        f"target: {dotted}",
        f"summary: {quoted(summary)}",
    ]
    if isinstance(owner.get("scenario"), str):
        data["scenario"] = owner["scenario"]
        header.append(f"scenario: {quoted(owner['scenario'])}")
    data["steps"] = []
    return _NewFile(annotation_id, data, header)


def _created(project: Project, pending: _NewFile) -> YamlFile:
    path = project.annotations_dir / str(pending.data["source"]) / f"{pending.annotation_id}.yaml"
    text = "\n".join([*pending.header, "steps:"]) + "\n" + "".join(pending.steps)
    created = YamlFile(path, project.relative(path), text)
    created.created = True
    created.data = pending.data
    return created
