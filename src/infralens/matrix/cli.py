"""``infralens matrix``: run releases × devices into one report, one cell (``--cell``), merge cells (``--merge``), or emit a CI workflow.

Exit codes as for ``check`` and ``verify``: 0 when the cells the policy names are clean, 1 when one of them
has findings, 2 when one of them could not run or the matrix itself could not (a bad flag, cells that do
not merge, a report that cannot be written).
"""

from __future__ import annotations

import argparse
import sys

from infralens.bounds import cli_seconds, cli_whole
from infralens.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, command, extension, say

MAX_JOBS = 64
EXIT_OF = {"clean": EXIT_OK, "findings": EXIT_FINDINGS, "error": EXIT_USAGE}


@extension
def add_matrix_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "matrix",
        help="run verify --against and check --against for each release × device into one report (or emit a CI workflow for it)",
        description="Run each release on each device (verify --against DIST==X.Y.Z --device D, and check --against DIST==X.Y.Z) in "
        "parallel, into one combined report. --fail-on decides which cells set the exit code. --cell runs one cell and --merge joins "
        "cell reports (what the workflow of --emit github-actions does, one runner per cell).",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--cell", metavar="DIST==X.Y.Z,DEVICE", help="run this one cell and write its report (a CI job of the emitted workflow)")
    mode.add_argument("--merge", nargs="+", metavar="REPORT", help="merge these cell reports into one matrix (the same merge a local run does)")
    mode.add_argument("--emit", choices=("github-actions",), help="write a workflow that runs one cell per runner and merges them")
    parser.add_argument(
        "--releases",
        action="append",
        default=[],
        metavar="SPEC",
        help="DIST==X.Y.Z[,X.Y.Z...] or a range such as 'diffusers>=0.40,<0.42' (resolved against the package index; repeatable, one per distribution)",
    )
    parser.add_argument("--devices", action="append", default=[], metavar="DEV[,DEV]", help="cpu, cuda or cpu,cuda (default cpu)")
    parser.add_argument("--scenario", action="append", default=[], metavar="NAME", help="run only this scenario in each cell (repeatable)")
    parser.add_argument("--jobs", type=cli_whole(1, MAX_JOBS), default=None, help="cells at once (default: one per two cores)")
    parser.add_argument(
        "--fail-on",
        choices=("newest", "all", "none"),
        default="newest",
        help="which cells set the exit code: the newest release of each distribution (default), all, or none (report only)",
    )
    parser.add_argument("--timeout", type=cli_seconds(86_400.0), default=900.0, help="seconds a verify worker may take (default 900)")
    parser.add_argument("--offline", action="store_true", help="resolve a range from the cached release list or wheels only")
    parser.add_argument("--out", metavar="FILE", help="write the report (or, with --emit, the workflow) here ('-' or none: standard output)")
    parser.add_argument("--history-runs", metavar="FILE", help="also write the cells of one device as the site's summary of runs (reports/history-runs.json)")
    parser.add_argument("--history-device", choices=("cpu", "cuda"), default="cpu", help="the device --history-runs summarizes (default cpu)")
    parser.add_argument("--gpu-runner", default="gpu", metavar="LABEL", help="with --emit: the runs-on label of the cuda cells (default gpu)")
    parser.add_argument(
        "--install",
        default="pip install -e .",
        metavar="COMMAND",
        help="with --emit: how each job installs the project and InfraLens (default: pip install -e .)",
    )


@command("matrix")
def matrix_command(args: argparse.Namespace) -> int:
    from infralens.errors import InfralensError

    try:
        if args.emit:
            return _emit(args)
        if args.merge:
            return _merge(args)
        return _run(args)
    except InfralensError as error:
        say(f"infralens matrix: {error}", error=True)
        return EXIT_USAGE


def _settings(args: argparse.Namespace):  # -> CellSettings
    from infralens.matrix.run import CellSettings

    return CellSettings(
        project=args.project, sources=tuple(args.source), no_cache=args.no_cache, scenarios=tuple(dict.fromkeys(args.scenario)), timeout=args.timeout
    )


def _check_scenarios(args: argparse.Namespace) -> None:
    from infralens.commands import open_context
    from infralens.matrix.cells import MatrixInputError
    from infralens.verify import project_catalog

    if not args.scenario:
        return
    project, _ = open_context(args)
    unknown = [name for name in args.scenario if name not in project_catalog(project).names()]
    if unknown:
        raise MatrixInputError(f"--scenario: unknown scenario(s) {', '.join(unknown)}; see 'infralens verify --list'")


def _run(args: argparse.Namespace) -> int:
    import tempfile
    from pathlib import Path

    from infralens import __version__
    from infralens.matrix.cells import make_cells, parse_cell
    from infralens.matrix.merge import merge_cells, single
    from infralens.matrix.run import default_jobs, lock_sha256, run_cell, run_cells

    cells = (parse_cell(args.cell),) if args.cell else make_cells(args.releases, args.devices or ["cpu"], offline=args.offline)
    _check_scenarios(args)
    _check_outputs(args)
    settings = _settings(args)
    lock = lock_sha256(settings)
    if args.cell:  # this process is the cell's own (a CI job, or one cell of a local run)
        record, output = run_cell(cells[0], settings)
        _print_cell(record, output)
        parts = [(f"cell-{cells[0].slug}", single(record, __version__, lock, settings.scenarios, args.fail_on))]
        return _finish(args, merge_cells(parts, args.fail_on, cells), quiet=True)
    jobs = args.jobs or default_jobs(len(cells))
    say(f"infralens matrix: {len(cells)} cell(s), {jobs} at once", error=True)
    with tempfile.TemporaryDirectory(prefix="infralens-matrix-") as folder:
        parts = run_cells(cells, settings, jobs, Path(folder), _print_output, lambda r: single(r, __version__, lock, settings.scenarios, args.fail_on))
    return _finish(args, merge_cells(parts, args.fail_on, cells))


def _merge(args: argparse.Namespace) -> int:
    from infralens.matrix.cells import make_cells
    from infralens.matrix.merge import merge_cells
    from infralens.reports import load_matrix_report

    expected = make_cells(args.releases, args.devices or ["cpu"], offline=args.offline) if args.releases else None
    _check_outputs(args)
    parts = [(path, load_matrix_report(path)) for path in args.merge]
    report = merge_cells(parts, args.fail_on, expected)
    if args.scenario and tuple(dict.fromkeys(args.scenario)) != report.scenarios:
        from infralens.matrix.merge import MergeError

        raise MergeError(f"--merge: the cells ran the scenarios {', '.join(report.scenarios) or '(all)'}, not those --scenario names")
    return _finish(args, report)


def _check_outputs(args: argparse.Namespace) -> None:
    from infralens.userfiles import STANDARD_OUTPUT, check_output

    for path in (args.out, args.history_runs):
        if path and path != STANDARD_OUTPUT:
            check_output(path)  # a FIFO, a device or a link leading out of its folder: refused before any cell runs


def _finish(args: argparse.Namespace, report, *, quiet: bool = False) -> int:  # report: MatrixReport
    from infralens.matrix.cells import in_scope
    from infralens.matrix.merge import history_runs
    from infralens.reports import dumps_report

    _write(args.out, dumps_report(report), "matrix")
    if args.history_runs:
        name = args.out if args.out and args.out != "-" else "matrix"
        _write(args.history_runs, dumps_report(history_runs(report, args.history_device, name)), "summary of runs")
    if quiet:
        return EXIT_OF[report.verdict]
    scope = {cell.key for cell in in_scope(report.cells, report.policy)}
    for cell in report.cells:
        mark = "decides" if cell.key in scope else "reported"
        say(f"{cell.label}: {cell.outcome} ({mark}; verify exit {cell.verify.exit_code}, check exit {cell.check.exit_code})", error=True)
    say(f"infralens matrix: {report.verdict} under --fail-on {report.policy} ({len(report.cells)} cell(s))", error=True)
    return EXIT_OF[report.verdict]


def _write(path: str | None, text: str, what: str) -> None:
    from infralens.userfiles import STANDARD_OUTPUT, write_output

    if not path or path == STANDARD_OUTPUT:
        sys.stdout.write(text)
        return
    write_output(path, text, what=what)
    say(f"wrote {path}", error=True)


def _print_cell(record, output: str) -> None:  # record: MatrixCell
    from infralens.errors import printable
    from infralens.matrix.run import OUTPUT_TAIL_CHARS

    tail = output[-OUTPUT_TAIL_CHARS:]
    if len(output) > OUTPUT_TAIL_CHARS:  # from the first whole line
        tail = "…\n" + tail.partition("\n")[2]
    sys.stderr.write(printable(f"── {record.label}: {record.outcome} in {record.seconds:g} s ──\n{tail}"))
    if tail and not tail.endswith("\n"):
        sys.stderr.write("\n")


def _print_output(record, output: str) -> None:  # record: MatrixCell
    """What a cell's own process printed (its header and its commands' output), once it is done."""
    from infralens.errors import printable

    sys.stderr.write(printable(output if output.strip() else f"── {record.label}: {record.outcome} ──\n"))
    if output and not output.endswith("\n"):
        sys.stderr.write("\n")


def _emit(args: argparse.Namespace) -> int:
    from infralens.matrix.cells import MatrixInputError, make_cells
    from infralens.matrix.emit import WorkflowOptions, workflow_text

    cells = make_cells(args.releases, args.devices or ["cpu"], offline=args.offline)
    if not args.gpu_runner.strip() or any(ch in args.gpu_runner for ch in "\n\r${}"):
        raise MatrixInputError(f"--gpu-runner {args.gpu_runner[:60]!r}: expected a runner label (no line breaks, '$', braces)")
    if not args.install.strip() or any(ch in args.install for ch in "\n\r") or "${{" in args.install:
        raise MatrixInputError("--install: expected one shell command line (no line breaks, no '${{' expressions)")
    devices = tuple(dict.fromkeys(cell.device for cell in cells))
    scenarios = tuple(dict.fromkeys(args.scenario))
    options = WorkflowOptions(tuple(args.releases), devices, scenarios, args.fail_on, args.gpu_runner, install=args.install, project=args.project)
    _write(args.out, workflow_text(cells, options), "workflow")
    return EXIT_OK
