"""``infralens lock`` and ``infralens check``: argument parsing and printing only.

Imported whenever the CLI starts, so only argparse wiring lives at module
level; each handler imports the one function it calls (:func:`infralens.drift.run.check`,
:func:`infralens.drift.update.write_lock`) and turns its result into output and an exit code.
"""

from __future__ import annotations

import argparse
import sys

from infralens.commands import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, command, extension, open_context, print_diagnostics, say
from infralens.drift.request import CheckRequest, OutputFormat


@extension
def _add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lock = sub.add_parser("lock", help="record what every annotated step was reviewed against (annotations/annotations.lock)")
    lock.add_argument("ids", nargs="*", help="with --update: annotation or step ids to accept (default: everything that drifted)")
    lock.add_argument("--update", action="store_true", help="rewrite only the entries of IDS (or of everything drifted), keeping the rest byte for byte")

    check = sub.add_parser("check", help="classify every locked step against the sources: unchanged, moved, changed, deleted, unreadable")
    check.add_argument("ids", nargs="*", help="annotation or step ids to check (default: all)")
    check.add_argument(
        "--against",
        action="append",
        default=[],
        metavar="SPEC",
        help="check another release without installing it: DIST==X.Y.Z (wheel fetched with pip into the cache), a .whl file, or [DIST=]DIR (repeatable)",
    )
    check.add_argument(
        "--format", choices=[f.value for f in OutputFormat], default=OutputFormat.TEXT.value, help="output format (json: see docs/guide/drift.md)"
    )
    check.add_argument("--all", dest="everything", action="store_true", help="text format: list unchanged steps too")
    check.add_argument(
        "--strict", action="store_true", help="also fail on low-severity findings (a target's body or decorators changed around unchanged steps)"
    )
    check.add_argument("--explain", metavar="STEP", help="also print which rule decided STEP (a step id) and the evidence it weighed")
    check.add_argument(
        "--walk",
        action="store_true",
        help="with --against: follow each statement through the newest release of every minor series in between, not in one jump",
    )

    history = sub.add_parser("history", help="which upstream releases each locked step holds in: a table of states per release, or JSON")
    history.add_argument("ids", nargs="*", help="annotation or step ids (default: all)")
    history.add_argument(
        "--since",
        action="append",
        default=[],
        metavar="[DIST=]VERSION",
        help="first release (inclusive); a bare version applies to the distributions that have it (default: the lock's minor series)",
    )
    history.add_argument("--until", action="append", default=[], metavar="[DIST=]VERSION", help="last release (inclusive; default: the newest)")
    history.add_argument("--format", choices=["text", "json"], default="text", help="json: the reports/history.json format (docs/guide/history.md)")
    history.add_argument("--offline", action="store_true", help="read only wheels already cached; name the releases that are missing")
    history.add_argument("--per-series", action="store_true", help="only the newest release of each minor series in the range (0.35.2 for 0.35.x)")
    history.add_argument(
        "--walk",
        action="store_true",
        help="reach each release from the lock's through the releases in between, one by one (rows not cached)",
    )
    history.add_argument("--output", metavar="FILE", help="write the report to FILE instead of standard output ('-': standard output)")
    history.add_argument(
        "--runs",
        nargs="+",
        metavar="REPORT",
        help="instead: summarize verify --against reports named <dist>-<version>.json into which claims held when run there (reports/history-runs.json)",
    )


@command("check")
def _check(args: argparse.Namespace) -> int:
    from infralens.drift.run import check

    request = CheckRequest(
        project=args.project,
        sources=tuple(args.source),
        use_cache=not args.no_cache,
        ids=tuple(args.ids),
        against=tuple(args.against),
        format=OutputFormat(args.format),
        everything=args.everything,
        strict=args.strict,
        explain=args.explain,
        walk=args.walk,
    )
    output = check(request, lambda: open_context(args))
    sys.stdout.write(output.text)
    return output.exit_code


@command("history")
def _history(args: argparse.Namespace) -> int:
    from pathlib import Path

    from infralens.drift.history.view import HistoryRequest, history

    if args.runs:
        from infralens.drift.runs_summary import write_runs_summary

        return write_runs_summary(args.runs, args.output)
    project, resolver = open_context(args)
    request = HistoryRequest(
        tuple(args.ids), tuple(args.since), tuple(args.until), args.offline, args.format == "json", per_series=args.per_series, walk=args.walk
    )
    from infralens.userfiles import STANDARD_OUTPUT, UserFileError, check_output, write_output

    output = None if args.output == STANDARD_OUTPUT else args.output
    try:
        if output:
            check_output(output, within=project.root)  # a FIFO, a device or a link leading out: refused before the work
            if not Path(output).parent.is_dir():
                raise UserFileError(f"{output}: cannot write the release history (its folder {Path(output).parent} does not exist); nothing was written")
        text = history(request, project, resolver)
        if output:  # whole or not at all: Ctrl-C or a full disk leaves the previous report
            write_output(output, text, what="release history", within=project.root)
            say(f"wrote {output}", error=True)
    except UserFileError as error:
        say(f"infralens history: {error} (choose a writable path with --output)", error=True)
        return EXIT_USAGE
    if not output:
        sys.stdout.write(text)
    return EXIT_OK


@command("lock")
def _lock(args: argparse.Namespace) -> int:
    from infralens.drift.update import LockAction, write_lock

    project, resolver = open_context(args)
    if args.ids and not args.update:
        say("infralens lock: ids are only accepted with --update (a plain 'infralens lock' rewrites the whole lock)", error=True)
        return EXIT_USAGE
    outcome = write_lock(project, resolver, update=args.update, ids=args.ids)
    print_diagnostics(outcome.diagnostics)
    if outcome.action is LockAction.REFUSED:
        say(f"infralens lock: {len(outcome.unresolved)} annotation(s) have errors (above); nothing written (fix them: infralens validate)", error=True)
        return EXIT_FINDINGS
    if outcome.unresolved:
        say(f"infralens lock --update: {', '.join(outcome.unresolved)} have errors (above); their entries are kept as they were", error=True)
    if outcome.action is LockAction.WROTE:
        say(f"wrote {outcome.display}: {outcome.annotations} annotations, {outcome.steps} steps")
    elif outcome.action is LockAction.UNCHANGED:
        say(f"{outcome.display}: nothing to update")
    else:
        say(f"updated {outcome.display}: {outcome.rewritten} entries rewritten or added, {outcome.removed} removed")
    return EXIT_OK if outcome.complete else EXIT_FINDINGS
