"""Write a :class:`~.scaffold.ScaffoldPlan` as annotation YAML: a new file, or steps appended to one.

Existing files are extended as text — the new steps are inserted after the last
step of the annotation — so comments and layout the maintainer wrote stay as
they were. Every write is checked by loading the file back and resolving the
new steps; if that fails the original text is restored and the error reported.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from infralens.annotations import Annotation, ContainsSelector, SingleSelector, load_text
from infralens.errors import InfralensError
from infralens.maintainer.reach import scenarios_reaching
from infralens.maintainer.scaffold import PlannedStep, ScaffoldPlan
from infralens.project import Project, load_annotations
from infralens.resolve import Resolver
from infralens.source import Statement
from infralens.userfiles import project_writes, write_atomically

TODO_NOTE = "TODO: explain {what}."
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""The parser ``validate`` uses, so ``add`` extends every file ``validate`` accepts."""
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class AddResult:
    """What ``infralens add`` did."""

    path: Path
    annotation_id: str
    created: bool
    added: tuple[PlannedStep, ...]
    already: tuple[PlannedStep, ...]
    """Planned steps skipped because the annotation already selects that statement."""
    text: str
    """The file's full text after the change (what --dry-run prints)."""


def slug_for(qualname: str) -> str:
    """``PNDMScheduler.step`` → ``pndm-scheduler-step``; ``UNet2D.__init__`` → ``unet2d-init``."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", qualname)
    slug = re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")
    return slug or "annotation"


def add_to_project(project: Project, resolver: Resolver, plan: ScaffoldPlan, *, annotation_id: str | None, lab: str | None, dry_run: bool = False) -> AddResult:
    """Create ``annotations/<dist>/<id>.yaml`` or append the plan's steps to the target's annotation.

    A real run holds the project's writer lock from reading the annotations to writing the file, so ``lock`` never
    reads the file half-way through an ``add`` and no ``fix`` writes in between.
    """
    if dry_run:
        return _add(project, resolver, plan, annotation_id, lab, dry_run)
    with project_writes(project.lock_path, project.root):
        return _add(project, resolver, plan, annotation_id, lab, dry_run)


def _add(project: Project, resolver: Resolver, plan: ScaffoldPlan, annotation_id: str | None, lab: str | None, dry_run: bool) -> AddResult:
    loaded = load_annotations(project)
    existing = _existing_annotation(loaded.annotations, plan, annotation_id)
    if existing is None:
        return _create(project, resolver, plan, annotation_id or slug_for(plan.target.definition.qualname), lab, loaded.annotations, dry_run)
    return _append(project, resolver, plan, existing, dry_run)


def _existing_annotation(annotations: tuple[Annotation, ...], plan: ScaffoldPlan, annotation_id: str | None) -> Annotation | None:
    distribution = plan.selection.distribution
    if annotation_id:
        named = [a for a in annotations if a.id == annotation_id]
        if not named:
            return None
        found = named[0]
        if found.target != plan.dotted_target or found.source != distribution:
            raise InfralensError(
                f"{found.path}: annotation {annotation_id!r} targets {found.target}, not {plan.dotted_target}, and an annotation has one target; "
                "pass a new --id (with --lab) to start one for this function — after upstream moved statements here, 'infralens fix' moves their notes"
            )
        return found
    same = [a for a in annotations if a.target == plan.dotted_target and a.source == distribution and a.definition == plan.definition_pick]
    if len(same) > 1:
        listing = ", ".join(f"{a.id} ({a.path})" for a in same)
        raise InfralensError(f"{plan.dotted_target} is annotated {len(same)} times: {listing}; pass --id to pick one")
    return same[0] if same else None


# ---------------------------------------------------------------------------
# New file
# ---------------------------------------------------------------------------


def _create(
    project: Project, resolver: Resolver, plan: ScaffoldPlan, annotation_id: str, lab: str | None, annotations: tuple[Annotation, ...], dry_run: bool
) -> AddResult:
    slugs = project.lab_slugs()
    if not lab and slugs:
        raise InfralensError(f"{plan.dotted_target} has no annotation yet: pass --lab SLUG to create one (labs: {', '.join(sorted(slugs))})")
    if slugs is not None and lab not in slugs:
        raise InfralensError(f"--lab {lab!r}: no folder labs/lab-{lab}/ (labs: {', '.join(sorted(slugs)) or 'none yet'})")
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", annotation_id):
        raise InfralensError(f"--id {annotation_id!r}: use lower-case letters, digits, '.', '_' or '-'")
    if any(a.id == annotation_id for a in annotations):
        raise InfralensError(f"id {annotation_id!r} is already used; pass another --id")
    path = project.annotations_dir / plan.selection.distribution / f"{annotation_id}.yaml"
    if path.exists():
        raise InfralensError(f"{project.relative(path)} already exists and holds no annotation of {plan.dotted_target}; pass another --id")
    definition = plan.target.definition
    source = plan.target.source
    reached = scenarios_reaching(
        project.root / "reports", source.distribution, source.relpath, definition.qualname, (definition.start_line, definition.end_line)
    )
    text = render_new_file(plan, annotation_id, lab, reached)
    result = AddResult(path, annotation_id, True, plan.steps, (), text)
    if not dry_run:
        _write_checked(project, resolver, path, None, text, annotation_id, plan.steps)
    return result


def render_new_file(plan: ScaffoldPlan, annotation_id: str, lab: str | None, scenarios: list[str] | None = None) -> str:
    """The text of a fresh annotation file for ``plan``; ``scenarios``: those known to reach the target, best first."""
    qualname = plan.target.definition.qualname
    source = plan.target.source
    lines = [
        f"# {qualname} ({source.distribution} {source.version}, {source.relpath}).",
        "# Scaffolded by 'infralens add'. Write the summary and every TODO note (MyST Markdown, $math$ works):",
        "# what the statement computes and why the lab reads it. Then: infralens validate, infralens show.",
        f"id: {annotation_id}",
        *([f"lab: {lab}"] if lab else []),
        f"source: {plan.selection.distribution}",
        f"target: {plan.dotted_target}",
    ]
    if plan.definition_pick is not None:
        lines.append(f"definition: {plan.definition_pick}")
    lines += [
        f"summary: {_quoted('TODO: say in one or two sentences what ' + qualname + ' does and why the lab reads it.')}",
        *_scenario_lines(scenarios or []),
        "steps:",
    ]
    return "\n".join(lines) + "\n" + "".join(render_step(step, "  ") for step in plan.steps)


def _scenario_lines(scenarios: list[str]) -> list[str]:
    """``scenario:`` from the committed reports when one reaches the target; else a comment saying how to find one."""
    if not scenarios:
        return [
            "# scenario: NAME   # no committed report shows a scenario reaching this function: 'infralens verify --list' names them,",
            "#                  # 'infralens coverage NAME' shows what one runs; or mark each step 'static: <reason>'",
        ]
    others = f" (also reached by: {', '.join(scenarios[1:4])})" if len(scenarios) > 1 else ""
    return [f"scenario: {scenarios[0]}   # reaches this function, per reports/{others}"]


# ---------------------------------------------------------------------------
# Steps as text
# ---------------------------------------------------------------------------


def render_step(step: PlannedStep, indent: str) -> str:
    """One ``- at: ... / note: |`` item whose dash sits at ``indent``."""
    inner = indent + "  "
    out = indent + "- at:" + selector_text(step.selector, inner)
    what = _short(step.source_text)
    out += f"{inner}note: |\n{inner}  {TODO_NOTE.format(what=what)}\n"
    return out


def selector_text(selector: SingleSelector, inner: str) -> str:
    if isinstance(selector, ContainsSelector):
        if "\n" not in selector.text:
            nth = f", nth: {selector.nth}" if selector.nth else ""
            return f" {{contains: {_quoted(selector.text)}{nth}}}\n"
        out = f"\n{inner}  contains:{_block(selector.text, inner + '    ')}"
        return out + (f"{inner}  nth: {selector.nth}\n" if selector.nth else "")
    if "\n" not in selector.text and selector.nth is None:
        return f" {_quoted(selector.text)}\n"
    out = f"\n{inner}  text:{_block(selector.text, inner + '    ')}"
    return out + (f"{inner}  nth: {selector.nth}\n" if selector.nth else "")


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _block(text: str, indent: str) -> str:
    """A literal block scalar (``|-``) holding ``text`` exactly, placed after a key."""
    indicator = "2" if text[:1] in (" ", "\t") else ""
    body = "".join((indent + line if line else "") + "\n" for line in text.split("\n"))
    return f" |{indicator}-\n{body}"


def _short(text: str) -> str:
    first = text.split("\n", 1)[0].strip()
    shown = first if len(first) <= 60 else first[:57] + "..."
    return "`" + shown.replace("`", "'") + "`" + (" (and the lines after it)" if "\n" in text else "")


# ---------------------------------------------------------------------------
# Appending to an existing annotation
# ---------------------------------------------------------------------------


def _append(project: Project, resolver: Resolver, plan: ScaffoldPlan, annotation: Annotation, dry_run: bool) -> AddResult:
    path = Path(project.root / annotation.path) if not Path(annotation.path).is_absolute() else Path(annotation.path)
    resolved, problems = resolver.resolve_annotation(annotation)
    if resolved is None:
        first = problems[0] if problems else None
        raise InfralensError(f"{annotation.path}: annotation {annotation.id!r} does not resolve ({first}); fix it before adding steps")
    covered: set[Statement] = {s for step in resolved.steps for s in step.statements}
    new = tuple(s for s in plan.steps if s.statement not in covered)
    already = tuple(s for s in plan.steps if s.statement in covered)
    original = _read(path, project.relative(path))
    if not new:
        return AddResult(path, annotation.id, False, (), already, original)
    text = append_steps(original, annotation.id, new, project.relative(path))
    if not dry_run:
        _write_checked(project, resolver, path, original, text, annotation.id, new)
    return AddResult(path, annotation.id, False, new, already, text)


def append_steps(text: str, annotation_id: str, steps: tuple[PlannedStep, ...], display: str = "<annotation file>") -> str:
    """Insert ``steps`` after the last step of annotation ``annotation_id`` in the YAML ``text``."""
    sequence = _steps_node(text, annotation_id, display)
    if sequence.flow_style or not sequence.value:
        where = f"{display}:{line_of(text, sequence.start_mark.index)}:{column_of(text, sequence.start_mark.index) + 1}"
        raise InfralensError(
            f"{where}: annotation {annotation_id!r}: 'steps' is written in flow style ([...]); nothing was written — add the new steps by hand"
        )
    eol = line_ending(text)
    dash_column = sequence.start_mark.column
    end = sequence.value[-1].end_mark
    lines = _LINES.findall(text)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += eol
    at = line_of(text, end.index) - 1 if column_of(text, end.index) == 0 else line_of(text, end.index)
    at = min(at, len(lines))
    # A block scalar's end mark runs past trailing blank and comment lines: keep those after the new steps.
    while at > 0 and _is_trailing_filler(lines[at - 1], dash_column + 2):
        at -= 1
    insert = "".join(render_step(step, " " * dash_column) for step in steps).replace("\n", eol)
    return "".join(lines[:at]) + insert + "".join(lines[at:])


def line_ending(text: str) -> str:
    """The line ending most lines of ``text`` use (``\\n`` for a file with none)."""
    crlf = text.count("\r\n")
    counts = {"\r\n": crlf, "\n": text.count("\n") - crlf, "\r": text.count("\r") - crlf}
    return max(("\n", "\r\n", "\r"), key=lambda eol: counts[eol])


def line_of(text: str, index: int) -> int:
    """1-based line of ``index``, counting CRLF, CR and LF as one line break each."""
    return len(_BREAK.findall(text, 0, index)) + 1


def column_of(text: str, index: int) -> int:
    """0-based column of ``index``."""
    return index - (max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1)


def _is_trailing_filler(line: str, max_indent: int) -> bool:
    """A blank line, or a comment indented too little to be inside the last step's block scalar."""
    stripped = line.strip()
    if not stripped:
        return True
    return stripped.startswith("#") and len(line) - len(line.lstrip()) <= max_indent


def _steps_node(text: str, annotation_id: str, display: str) -> yaml.SequenceNode:
    try:
        root = yaml.compose(text, Loader=LOADER)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or error
        raise InfralensError(f"{display}{where}: cannot read the YAML to extend it ({problem}); fix it ('infralens validate'), then run add again") from None
    mappings = root.value if isinstance(root, yaml.SequenceNode) else [root]
    for mapping in mappings:
        if not isinstance(mapping, yaml.MappingNode):
            continue
        fields = {key.value: value for key, value in mapping.value if isinstance(key, yaml.ScalarNode)}
        ident = fields.get("id")
        if isinstance(ident, yaml.ScalarNode) and ident.value == annotation_id and isinstance(fields.get("steps"), yaml.SequenceNode):
            return fields["steps"]
    raise InfralensError(f"{display}: annotation {annotation_id!r} has no 'steps' list to extend; nothing was written — run 'infralens validate {display}'")


def _write_checked(
    project: Project, resolver: Resolver, path: Path, original: str | None, text: str, annotation_id: str, steps: tuple[PlannedStep, ...]
) -> None:
    """Check that ``text`` loads with the new steps resolving, then write it whole (refused when the file changed meanwhile)."""
    _check_written(project, resolver, path, text, annotation_id, steps)
    if original is None and path.exists():
        raise InfralensError(f"{project.relative(path)} was created while 'infralens add' ran; nothing was written — run add again")
    refuse_read_only(path, project.relative(path))
    write_atomically(path, text, expect=original, what="annotation file", within=project.root)


def refuse_read_only(path: Path, display: str) -> None:
    """Refuse a file whose permission bits say read-only, even for a user (root) who could write it anyway."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if not mode & 0o222 or not os.access(path, os.W_OK):
        raise InfralensError(f"{display}: the file is read-only; nothing was written — make it writable (chmod u+w) and run the command again")


def _read(path: Path, display: str) -> str:
    """The file's text as stored: its line endings are kept."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise InfralensError(f"{display}: the file is not valid UTF-8; save it as UTF-8, then run add again") from None
    except OSError as error:
        raise InfralensError(f"{display}: cannot read the file ({error.strerror or error})") from None


def _check_written(project: Project, resolver: Resolver, path: Path, text: str, annotation_id: str, steps: tuple[PlannedStep, ...]) -> None:
    result = load_text(text, project.relative(path))
    errors = [d for d in result.diagnostics if d.code != "todo"]
    if errors:
        raise InfralensError(f"{project.relative(path)}: the scaffolded YAML does not load ({errors[0]}); file left unchanged")
    annotation = next((a for a in result.annotations if a.id == annotation_id), None)
    if annotation is None:
        raise InfralensError(f"{project.relative(path)}: annotation {annotation_id!r} missing after writing; file left unchanged")
    resolved, problems = resolver.resolve_annotation(annotation)
    if resolved is None:
        raise InfralensError(f"{project.relative(path)}: the new steps do not resolve ({problems[0] if problems else '?'}); file left unchanged")
    written = resolved.steps[-len(steps) :] if steps else ()
    for planned, got in zip(steps, written, strict=False):
        if got.statements != (planned.statement,):
            raise InfralensError(f"{project.relative(path)}: the step for line {planned.statement.start_line} did not round-trip; file left unchanged")
