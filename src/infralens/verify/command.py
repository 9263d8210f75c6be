"""What ``infralens verify`` does, from parsed options to an exit code (the CLI only parses).

Heavy imports (torch, libcst, the runner) happen inside :func:`run_verify`, after the cheap
answers (``--list``, an unknown scenario, a device that is not there) are given.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from infralens.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from infralens.errors import Severity
from infralens.verify.registry import SCENARIOS, scenario_names

if TYPE_CHECKING:
    from infralens.project import Project
    from infralens.resolve import Resolver
    from infralens.verify.plan import Plan


@dataclass(frozen=True)
class VerifyOptions:
    """The options of ``infralens verify`` (see :mod:`.cli` for their help)."""

    device: str = "auto"
    scenarios: tuple[str, ...] = ()
    report: Path | None = None
    list_static: bool = False
    list_catalog: bool = False
    jobs: int = 1
    backend: str = "auto"
    timeout: float = 900.0
    paths: tuple[str, ...] = ()
    mutate: bool = False
    max_mutants: int = 4


def run_verify(options: VerifyOptions, open_context: Callable[[], tuple[Project, Resolver]]) -> int:
    """Plan, run and judge the scenarios; print the summary and findings; write the report.

    Ctrl-C and SIGTERM (which the CLI turns into Ctrl-C) end the workers on the way out.
    """
    if options.list_catalog:
        width = max(len(spec.name) for spec in SCENARIOS)
        for spec in SCENARIOS:
            print(f"{spec.name.ljust(width)}  [{spec.process}]  {spec.summary}")
        return EXIT_OK
    unknown = [name for name in options.scenarios if name not in scenario_names()]
    if unknown:
        print(f"infralens verify: unknown scenario(s) {', '.join(unknown)}; see 'infralens verify --list'", file=sys.stderr)
        return EXIT_USAGE
    from infralens.tiny import choose_device

    try:
        device = choose_device(options.device)
    except ValueError as error:
        print(f"infralens verify: {error}", file=sys.stderr)
        return EXIT_USAGE

    from infralens.project import load_annotations
    from infralens.verify.plan import build_plan

    project, resolver = open_context()
    loaded = load_annotations(project, list(options.paths) or None)
    plan = build_plan(project, resolver, loaded.annotations, loaded.diagnostics)
    if options.scenarios and not options.list_static:
        plan = plan.only(set(options.scenarios))
    for diagnostic in plan.diagnostics:
        print(diagnostic, file=sys.stderr)
    if options.list_static:
        return _list_static(plan)
    if options.mutate and options.max_mutants < 1:
        print("infralens verify: --max-mutants must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    if plan.untraceable:
        for reason in plan.untraceable:
            print(f"infralens verify: {reason}", file=sys.stderr)
        return EXIT_USAGE
    return _run(plan, device, options)


def _run(plan: Plan, device: str, options: VerifyOptions) -> int:
    from infralens.verify.progress import Progress
    from infralens.verify.report import findings, summary_table, write_report
    from infralens.verify.runner import run_plan, work_units

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
    print(summary_table(result))
    problems = findings(result)
    for line in problems:
        print(line, file=sys.stderr)
    if options.report:
        path = write_report(result, options.report)
        print(f"report written to {path}")
    if any(d.severity is Severity.ERROR for d in plan.diagnostics):
        return EXIT_FINDINGS
    return EXIT_OK if result.ok and not problems else EXIT_FINDINGS


def _list_static(plan: Plan) -> int:
    statics = plan.static_steps()
    for step in statics:
        print(f"{step.where}: {step.step_id}: static: {step.static}")
    unassigned = [step for step in plan.steps if not step.static and step.problem and step.problem not in plan.untraceable]
    print(f"{len(statics)} static step(s) of {len(plan.steps)}")
    return EXIT_FINDINGS if unassigned else EXIT_OK
