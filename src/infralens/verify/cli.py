"""``infralens verify``: run the tiny scenarios, trace the annotated statements, check the expects.

Heavy imports (torch, diffusers, libcst) happen inside the handler or in worker processes, so this
module costs nothing when ``infralens --version`` loads the extensions.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from infralens.bounds import cli_seconds, cli_whole
from infralens.commands import command, extension, open_context
from infralens.verify.trace.backend_name import BackendName

if TYPE_CHECKING:
    from infralens.verify.command import OpenContext, VerifyOptions

MAX_JOBS = 256
MAX_TIMEOUT_S = 86_400.0
"""A worker may take at most a day: ``nan``, ``inf``, zero and negative timeouts are usage errors."""
MAX_MUTANTS = 100


@extension
def add_verify_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "verify",
        help="run tiny-model scenarios, trace the annotated statements and check their expects",
        description="Run the scenarios named by the annotations on tiny random-weight models, count how often each "
        "annotated statement ran and evaluate its 'expect' claims in the real frame. Exit 1 when an expect fails, a "
        "traced step did not run, or a step is neither traced nor static.",
    )
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto", help="where the models run (auto: cuda if present)")
    parser.add_argument("--scenario", action="append", default=[], metavar="NAME", help="run only this scenario (repeatable)")
    parser.add_argument(
        "--annotation",
        action="append",
        default=[],
        metavar="ID",
        help="verify only this annotation (repeatable); with --report, its steps are merged into the existing report (so is --scenario)",
    )
    parser.add_argument(
        "--report",
        metavar="PATH",
        help="write the JSON report here (e.g. reports/verify-cpu.json; '-': standard output, the summary then goes to standard error)",
    )
    parser.add_argument("--list-static", action="store_true", help="list the static (never traced) steps with their reasons, then exit")
    parser.add_argument("--list", action="store_true", help="list the scenario catalog, then exit")
    parser.add_argument("--jobs", type=cli_whole(1, MAX_JOBS), default=1, help=f"worker processes to run at once, 1-{MAX_JOBS} (default 1)")
    parser.add_argument(
        "--backend",
        choices=tuple(BackendName),
        default=BackendName.AUTO,
        help="tracer backend (auto: monitoring on 3.12+, instrument on 3.11 when the bytecode package is installed, else settrace)",
    )
    parser.add_argument(
        "--timeout",
        type=cli_seconds(MAX_TIMEOUT_S),
        default=900.0,
        help=f"seconds a worker process may take, more than 0 and at most {MAX_TIMEOUT_S:g} (default 900)",
    )
    parser.add_argument(
        "--mutate",
        action="store_true",
        help="also mutation-test the expects: run each step's scenario again with wrong versions of its statement and "
        "report which an expect caught (killed), missed (survived) or could not tell apart (equivalent)",
    )
    parser.add_argument(
        "--max-mutants", type=cli_whole(0, MAX_MUTANTS), default=4, metavar="N", help=f"mutants tried per step with --mutate, at most {MAX_MUTANTS} (default 4)"
    )
    parser.add_argument(
        "--against",
        action="append",
        default=[],
        metavar="DIST==X.Y.Z",
        help="run the scenarios on this release instead of the installed one: it is installed into a cached folder of its own "
        "(never the project's environment) and the report's versions name it (repeatable, one per distribution)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "github", "junit", "sarif"),
        default="text",
        help="text; github: workflow commands (paths from the git repository root); junit: JUnit XML; sarif: SARIF 2.1.0 (on standard output)",
    )
    parser.add_argument("paths", nargs="*", help="annotation files or folders (default: the annotations folder)")


@command("verify")
def verify_command(args: argparse.Namespace) -> int:
    from pathlib import Path

    from infralens.verify.command import VerifyOptions

    options = VerifyOptions(
        device=args.device,
        scenarios=tuple(args.scenario),
        report=Path(args.report) if args.report else None,
        list_static=args.list_static,
        list_catalog=args.list,
        jobs=args.jobs,
        backend=BackendName(args.backend),
        timeout=args.timeout,
        paths=tuple(args.paths),
        mutate=args.mutate,
        max_mutants=args.max_mutants,
        annotations=tuple(args.annotation),
        against=tuple(args.against),
        format=args.format,
    )

    def opened(sources: tuple[str, ...]):
        return open_context(argparse.Namespace(**{**vars(args), "source": [*args.source, *sources]}))

    return _run_with_report(args.report, options, opened)


def _run_with_report(report: str | None, options: VerifyOptions, opened: OpenContext) -> int:
    """``run_verify``, with ``--report`` checked before any scenario runs; ``-`` puts the report alone on standard output."""
    from dataclasses import replace

    from infralens.userfiles import STANDARD_OUTPUT, check_output, report_on_standard_output
    from infralens.verify.command import run_verify

    if report != STANDARD_OUTPUT:
        if report:
            check_output(report)  # a FIFO, a device or a link leading out of its folder: refused now, not after the run
        return run_verify(options, opened)
    with report_on_standard_output("verify.json") as path:
        return run_verify(replace(options, report=path), opened)
