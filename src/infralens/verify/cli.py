"""``infralens verify``: run the tiny scenarios, trace the annotated statements, check the expects.

Heavy imports (torch, diffusers, libcst) happen inside the handler or in worker processes, so this
module costs nothing when ``infralens --version`` loads the extensions.
"""

from __future__ import annotations

import argparse
import sys

from infralens.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, command, extension


@extension
def add_verify_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "verify",
        help="run tiny-model scenarios, trace the annotated statements and check their expects",
        description="Run the scenarios named by the annotations on tiny random-weight models, count how often each "
        "annotated statement ran and evaluate its 'expect' claims in the real frame. Exit 1 when an expect fails, a "
        "traced step did not run, or a step is neither traced nor static.",
    )
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto", help="where the models run (auto: cuda if present)")
    parser.add_argument("--scenario", action="append", default=[], metavar="NAME", help="run only this scenario (repeatable)")
    parser.add_argument("--report", metavar="PATH", help="write the JSON report here (e.g. reports/verify-cpu.json)")
    parser.add_argument("--list-static", action="store_true", help="list the static (never traced) steps with their reasons, then exit")
    parser.add_argument("--list", action="store_true", help="list the scenario catalog, then exit")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes to run at once (default 1)")
    parser.add_argument(
        "--backend",
        choices=("auto", "settrace", "instrument", "monitoring"),
        default="auto",
        help="tracer backend (auto: monitoring on 3.12+, instrument on 3.11 when the bytecode package is installed, else settrace)",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a worker process may take (default 900)")
    parser.add_argument("paths", nargs="*", help="annotation files or folders (default: the annotations folder)")


@command("verify")
def verify_command(args: argparse.Namespace) -> int:
    from infralens.verify.registry import SCENARIOS, scenario_names

    if args.list:
        width = max(len(spec.name) for spec in SCENARIOS)
        for spec in SCENARIOS:
            print(f"{spec.name.ljust(width)}  [{spec.process}]  {spec.summary}")
        return EXIT_OK
    unknown = [name for name in args.scenario if name not in scenario_names()]
    if unknown:
        print(f"infralens verify: unknown scenario(s) {', '.join(unknown)}; see 'infralens verify --list'", file=sys.stderr)
        return EXIT_USAGE
    device = _device(args.device)
    if device is None:
        return EXIT_USAGE

    from infralens.commands import open_context
    from infralens.project import load_annotations
    from infralens.verify.plan import build_plan

    project, resolver = open_context(args)
    loaded = load_annotations(project, args.paths or None)
    plan = build_plan(project, resolver, loaded.annotations, loaded.diagnostics)
    if args.scenario and not args.list_static:
        plan = plan.only(set(args.scenario))
    for diagnostic in plan.diagnostics:
        print(diagnostic, file=sys.stderr)
    if args.list_static:
        return _list_static(plan)

    from infralens.verify.progress import Progress
    from infralens.verify.report import findings, summary_table, write_report
    from infralens.verify.runner import run_plan

    progress = Progress(len(args.scenario) if args.scenario else len(plan.scenarios()), sys.stderr)
    names = tuple(dict.fromkeys(args.scenario)) if args.scenario else None
    result = run_plan(plan, device, jobs=args.jobs, backend=args.backend, progress=progress, timeout=args.timeout, scenarios=names)
    progress.close()
    print(summary_table(result))
    problems = findings(result)
    for line in problems:
        print(line, file=sys.stderr)
    if args.report:
        path = write_report(result, args.report)
        print(f"report written to {path}")
    if plan.diagnostics and any(d.severity.value == "error" for d in plan.diagnostics):
        return EXIT_FINDINGS
    return EXIT_OK if result.ok and not problems else EXIT_FINDINGS


def _device(name: str) -> str | None:
    """Resolve --device in this process without importing torch when the answer is clear."""
    if name == "cpu":
        return "cpu"
    try:
        import torch
    except ModuleNotFoundError:
        print("infralens verify: torch is not installed: pip install 'infralens[verify]'", file=sys.stderr)
        return None
    available = torch.cuda.is_available()
    if name == "cuda" and not available:
        print(f"infralens verify: --device cuda, but torch {torch.__version__} sees no CUDA device", file=sys.stderr)
        return None
    return "cuda" if name == "cuda" or available else "cpu"


def _list_static(plan) -> int:
    statics = plan.static_steps()
    for step in statics:
        print(f"{step.where}: {step.step_id}: static: {step.static}")
    unassigned = [step for step in plan.steps if not step.static and step.problem]
    print(f"{len(statics)} static step(s) of {len(plan.steps)}")
    return EXIT_FINDINGS if unassigned else EXIT_OK
