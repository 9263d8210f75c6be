"""``infralens fix``: re-anchor drifted steps in the annotation YAML, and flag what a person must re-read.

After ``check`` finds drift, each annotation is handled on its own: a target that moved or was renamed
gets its new ``target:`` (and the lab pages and the concept map that name it follow, see
:mod:`.repair_labs`); a *moved* or *changed* step inside the target keeps its selector when that still
finds the statement, else gets one computed the way ``add`` chooses one; only a statement whose text
changed gets ``review: <why>``; a statement that moved into a function the target calls takes its step
(note, expects, keys) into an annotation of that function (:mod:`.repair_move`); a *deleted* step stays,
flagged with the closest candidates. The files are edited span by span (:mod:`.repair_yaml`), checked
to read back exactly as intended (:mod:`.repair_check`), and written together or not at all, compared and
replaced under the project's writer lock, with a journal that lets the next command finish a killed run.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from infralens.annotations import Annotation, BlockSelector, ExactSelector, Selector, SingleSelector, Step
from infralens.drift import CheckReport, Place, StepKind, StepResult, TargetKind, TargetResult
from infralens.errors import InfralensError, ResolutionError
from infralens.maintainer.repair_text import readable, source_text
from infralens.maintainer.repair_yaml import YamlFile, block_selector, fields_of, flow_selector, quoted, read_user_text, selector_data
from infralens.maintainer.scaffold import plan_step
from infralens.maintainer.scaffold_yaml import refuse_read_only
from infralens.portable import portable
from infralens.project import Project
from infralens.resolve import Resolver
from infralens.source import Definition, ModuleIndex, SourceFile, Statement
from infralens.userfiles import FileChange, finish_interrupted, journal_for, project_writes, write_together, writer_lock

REVIEW_PREFIX = "infralens fix:"


@dataclass(frozen=True)
class StepFix:
    """What ``fix`` does to one step."""

    step_id: str
    kind: StepKind
    selector: tuple[SingleSelector, ...]
    """The new ``at:``: one selector, or the first and last of a block; empty to keep the selector."""
    review: str | None
    """The ``review:`` it sets; ``None`` when nothing a person must re-read changed."""
    moved_to: str | None = None
    """The target of the annotation the step moves to (its statement moved into a function the target calls)."""
    found: bool = False
    """The statement was found (in the target, or where it moved): the step is anchored to it."""

    @property
    def action(self) -> str:
        if self.moved_to:
            return f"moved to an annotation of {self.moved_to}"
        if self.selector:
            return "re-anchored"
        if self.found:
            return "selector still finds it" if self.review else "kept (the statement is unchanged)"
        return "flagged"


@dataclass(frozen=True)
class FileFix:
    """The edits to one file: old and new text, and what was done."""

    path: Path
    display: str
    old: str
    new: str
    steps: tuple[StepFix, ...] = ()
    targets: tuple[tuple[str, str], ...] = ()
    """``(annotation id, new target)`` for every annotation whose target moved or was renamed."""
    created: bool = False

    def diff(self) -> str:
        old = "" if self.created else f"a/{self.display}"
        lines = difflib.unified_diff(self.old.splitlines(keepends=True), self.new.splitlines(keepends=True), old or "/dev/null", f"b/{self.display}")
        return "".join(lines)


@dataclass(frozen=True)
class Repair:
    """Everything ``fix`` would write, and the places it found but could not rewrite (``file:line: why``)."""

    files: tuple[FileFix, ...]
    not_rewritten: tuple[str, ...] = ()
    project: Project | None = None
    """The project written: its writer lock and journal guard the write, and links may lead only inside it."""


@dataclass(frozen=True)
class _Context:
    """One annotation being fixed: its file, its loaded form, and where its target is now."""

    doc: YamlFile
    annotation: Annotation
    qualname: str
    """The target's qualname now (after a move or rename)."""
    target_result: TargetResult | None


def plan_fixes(project: Project, resolver: Resolver, report: CheckReport, *, move_notes: bool = True) -> Repair:
    """The edits that re-anchor or flag every drifted step of ``report``, and follow moved targets."""
    from infralens.maintainer.repair_check import check_edited, check_resolves
    from infralens.maintainer.repair_labs import follow_renames
    from infralens.maintainer.repair_move import MoveRequest, plan_moves

    _finish_interrupted(project)
    targets = {t.entry.id: t for t in report.targets}
    results: dict[str, list[StepResult]] = {}
    for result in report.steps:
        if result.kind is not StepKind.UNCHANGED:
            results.setdefault(result.entry.annotation, []).append(result)
    for target in report.targets:
        if target.kind in (TargetKind.MOVED, TargetKind.RENAMED) and target.new is not None:
            results.setdefault(target.entry.id, [])
    docs: dict[Path, YamlFile] = {}
    steps: dict[Path, list[StepFix]] = {}
    renamed: dict[Path, list[tuple[str, str]]] = {}
    expected: dict[str, tuple[str, int, int]] = {}
    moves: list[MoveRequest] = []
    left: list[str] = []
    renames: dict[str, str] = {}
    for annotation_id in sorted(results):
        relative = report.annotation_path(annotation_id)
        path = project.root / relative
        if path not in docs:
            docs[path] = YamlFile(path, relative, read_user_text(path, relative))
        doc = docs[path]
        annotation = _loaded(doc, annotation_id)
        node, data = doc.annotation(annotation_id)
        target_result = targets.get(annotation_id)
        qualname = _qualname(annotation, results[annotation_id], target_result)
        if target_result is not None and target_result.kind in (TargetKind.MOVED, TargetKind.RENAMED) and target_result.new is not None:
            new_target = f"{target_result.new.module}.{target_result.new.target}"
            if new_target != annotation.target:
                key, value = fields_of(node)["target"]
                written = quoted(new_target) if doc.text[value.start_mark.index : value.start_mark.index + 1] in ("'", '"') else new_target
                doc.replace_value(key, value, written, None, flow=node.flow_style, what=f"the target of {annotation_id}")
                data["target"] = new_target
                renamed.setdefault(path, []).append((annotation_id, new_target))
                renames[annotation.target] = new_target
        context = _Context(doc, annotation, qualname, target_result)
        by_id = {annotation.step_id(s): s for s in annotation.steps}
        for result in results[annotation_id]:
            step = by_id.get(result.entry.step_id)
            if step is None:
                left.append(f"{relative}: step {result.entry.step_id} is in the lock but not in the file; run 'infralens lock --update'")
                continue
            try:
                fix = _decide(resolver, context, step, result, move_notes=move_notes)
            except InfralensError as error:  # the statement is not where drift placed it: flag the step, say where
                fix = StepFix(
                    result.entry.step_id, result.kind, (), f"{REVIEW_PREFIX} {result.kind.value} upstream, not re-anchored ({error}); re-anchor it by hand"
                )
                left.append(f"{relative}:{step.location.line if step.location else 1}: step {result.entry.step_id} was not re-anchored: {error}")
            if fix.moved_to and result.new is not None:
                moves.append(MoveRequest(path, annotation_id, _step_index(doc, annotation_id, step), fix, result.new))
                continue
            _edit_step(doc, annotation_id, step, fix)
            steps.setdefault(path, []).append(fix)
            if fix.selector and result.new is not None:
                expected[fix.step_id] = (result.new.relpath, result.new.lines[0], result.new.lines[1])
    moved = plan_moves(project, resolver, docs, moves)
    for path, fix in moved.fixes:
        steps.setdefault(path, []).append(fix)
    expected.update(moved.expected)
    files: list[FileFix] = []
    for path, doc in sorted(docs.items()):
        edited = doc.edited()
        if edited != doc.original:
            annotations = check_edited(doc, edited)
            check_resolves(doc, edited, resolver, annotations, expected)
        if edited != doc.original or steps.get(path):
            files.append(FileFix(path, doc.display, doc.original, edited, tuple(steps.get(path, ())), tuple(renamed.get(path, ()))))
    for created in moved.created:
        annotations = check_edited(created, created.text)
        check_resolves(created, created.text, resolver, annotations, expected)
        files.append(FileFix(created.path, created.display, "", created.text, (), (), created=True))
    labs = follow_renames(project, renames)
    files.extend(FileFix(change.path, project.relative(change.path), change.old or "", change.new) for change in labs.changes)
    return Repair(tuple(files), (*left, *moved.not_moved, *labs.not_rewritten), project)


def _finish_interrupted(project: Project) -> None:
    """An earlier fix killed between its replaces is completed or rolled back first; then this one must start over."""
    with writer_lock(project.lock_path):
        if finish_interrupted(journal_for(project.lock_path), project.root) is not None:
            raise InfralensError("an interrupted fix was completed or rolled back (above), after the drift check read the files; run 'infralens fix' again")


def _loaded(doc: YamlFile, annotation_id: str) -> Annotation:
    found = next((a for a in (doc.loaded.annotations if doc.loaded else ()) if a.id == annotation_id), None)
    if found is None:
        problem = next((str(d) for d in (doc.loaded.diagnostics if doc.loaded else ()) if d.severity.value == "error"), "")
        raise InfralensError(f"{doc.display}: annotation {annotation_id!r} does not load ({problem}); run 'infralens validate {doc.display}' and fix it first")
    return found


def _qualname(annotation: Annotation, results: list[StepResult], target: TargetResult | None) -> str:
    if target is not None and target.new is not None and target.kind in (TargetKind.MOVED, TargetKind.RENAMED):
        return target.new.target
    if target is not None:
        return target.entry.target
    return results[0].entry.target if results else annotation.target.rpartition(".")[2]


def _step_index(doc: YamlFile, annotation_id: str, step: Step) -> int:
    """The position of ``step``'s node in its annotation's list of steps."""
    nodes = doc.steps(annotation_id).value
    if step.location is not None:
        for index, node in enumerate(nodes):
            if node.start_mark.line + 1 == step.location.line and node.start_mark.column + 1 == step.location.col:
                return index
    raise InfralensError(f"{doc.display}: step {annotation_id}/{step.key} could not be found in the file's text; re-anchor it by hand")


def _edit_step(doc: YamlFile, annotation_id: str, step: Step, fix: StepFix) -> None:
    index = _step_index(doc, annotation_id, step)
    node = doc.steps(annotation_id).value[index]
    _, data = doc.annotation(annotation_id)
    edit_step_node(doc, node, data["steps"][index], fix)


def edit_step_node(doc: YamlFile, node: object, data: dict, fix: StepFix) -> None:
    """Set the new ``at:`` and the ``review:`` of one step's mapping node (and its intended data)."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        raise InfralensError(f"{doc.where(node) if isinstance(node, yaml.Node) else doc.display}: step {fix.step_id} is not a mapping; fix it by hand")
    at_key, at_value = fields_of(node)["at"]
    what = f"the 'at:' of step {fix.step_id}"
    doc.editable(node, f"step {fix.step_id}")
    if fix.selector:
        doc.replace_value(at_key, at_value, flow_selector(fix.selector), block_selector(fix.selector), flow=node.flow_style, what=what)
        data["at"] = selector_data(fix.selector)
    if fix.review:
        review = merged_review(data.get("review"), portable(fix.review))  # committed: dist==version, never a machine path
        doc.set_key(node, at_value, "review", quoted(review), f"step {fix.step_id}")
        data["review"] = review


def merged_review(old: object, new: str) -> str:
    """A person's own review note is kept in front of fix's (an earlier note of fix's own is replaced)."""
    if isinstance(old, str) and old.strip() and not old.startswith(REVIEW_PREFIX):
        return f"{old.rstrip()} | {new}"
    return new


# --------------------------------------------------------------------------
# What to do with one step
# --------------------------------------------------------------------------


def _decide(resolver: Resolver, context: _Context, step: Step, result: StepResult, *, move_notes: bool) -> StepFix:
    entry, place = result.entry, result.new
    qualname = context.qualname
    was = _was(step.at, entry.texts)
    if result.kind in (StepKind.MOVED, StepKind.CHANGED) and place is not None and place.target == qualname:
        keep = still_selects(resolver, entry.distribution, place, step.at)
        selector = () if keep else selector_for(resolver, entry.distribution, place, len(entry.texts))
        if place.texts == entry.texts:
            return StepFix(entry.step_id, result.kind, selector, None, found=True)
        now = source_text(resolver, entry.distribution, place)
        verb = "moved" if result.kind is StepKind.MOVED else "changed upstream"
        review = f"{REVIEW_PREFIX} {verb}; re-anchored at {place.describe()}, now: {now} (was: {was}); re-read the note"
        return StepFix(entry.step_id, result.kind, selector, review, found=True)
    target_there = context.target_result is None or context.target_result.kind not in (TargetKind.DELETED, TargetKind.UNREADABLE)
    if result.kind is StepKind.MOVED and place is not None and target_there and move_notes:
        helper = f"{place.module}.{place.target}"
        changed = "" if place.texts == entry.texts else f" and changed (was: {was})"
        review = f"{REVIEW_PREFIX} moved here from {context.annotation.target}: upstream moved the statement into {place.target}{changed}; re-read the note"
        return StepFix(entry.step_id, result.kind, (), review, moved_to=helper)
    if place is not None:
        return StepFix(
            entry.step_id,
            result.kind,
            (),
            f"{REVIEW_PREFIX} the statement left {qualname} for {place.describe()}; move the step to an annotation of that function (fix --move-notes)",
        )
    candidates = "; ".join(c.place.describe() for c in result.candidates[:2])
    found = f" (closest: {candidates})" if candidates else ""
    message = f"{REVIEW_PREFIX} {result.kind.value} upstream: {result.message}{found} (was: {was}); delete the step or re-anchor it by hand"
    return StepFix(entry.step_id, result.kind, (), message)


def _was(selector: Selector, texts: tuple[str, ...]) -> str:
    """The reviewed statement as written: the step's own exact selector when it has one, else its tokens made readable."""
    if isinstance(selector, ExactSelector):
        return clip(selector.text)
    if isinstance(selector, BlockSelector) and isinstance(selector.start, ExactSelector) and isinstance(selector.end, ExactSelector):
        return clip(f"{selector.start.text} … {selector.end.text}")
    return clip(" / ".join(readable(text) for text in texts))


def clip(text: str, width: int = 400) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _definition(resolver: Resolver, distribution: str, place: Place) -> tuple[SourceFile, ModuleIndex, Definition]:
    source = resolver.source_file(resolver.tree(distribution), place.relpath)
    index = resolver.index(source)
    definition = next((d for d in index.definitions if d.qualname == place.target and d.start_line <= place.lines[0] <= d.end_line), None)
    if definition is None:
        raise InfralensError(f"{place.relpath}:{place.lines[0]}: {place.target} is not there; re-anchor the step by hand")
    return source, index, definition


def still_selects(resolver: Resolver, distribution: str, place: Place, selector: Selector) -> bool:
    """Whether the step's own selector, read in the function where the statement is now, finds exactly it."""
    _, index, definition = _definition(resolver, distribution, place)
    try:
        found = resolver.resolve_selector(index, definition, selector)
    except ResolutionError:
        return False
    return bool(found) and found[0].start_line == place.lines[0] and tuple(s.text for s in found) == place.texts


def selector_for(resolver: Resolver, distribution: str, place: Place, count: int) -> tuple[SingleSelector, ...]:
    """Selectors that resolve to exactly the statements at ``place`` (the first and last for a block)."""
    source, index, definition = _definition(resolver, distribution, place)
    pool = index.statements_within(definition.start_line, definition.end_line)
    first = _statement_at(place.relpath, pool, place.lines[0])
    planned = plan_step(resolver, index, definition, pool, first, source.lines)
    if count == 1:
        return (planned.selector,)
    last = [s for s in pool if first.start_line <= s.start_line <= place.lines[1]][-1]
    return (planned.selector, plan_step(resolver, index, definition, pool, last, source.lines).selector)


def _statement_at(relpath: str, pool: tuple[Statement, ...], line: int) -> Statement:
    for statement in pool:
        if statement.start_line == line:
            return statement
    raise InfralensError(f"{relpath}:{line}: no statement starts there; re-anchor the step by hand")


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def apply_fixes(repair: Repair) -> list[str]:
    """Write every changed file as one change (all or nothing, refused when one was edited meanwhile).

    The comparison with what fix read and the replaces happen under the project's writer lock, so no other
    InfraLens writer lands in between; a write of several files is journaled, so a run killed between two replaces
    is completed or rolled back by the next command. Returns the files that changed again right after being
    written (someone else's edit; left as it is).
    """
    changes = [FileChange(f.path, f.new, None if f.created else f.old) for f in repair.files if f.new != f.old or f.created]
    if repair.project is None:
        raise ValueError("apply_fixes needs the Repair that plan_fixes made (it names the project)")
    project = repair.project
    with project_writes(project.lock_path, project.root) as journal:
        for fix in repair.files:
            refuse_read_only(fix.path, fix.display)
            if fix.created and fix.path.exists():
                raise InfralensError(f"{fix.display}: the file fix meant to create exists now; nothing was written — run fix again")
        write_together(changes, what="file", within=project.root, journal=journal)
    return [fix.display for fix in repair.files if (fix.new != fix.old or fix.created) and _current(fix.path) != fix.new]


def _current(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None
