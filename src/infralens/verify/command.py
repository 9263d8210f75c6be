"""What ``infralens verify`` does, from parsed options to an exit code (the CLI only parses).

Heavy imports (torch, libcst, the runner) happen inside :func:`run_verify`, after the cheap
answers (``--list``, an unknown scenario, a device that is not there) are given. The scenarios are
the project's (its ``scenarios/`` folder, read without importing it); ``--against DIST==X.Y.Z``
runs them on that release, installed into a cached folder of its own (:mod:`.run.against`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from infralens.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, say
from infralens.errors import InfralensError, Severity
from infralens.verify.trace.backend_name import BackendName

if TYPE_CHECKING:
    from infralens.annotations import Annotation
    from infralens.project import LoadedAnnotations, Project
    from infralens.resolve import Resolver
    from infralens.verify.run.against import OtherRelease
    from infralens.verify.run.plan import Plan


@dataclass(frozen=True)
class VerifyOptions:
    """The options of ``infralens verify`` (see :mod:`.cli` for their help)."""

    device: str = "auto"
    scenarios: tuple[str, ...] = ()
    report: Path | None = None
    list_static: bool = False
    list_catalog: bool = False
    jobs: int = 1
    backend: BackendName = BackendName.AUTO
    timeout: float = 900.0
    paths: tuple[str, ...] = ()
    mutate: bool = False
    max_mutants: int = 4
    against: tuple[str, ...] = ()
    """``DIST==X.Y.Z`` releases to run the scenarios on instead of the installed ones."""
    annotations: tuple[str, ...] = ()
    """Only these annotation ids; with *report*, their steps are merged into the existing report."""
    format: str = "text"
    """``text``, or a CI format (``github``, ``junit``, ``sarif``: :mod:`infralens.ci_output`) on standard output."""


OpenContext = Callable[[tuple[str, ...]], "tuple[Project, Resolver]"]
"""Opens the project and a resolver; its argument adds ``--source`` items (``DIST==VERSION=PATH``)."""


def run_verify(options: VerifyOptions, open_context: OpenContext) -> int:
    """Plan, run and judge the scenarios; print the summary and findings; write the report.

    Ctrl-C and SIGTERM (which the CLI turns into Ctrl-C) end the workers on the way out.
    """
    if options.list_catalog:
        return _list_catalog(open_context(())[0])
    try:
        device = _device(options)
        everything = _selection(options, open_context)
        loaded = _chosen(options, everything)
        releases = _releases(options, loaded)
        project, plan = _plan(options, open_context, loaded, releases, everything.annotations)
        if options.list_static:
            return _list_static(plan)
        if options.mutate and options.max_mutants < 1:
            raise _Refused("--max-mutants must be at least 1")
        if plan.untraceable:
            raise _Refused(*plan.untraceable)
    except _Refused as refused:
        for line in refused.lines:
            say(f"infralens verify: {line}", error=True)
        return EXIT_USAGE
    return _run(plan, device, options, project.root)


class _Refused(Exception):
    """A usage problem: each line is printed as ``infralens verify: <line>`` and verify exits with ``EXIT_USAGE``."""

    def __init__(self, *lines: str) -> None:
        super().__init__(*lines)
        self.lines = lines


def _device(options: VerifyOptions) -> str:
    """The device to run on, once every ``--against`` pin reads well."""
    from infralens.verify.run.against import parse_pin

    try:
        for spec in options.against:
            parse_pin(spec)
    except InfralensError as error:
        raise _Refused(str(error)) from error
    from infralens.tiny import choose_device

    try:
        return choose_device(options.device)
    except ValueError as error:
        raise _Refused(str(error)) from error


def _selection(options: VerifyOptions, open_context: OpenContext) -> LoadedAnnotations:
    """The project's annotations (those of the given paths); an unknown scenario is refused."""
    from infralens.project import load_annotations
    from infralens.verify.run.registry import project_catalog

    project, _ = open_context(())
    catalog = project_catalog(project)
    unknown = [name for name in options.scenarios if name not in catalog.names()]
    if unknown:
        raise _Refused(f"unknown scenario(s) {', '.join(unknown)}; see 'infralens verify --list'")
    return load_annotations(project, list(options.paths) or None)


def _chosen(options: VerifyOptions, loaded: LoadedAnnotations) -> LoadedAnnotations:
    """The annotations ``--annotation`` names (all when none): they decide which releases may be installed."""
    if not options.annotations:
        return loaded
    missing = sorted(set(options.annotations) - {annotation.id for annotation in loaded.annotations})
    if missing:
        raise _Refused(f"unknown annotation id(s) {', '.join(missing)}")
    return replace(loaded, annotations=tuple(a for a in loaded.annotations if a.id in options.annotations))


def _releases(options: VerifyOptions, loaded: LoadedAnnotations) -> tuple[OtherRelease, ...]:
    """The ``--against`` releases, each installed in a folder of its own (refused for a distribution nothing annotates)."""
    from infralens.verify.run.against import install_release, refuse_unannotated

    try:
        refuse_unannotated(options.against, {annotation.source for annotation in loaded.annotations})
        releases = tuple(install_release(spec) for spec in options.against)
    except InfralensError as error:
        raise _Refused(str(error)) from error
    for release in releases:
        say(f"running on {release.distribution} {release.version} (installed on its own in {release.folder})", error=True)
    return releases


def _plan(
    options: VerifyOptions, open_context: OpenContext, loaded: LoadedAnnotations, releases: tuple[OtherRelease, ...], everything: tuple[Annotation, ...]
) -> tuple[Project, Plan]:
    """The project (with the releases' sources) and the plan of the selected scenarios; its diagnostics are printed.

    With ``--annotation``, the scenarios still watch every step *everything* has in them (see :func:`.plan.watch_all`).
    """
    from infralens.verify.run.against import on_releases
    from infralens.verify.run.plan import build_plan, watch_all

    project, resolver = open_context(tuple(release.source_option for release in releases))
    environment = tuple(str(release.folder) for release in releases)
    plan = build_plan(project, resolver, loaded.annotations, loaded.diagnostics, environment)
    if releases:
        plan = on_releases(plan, loaded.annotations, releases)
    if options.scenarios and not options.list_static:
        plan = plan.only(set(options.scenarios))
    if options.annotations and not options.list_static:
        plan = watch_all(plan, project, resolver, everything)
    for diagnostic in plan.diagnostics:
        say(str(diagnostic), error=True)
    return project, plan


def _run(plan: Plan, device: str, options: VerifyOptions, project_root: Path) -> int:
    from infralens.verify.progress import Progress
    from infralens.verify.report import findings, summary_table, write_merged_report, write_report
    from infralens.verify.run.runner import run_plan, work_units

    names = tuple(dict.fromkeys(options.scenarios)) if options.scenarios else None
    max_mutants = options.max_mutants if options.mutate else 0
    units = work_units(plan, names if names is not None else plan.scenarios(), options.jobs, max_mutants)
    progress = Progress(sum(len(unit) for unit in units), sys.stderr)
    # A mutating worker runs each scenario up to 1 + max_mutants times per step: its time limit grows with that.
    timeout = options.timeout * (1 + max_mutants)
    try:
        result = run_plan(
            plan, device, jobs=options.jobs, backend=options.backend, progress=progress, timeout=timeout, scenarios=names, max_mutants=max_mutants
        )
    finally:
        progress.close()
    problems = findings(result)
    if options.format == "text":
        print(summary_table(result))
    else:  # standard output holds the CI document alone; the table and the findings go to standard error
        from infralens import __version__
        from infralens.ci_output import render, repository_prefix
        from infralens.verify.report import ci_cases

        sys.stderr.write(summary_table(result) + "\n")
        cases = ci_cases(result, plan.diagnostics)
        sys.stdout.write(render(options.format, cases, tool="verify", prefix=repository_prefix(project_root), version=__version__))
    for line in problems:
        say(line, error=True)
    if options.report and (options.annotations or options.scenarios) and options.report.is_file():  # a refresh: merged into the report
        try:
            path = write_merged_report(result, options.report, annotations=options.annotations, scenarios=options.scenarios)
        except ValueError as error:
            say(f"infralens verify: report not written: {error}", error=True)
            return EXIT_USAGE
        say(f"{len(result.steps)} steps merged into {path} (the other steps kept as they were)", error=options.format != "text")
    elif options.report:
        path = write_report(result, options.report)
        say(f"report written to {path}", error=options.format != "text")
    if any(d.severity is Severity.ERROR for d in plan.diagnostics):
        return EXIT_FINDINGS
    return EXIT_OK if result.ok and not problems else EXIT_FINDINGS


def _list_catalog(project: Project) -> int:
    from infralens.verify.run.registry import process_order, project_catalog

    catalog = project_catalog(project)
    for problem in catalog.problems:
        say(str(problem), error=True)
    if not catalog.specs:
        say(f"no scenarios in {project.relative(project.scenario_folder)}/: add scenarios/NAME.py defining 'def run(device: str) -> None'")
        return EXIT_OK
    width = max(len(spec.name) for spec in catalog.specs)
    order = {process: index for index, process in enumerate(process_order(spec.process for spec in catalog.specs))}
    for spec in sorted(catalog.specs, key=lambda spec: order[spec.process]):  # stable: file order within a group
        say(f"{spec.name.ljust(width)}  [{spec.process}]  {spec.summary}")
    return EXIT_OK


def _list_static(plan: Plan) -> int:
    statics = plan.static_steps()
    for step in statics:
        say(f"{step.where}: {step.step_id}: static: {step.static}")
    unassigned = [step for step in plan.steps if not step.static and step.problem and step.problem not in plan.untraceable]
    say(f"{len(statics)} static step(s) of {len(plan.steps)}")
    return EXIT_FINDINGS if unassigned else EXIT_OK
