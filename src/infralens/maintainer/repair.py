"""``infralens fix``: re-anchor drifted steps in the annotation YAML, and flag what a person must re-read.

After ``check`` finds drift, each annotation is handled on its own: a target that moved or was renamed
gets its new ``target:`` (and the lab pages and the concept map that name it follow, see
:mod:`.repair_labs`); a *moved* or *changed* step inside the target keeps its selector when that still
finds the statement, else gets one computed the way ``add`` chooses one; only a statement whose text
changed gets ``review: <why>``; a statement that moved into a function the target calls takes its step
(note, expects, keys) into an annotation of that function (:mod:`.repair_move`); a *deleted* step stays,
flagged with the closest candidates. What one step's fix is and how it edits the step is :mod:`.repair_step`,
shared with :mod:`.repair_move`. The files are edited span by span (:mod:`.repair_yaml`), checked
to read back exactly as intended (:mod:`.repair_check`), and written together or not at all, compared and
replaced under the project's writer lock, with a journal that lets the next command finish a killed run.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from infralens.annotations import Annotation, BlockSelector, ExactSelector, Selector, Step
from infralens.drift import CheckReport, StepKind, StepResult, TargetKind, TargetResult
from infralens.errors import InfralensError
from infralens.maintainer.repair_check import check_edited, check_resolves
from infralens.maintainer.repair_labs import follow_renames
from infralens.maintainer.repair_move import MoveRequest, plan_moves
from infralens.maintainer.repair_step import REVIEW_PREFIX, StepFix, edit_step_node, selector_for, still_selects
from infralens.maintainer.repair_text import readable, source_text
from infralens.maintainer.repair_yaml import YamlFile, fields_of, quoted, read_user_text
from infralens.maintainer.scaffold_yaml import refuse_read_only
from infralens.project import Project
from infralens.resolve import Resolver
from infralens.userfiles import FileChange, finish_interrupted, journal_for, project_writes, write_together, writer_lock


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
    _finish_interrupted(project)
    targets = {t.entry.id: t for t in report.targets}
    results = _drifted(report)
    plan = _Plan(project, resolver, move_notes)
    for annotation_id in sorted(results):
        _plan_annotation(plan, report, annotation_id, results[annotation_id], targets.get(annotation_id))
    moved = plan_moves(project, resolver, plan.docs, plan.moves)
    for path, fix in moved.fixes:
        plan.steps.setdefault(path, []).append(fix)
    plan.expected.update(moved.expected)
    files = _checked_files(plan, moved.created)
    labs = follow_renames(project, plan.renames)
    files.extend(FileFix(change.path, project.relative(change.path), change.old or "", change.new) for change in labs.changes)
    return Repair(tuple(files), (*plan.left, *moved.not_moved, *labs.not_rewritten), project)


@dataclass
class _Plan:
    """What :func:`plan_fixes` gathers while it walks the drifted annotations, file by file."""

    project: Project
    resolver: Resolver
    move_notes: bool
    docs: dict[Path, YamlFile] = field(default_factory=dict)
    steps: dict[Path, list[StepFix]] = field(default_factory=dict)
    renamed: dict[Path, list[tuple[str, str]]] = field(default_factory=dict)
    """``(annotation id, new target)`` per file."""
    expected: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    """Where each re-anchored step's statement must be found: ``step id -> (relpath, first line, last line)``."""
    moves: list[MoveRequest] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    """Places found but not rewritten (``file:line: why``)."""
    renames: dict[str, str] = field(default_factory=dict)
    """Old target -> new target, for the lab pages and the concept map."""


def _drifted(report: CheckReport) -> dict[str, list[StepResult]]:
    """The step results to fix, per annotation; an annotation whose target moved is there even with no drifted step."""
    results: dict[str, list[StepResult]] = {}
    for result in report.steps:
        if result.kind is not StepKind.UNCHANGED:
            results.setdefault(result.entry.annotation, []).append(result)
    for target in report.targets:
        if _moved_to(target) is not None:
            results.setdefault(target.entry.id, [])
    return results


def _moved_to(target: TargetResult | None) -> str | None:
    """The dotted new target of a target that moved or was renamed, else None."""
    if target is None or target.kind not in (TargetKind.MOVED, TargetKind.RENAMED) or target.new is None:
        return None
    return f"{target.new.module}.{target.new.target}"


def _plan_annotation(plan: _Plan, report: CheckReport, annotation_id: str, results: list[StepResult], target_result: TargetResult | None) -> None:
    """Re-target one annotation when its target moved, then fix (or flag, or queue the move of) each drifted step."""
    relative = report.annotation_path(annotation_id)
    path = plan.project.root / relative
    if path not in plan.docs:
        plan.docs[path] = YamlFile(path, relative, read_user_text(path, relative))
    doc = plan.docs[path]
    annotation = _loaded(doc, annotation_id)
    node, data = doc.annotation(annotation_id)
    qualname = _qualname(annotation, results, target_result)
    new_target = _moved_to(target_result)
    if new_target is not None and new_target != annotation.target:
        key, value = fields_of(node)["target"]
        written = quoted(new_target) if doc.text[value.start_mark.index : value.start_mark.index + 1] in ("'", '"') else new_target
        doc.replace_value(key, value, written, None, flow=node.flow_style, what=f"the target of {annotation_id}")
        data["target"] = new_target
        plan.renamed.setdefault(path, []).append((annotation_id, new_target))
        plan.renames[annotation.target] = new_target
    context = _Context(doc, annotation, qualname, target_result)
    by_id = {annotation.step_id(s): s for s in annotation.steps}
    for result in results:
        step = by_id.get(result.entry.step_id)
        if step is None:
            plan.left.append(f"{relative}: step {result.entry.step_id} is in the lock but not in the file; run 'infralens lock --update'")
            continue
        _plan_step(plan, context, path, relative, step, result)


def _plan_step(plan: _Plan, context: _Context, path: Path, relative: str, step: Step, result: StepResult) -> None:
    """Edit one step in place, or queue its move into the annotation of the function its statement moved to."""
    doc, annotation_id = context.doc, context.annotation.id
    try:
        fix = _decide(plan.resolver, context, step, result, move_notes=plan.move_notes)
    except InfralensError as error:  # the statement is not where drift placed it: flag the step, say where
        fix = StepFix(result.entry.step_id, result.kind, (), f"{REVIEW_PREFIX} {result.kind.value} upstream, not re-anchored ({error}); re-anchor it by hand")
        plan.left.append(f"{relative}:{step.location.line if step.location else 1}: step {result.entry.step_id} was not re-anchored: {error}")
    if fix.moved_to and result.new is not None:
        plan.moves.append(MoveRequest(path, annotation_id, _step_index(doc, annotation_id, step), fix, result.new))
        return
    _edit_step(doc, annotation_id, step, fix)
    plan.steps.setdefault(path, []).append(fix)
    if fix.selector and result.new is not None:
        plan.expected[fix.step_id] = (result.new.relpath, result.new.lines[0], result.new.lines[1])


def _checked_files(plan: _Plan, created: tuple[YamlFile, ...]) -> list[FileFix]:
    """Every edited or created annotation file, each checked to load and resolve as intended."""
    files: list[FileFix] = []
    for path, doc in sorted(plan.docs.items()):
        edited = doc.edited()
        if edited != doc.original:
            annotations = check_edited(doc, edited)
            check_resolves(doc, edited, plan.resolver, annotations, plan.expected)
        if edited != doc.original or plan.steps.get(path):
            files.append(FileFix(path, doc.display, doc.original, edited, tuple(plan.steps.get(path, ())), tuple(plan.renamed.get(path, ()))))
    for new_file in created:
        annotations = check_edited(new_file, new_file.text)
        check_resolves(new_file, new_file.text, plan.resolver, annotations, plan.expected)
        files.append(FileFix(new_file.path, new_file.display, "", new_file.text, (), (), created=True))
    return files


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
