"""``infralens add``, ``infralens fix``, ``infralens coverage`` and ``infralens preview``.

Handlers import their machinery lazily: this module is imported on every
``infralens`` run and must stay cheap.
"""

from __future__ import annotations

import argparse

from infralens.bounds import cli_whole
from infralens.commands import command, extension, open_context


@extension
def _add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    add = sub.add_parser(
        "add",
        help="scaffold an annotation (or more steps) for a target or for lines of an upstream file",
        description=(
            "TARGET is module.qualname, or PATH:L10-L24 with PATH relative to the distribution root "
            "(e.g. diffusers/schedulers/scheduling_ddim.py:L445-L449). Selectors are computed from the "
            "statements' text, never their line numbers; notes start as TODO until you write them. "
            "Without lines, the function's top-level assignments/returns are scaffolded (at most --max-steps), "
            "or its def/class header when it has none."
        ),
    )
    add.add_argument("selection", metavar="TARGET|PATH:Lx-Ly")
    add.add_argument("--lab", help="lab slug for a new annotation, e.g. 03-scheduler-reading (needed when the project has labs)")
    add.add_argument("--id", dest="annotation_id", help="annotation id (new file name), or the existing annotation to extend")
    add.add_argument("--dist", help="distribution (default: the first part of the target or path)")
    add.add_argument("--max-steps", type=cli_whole(1, 1000), default=None, help="how many statements to scaffold for a bare TARGET, 1-1000 (default 8)")
    add.add_argument("--dry-run", action="store_true", help="print the resulting file instead of writing it")

    fix = sub.add_parser(
        "fix",
        help="re-anchor moved and changed steps in the annotation YAML and flag every drifted step with 'review:'",
        description=(
            "Runs the drift check against the sources (use --source DIST=PATH for another tree), rewrites the target of "
            "each annotation whose target moved (and the lab pages and concept map naming it), re-anchors moved or changed "
            "steps whose selector no longer finds them, and sets 'review: <why>' where a statement's text changed; a step whose "
            "statement moved into a function the target calls moves to that function's annotation; deleted steps are kept, "
            "flagged with the closest candidates. Comments, layout and line endings are kept; every file is checked, then all "
            "are written together or none. Then re-read the notes, remove 'review:' and run 'infralens lock --update'."
        ),
    )
    fix.add_argument("ids", nargs="*", help="annotation or step ids (default: everything that drifted)")
    fix.add_argument("--dry-run", action="store_true", help="print the YAML diff instead of writing")
    fix.add_argument(
        "--move-notes",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="move the step of a statement that moved into a function the target calls to an annotation of that function (default: on)",
    )
    fix.add_argument(
        "--reviewed",
        action="store_true",
        help="the notes of IDS were re-read: remove their 'review:' marks (and nothing else); then 'infralens lock --update IDS'",
    )

    coverage = sub.add_parser("coverage", help="run a scenario and print the tree of upstream functions it called, annotated ones marked")
    coverage.add_argument("scenario", help="scenario name (see 'infralens coverage --list')", nargs="?")
    coverage.add_argument("--list", action="store_true", help="list the scenarios that can be mapped")
    coverage.add_argument(
        "--json", metavar="PATH", help="also write the call tree as JSON (the site draws it; '-': standard output, the tree then goes to standard error)"
    )
    coverage.add_argument("--depth", type=cli_whole(0, 10_000), default=None, help="print only this many levels")
    coverage.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")

    preview = sub.add_parser("preview", help="build one annotated function or lab page quickly and serve it on 127.0.0.1")
    preview.add_argument("what", metavar="TARGET|LAB", help="a target, an annotation id, or a lab slug (03-scheduler-reading)")
    preview.add_argument("--no-serve", action="store_true", help="build only and print the page's path")
    preview.add_argument("--port", type=port_number, default=8000, help="port for the local server, 0-65535 (0 picks a free one)")
    preview.add_argument("--out", metavar="DIR", help="build into DIR (default: a temporary directory)")


@command("add")
def _add(args: argparse.Namespace) -> int:
    from infralens.maintainer.actions import AddOptions, add_annotation

    options = AddOptions(args.selection, args.lab, args.annotation_id, args.dist, args.max_steps, args.dry_run)
    return add_annotation(options, lambda: open_context(args))


@command("fix")
def _fix(args: argparse.Namespace) -> int:
    if args.reviewed:
        from infralens.maintainer.reviewed import mark_reviewed

        return mark_reviewed(tuple(args.ids), args.dry_run, lambda: open_context(args))
    from infralens.maintainer.actions import FixOptions, fix_drift

    return fix_drift(FixOptions(tuple(args.ids), args.dry_run, args.move_notes), lambda: open_context(args))


@command("coverage")
def _coverage(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from infralens.maintainer.actions import CoverageOptions, map_coverage
    from infralens.userfiles import STANDARD_OUTPUT, check_output, report_on_standard_output

    options = CoverageOptions(args.scenario, args.list, args.json, args.depth, args.device)
    if args.json != STANDARD_OUTPUT:
        if args.json:
            check_output(args.json)  # a FIFO, a device or a link leading out of its folder: refused before the scenario runs
        return map_coverage(options, lambda: open_context(args))
    with report_on_standard_output("coverage.json") as path:
        return map_coverage(replace(options, json=str(path)), lambda: open_context(args))


@command("preview")
def _preview(args: argparse.Namespace) -> int:
    from pathlib import Path

    from infralens.maintainer.actions import PreviewOptions, preview_page

    options = PreviewOptions(args.what, not args.no_serve, args.port, Path(args.out) if args.out else None, tuple(args.source))
    return preview_page(options, lambda: open_context(args))


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0-65535 in plain digits (anything else is a usage error, exit 2)."""
    from infralens.bounds import BadNumber, decimal_number

    try:
        return decimal_number(text, 0, 65535)
    except BadNumber as error:
        raise argparse.ArgumentTypeError(f"{error}; a port is 0-65535 (0 picks a free one)") from None
