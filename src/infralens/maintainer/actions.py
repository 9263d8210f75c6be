"""What ``infralens add``, ``coverage`` and ``preview`` do, from parsed options to an exit code.

:mod:`.cli` only parses; each command here takes its options and a way to open the project
and resolver (called only when the command needs them).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from infralens.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, print_diagnostics, say, source_option
from infralens.errors import Severity, printable

if TYPE_CHECKING:
    from infralens.project import Project
    from infralens.resolve import Resolver

OpenContext = Callable[[], "tuple[Project, Resolver]"]


@dataclass(frozen=True)
class AddOptions:
    selection: str
    lab: str | None = None
    annotation_id: str | None = None
    dist: str | None = None
    max_steps: int | None = None
    dry_run: bool = False


def add_annotation(options: AddOptions, open_context: OpenContext) -> int:
    """Scaffold steps for a target or a line range into a new or existing annotation file."""
    from infralens.maintainer.scaffold import MAX_KEY_STATEMENTS, parse_selection, plan_scaffold
    from infralens.maintainer.scaffold_yaml import add_to_project

    project, resolver = open_context()
    selection = parse_selection(options.selection, options.dist)
    limit = MAX_KEY_STATEMENTS if options.max_steps is None else options.max_steps
    plan = plan_scaffold(resolver, selection, max_steps=limit)
    result = add_to_project(project, resolver, plan, annotation_id=options.annotation_id, lab=options.lab, dry_run=options.dry_run)
    where = project.relative(result.path)
    for step in result.already:
        say(f"already annotated: line {step.statement.start_line}: {step.selector.describe()}", error=True)
    if options.dry_run:
        sys.stdout.write(result.text)
        return EXIT_OK
    if not result.added:
        say(f"{where}: nothing to add — every chosen statement is already annotated in {result.annotation_id!r}", error=True)
        return EXIT_FINDINGS
    verb = "created" if result.created else "extended"
    say(f"{verb} {where} ({result.annotation_id}): {len(result.added)} step(s) for {plan.dotted_target}")
    for step in result.added:
        say(f"  line {step.statement.start_line}: {step.selector.describe()}")
    say(f"next: write the TODO notes and summary, then 'infralens validate {where}' and 'infralens show {result.annotation_id}'")
    return EXIT_OK


@dataclass(frozen=True)
class CoverageOptions:
    scenario: str | None
    list_catalog: bool = False
    json: str | None = None
    """Where to write the call tree as JSON, as given."""
    depth: int | None = None
    device: str = "cpu"


def map_coverage(options: CoverageOptions, open_context: OpenContext) -> int:
    """Run a scenario under the call recorder; print the tree, optionally write it as JSON."""
    from infralens.project import load_annotations
    from infralens.reports import ScenarioStatus
    from infralens.verify import project_catalog

    project, resolver = open_context()
    catalog = project_catalog(project)
    if options.list_catalog or not options.scenario:
        print_diagnostics(catalog.problems)
        for spec in catalog.specs:
            say(f"{spec.name:22} {spec.summary}")
        return EXIT_OK if options.list_catalog else EXIT_USAGE
    from infralens.maintainer.coverage import run_scenario_coverage
    from infralens.maintainer.coverage_format import format_tree, write_json

    loaded = load_annotations(project)
    print_diagnostics(d for d in loaded.diagnostics if d.severity is Severity.ERROR and d.code != "todo")
    spec = catalog.spec(options.scenario)
    named = sorted({annotation.source for annotation in loaded.annotations} - set(project.distributions))
    watched = (*project.distributions, *named)  # the project's list first, then any other distribution an annotation names
    coverage = run_scenario_coverage(spec, resolver, loaded.annotations, distributions=watched, device=options.device)
    sys.stdout.write(format_tree(coverage, depth=options.depth))
    if options.json:
        write_json(coverage, Path(options.json))
        say(f"wrote {options.json}")
    return EXIT_OK if coverage.status is ScenarioStatus.PASSED else EXIT_FINDINGS


@dataclass(frozen=True)
class PreviewOptions:
    what: str
    serve: bool = True
    port: int = 8000
    out: Path | None = None
    sources: tuple[str, ...] = ()
    """The global ``--source DIST=PATH`` options, passed on to the preview's ``conf.py``."""


def preview_page(options: PreviewOptions, open_context: OpenContext) -> int:
    """Build one function or lab page in a throwaway Sphinx project; serve it unless told not to."""
    from infralens.maintainer.preview import build_preview, choose_page, serve

    project, _resolver = open_context()
    page = choose_page(project, options.what)
    sources = {name: path for name, _version, path in map(source_option, options.sources)}  # DIST=PATH or DIST==VERSION=PATH
    build = build_preview(project, page, options.out, sources=sources)
    for line in build.warnings:
        say(line, error=True)
    say(f"built the {page.kind} page for {page.name} in {build.seconds:.2f} s ({len(build.warnings)} warnings): {build.index_html}")
    if options.serve:
        serve(build.out_dir, options.port)
    return EXIT_OK


@dataclass(frozen=True)
class FixOptions:
    ids: tuple[str, ...] = ()
    dry_run: bool = False
    move_notes: bool = True
    """Move the step of a statement that moved into a function the target calls to an annotation of that function."""


def fix_drift(options: FixOptions, open_context: OpenContext) -> int:
    """Re-anchor moved and changed steps in the YAML, follow moved targets, flag what must be re-read."""
    from infralens.drift import read_lock, run_check
    from infralens.maintainer.repair import apply_fixes, plan_fixes

    project, resolver = open_context()
    lock = read_lock(project.lock_path, project.relative(project.lock_path))
    report = run_check(project, resolver, lock, ids=options.ids or None)
    repair = plan_fixes(project, resolver, report, move_notes=options.move_notes)
    if not repair.files and not repair.not_rewritten:
        say("nothing to fix: every locked step is unchanged")
        return EXIT_OK
    if options.dry_run:
        for fix in repair.files:
            sys.stdout.write(printable(fix.diff()))
        for line in repair.not_rewritten:
            say(f"not rewritten: {line}", error=True)
        return EXIT_OK
    changed_again = apply_fixes(repair)
    for fix in repair.files:
        if fix.created:
            say(f"{fix.display}: created for the steps that moved there")
        for annotation_id, target in fix.targets:
            say(f"{fix.display}: {annotation_id}: target -> {target}")
        for step in fix.steps:
            review = " (review: set)" if step.review and not step.moved_to else ""
            say(f"{fix.display}: {step.step_id}: {step.kind.value}: {step.action}{review}")
        if not fix.steps and not fix.targets and not fix.created:
            say(f"{fix.display}: renamed targets followed")
    for line in repair.not_rewritten:
        say(f"not rewritten: {line}", error=True)
    for display in changed_again:
        say(f"{display}: changed again right after fix wrote it (another editor?); left as it is now — check it", error=True)
    say("next: re-read each note marked 'review:', edit or delete it, remove 'review:', then 'infralens lock --update'")
    return EXIT_FINDINGS if repair.not_rewritten else EXIT_OK
