"""The ``infralens`` command line.

Exit codes: 0 clean, 1 findings (invalid annotations, drift, failed checks),
2 usage or load errors. Expected problems print ``path:line:col: ...``
messages, never a traceback. Subcommands import what they need lazily so
``infralens --version`` stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from infralens import __version__
from infralens.bounds import cli_whole
from infralens.commands import COMMANDS, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, EXTENSIONS, command, open_context, print_diagnostics, say


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="infralens", description="Annotate the real source of installed Python packages and keep the notes true.")
    parser.add_argument("--version", action="version", version=f"infralens {__version__}")
    parser.add_argument("--project", metavar="DIR", help="project root (default: found upwards from the current directory)")
    parser.add_argument(
        "--source",
        metavar="DIST=PATH",
        action="append",
        default=[],
        help="read distribution DIST from a directory or wheel instead of the installed one (repeatable); "
        "DIST==VERSION=PATH names the release of a folder whose metadata does not",
    )
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the index cache")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    show = sub.add_parser("show", help="print a function's real source with its notes beside the annotated lines")
    show.add_argument("target", help="module.qualname (e.g. diffusers.schedulers.scheduling_ddim.DDIMScheduler.step) or an annotation id")
    show.add_argument("--dist", help="distribution to read (default: the target's top-level package)")
    show.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    show.add_argument("--width", type=cli_whole(20, 1000), default=None, help="output width (default: terminal width)")

    locate = sub.add_parser("locate", help="list where a class or function is defined (e.g. DDIMScheduler.step)")
    locate.add_argument("name")
    locate.add_argument("--dist", help="distribution to search (default: the first of the project's [tool.infralens] distributions)")

    validate = sub.add_parser("validate", help="check schema and resolution of annotation files")
    validate.add_argument("paths", nargs="*", help="files or folders (default: the annotations folder)")
    validate.add_argument(
        "--format",
        choices=("text", "github", "junit", "sarif"),
        default="text",
        help="text; github: workflow commands (paths from the git repository root); junit: JUnit XML; sarif: SARIF 2.1.0",
    )

    sub.add_parser("schema", help="print the path of the annotation JSON Schema (for editors)")

    for extend in EXTENSIONS:
        extend(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    utf8_safe_streams()
    _load_extensions()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    fmt = getattr(args, "format", "text")
    if fmt in ("github", "junit", "sarif"):  # a tool error (exit 2) is written in that format too
        from infralens.ci_output import with_tool_errors

        return with_tool_errors(fmt, args.command, args.project, lambda: _dispatch(args))
    return _dispatch(args)


def _dispatch(args: argparse.Namespace) -> int:
    from infralens.stops import sigterm_interrupts

    try:
        with sigterm_interrupts():  # SIGTERM stops a command like Ctrl-C: its cleanup runs, exit 2
            return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        print("infralens: interrupted", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:
        return _report_failure(error)


def utf8_safe_streams() -> None:
    """Standard output and error never write a byte that is not UTF-8 (nor of the streams' own encoding).

    Every field is escaped before it is printed (:mod:`infralens.errors`); this is the net under it: a lone
    surrogate that still reached a stream (a file name that is not UTF-8, kept by Python as U+DC80–U+DCFF)
    is written as the text ``\\udcXX``, where Python would otherwise write the raw byte or stop with an error."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "strict") in ("strict", "surrogateescape"):
            reconfigure(errors="backslashreplace")


def _report_failure(error: Exception) -> int:
    """Expected errors print their diagnostics; anything else is a bug, said briefly."""
    from infralens.errors import InfralensError, printable  # imported only on failure: keeps the warm paths light

    if isinstance(error, InfralensError):
        print(f"infralens: error: {printable(str(error))}", file=sys.stderr)
        print_diagnostics(error.diagnostics)
        return EXIT_USAGE
    if isinstance(error, TimeoutError):  # e.g. filelock.Timeout: another process holds the writer lock
        print(printable(f"infralens: error: {error} — another infralens process is writing; nothing was changed, try again"), file=sys.stderr)
        return EXIT_USAGE
    if os.environ.get("INFRALENS_DEBUG"):
        raise error
    print(printable(f"infralens: internal error: {type(error).__name__}: {error} (set INFRALENS_DEBUG=1 for a traceback)"), file=sys.stderr)
    return EXIT_USAGE


def _load_extensions() -> None:
    """Import modules that register extra subcommands (each is optional while it is being built)."""
    import importlib

    for name in (
        "infralens.drift.cli",
        "infralens.verify.cli",
        "infralens.maintainer.cli",
        "infralens.maintainer.init_cli",
        "infralens.cost.cli",
        "infralens.matrix.cli",
    ):
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name and not name.startswith(str(error.name)):
                raise


# ---------------------------------------------------------------------------
# Core commands
# ---------------------------------------------------------------------------


@command("show")
def _show(args: argparse.Namespace) -> int:
    import shutil

    from infralens.render import function_view, render
    from infralens.resolve import annotated_target

    project, resolver = open_context(args, need_project=False)
    shown = annotated_target(project, resolver, args.target, args.dist)
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    width = args.width or max(100, shutil.get_terminal_size((160, 40)).columns)
    sys.stdout.write(render(function_view(shown.target.source, shown.target.definition, list(shown.annotations)), color=color, width=width))
    print_diagnostics(shown.problems)
    return EXIT_FINDINGS if shown.problems else EXIT_OK


@command("locate")
def _locate(args: argparse.Namespace) -> int:
    from infralens.libraries import Libraries

    project, resolver = open_context(args, need_project=False)
    dist = args.dist or (project.libraries if project is not None else Libraries()).default
    found = resolver.locate(dist, args.name)
    for problem in resolver.skipped:
        say(f"infralens: note: skipped {problem}", error=True)
    if not found:
        say(f"{args.name}: not defined anywhere in {resolver.tree(dist).describe()}", error=True)
        return EXIT_FINDINGS
    for item in found:  # upstream file names: one visible, inert line each
        d = item.definition
        say(f"{item.source.relpath}:{d.start_line}-{d.end_line}: {d.kind.value} {item.dotted}")
    return EXIT_OK


@command("validate")
def _validate(args: argparse.Namespace) -> int:
    from infralens.resolve import validate_project

    project, resolver = open_context(args)
    validation = validate_project(project, resolver, args.paths or None)
    code = EXIT_FINDINGS if validation.errors else EXIT_OK
    if args.format != "text":
        from infralens import __version__
        from infralens.ci_output import clean_file_case, diagnostic_case, render, repository_prefix

        cases = [diagnostic_case(d, "validate") for d in validation.diagnostics]
        seen = {case.path for case in cases}
        cases += [clean_file_case(name, "validate") for name in validation.file_names if name not in seen]
        summary = validation.summary()
        sys.stdout.write(render(args.format, cases, tool="validate", prefix=repository_prefix(project.root), summary=summary, version=__version__))
        say(summary, error=True)
        return code
    print_diagnostics(validation.diagnostics)
    say(validation.summary())
    return code


@command("schema")
def _schema(args: argparse.Namespace) -> int:
    from importlib import resources

    say(str(resources.files("infralens.schema").joinpath("annotation.schema.json")))  # an install path
    return EXIT_OK


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
