"""``infralens add``, ``infralens coverage`` and ``infralens preview``.

Handlers import their machinery lazily: this module is imported on every
``infralens`` run and must stay cheap.
"""

from __future__ import annotations

import argparse
import sys

from infralens.commands import EXIT_FINDINGS, EXIT_OK, command, extension, open_context


@extension
def _add_parsers(sub: argparse._SubParsersAction) -> None:
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
    add.add_argument("--lab", help="lab slug for a new annotation, e.g. 03-scheduler-reading")
    add.add_argument("--id", dest="annotation_id", help="annotation id (new file name), or the existing annotation to extend")
    add.add_argument("--dist", help="distribution (default: the first part of the target or path)")
    add.add_argument("--max-steps", type=int, default=None, help="how many statements to scaffold for a bare TARGET (default 8)")
    add.add_argument("--dry-run", action="store_true", help="print the resulting file instead of writing it")

    coverage = sub.add_parser("coverage", help="run a scenario and print the tree of upstream functions it called, annotated ones marked")
    coverage.add_argument("scenario", help="scenario name (see 'infralens coverage --list')", nargs="?")
    coverage.add_argument("--list", action="store_true", help="list the scenarios that can be mapped")
    coverage.add_argument("--json", metavar="PATH", help="also write the call tree as JSON (the site draws it)")
    coverage.add_argument("--depth", type=int, default=None, help="print only this many levels")
    coverage.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")

    preview = sub.add_parser("preview", help="build one annotated function or lab page quickly and serve it on 127.0.0.1")
    preview.add_argument("what", metavar="TARGET|LAB", help="a target, an annotation id, or a lab slug (03-scheduler-reading)")
    preview.add_argument("--no-serve", action="store_true", help="build only and print the page's path")
    preview.add_argument("--port", type=int, default=8000, help="port for the local server (0 picks a free one)")
    preview.add_argument("--out", metavar="DIR", help="build into DIR (default: a temporary directory)")


@command("add")
def _add(args: argparse.Namespace) -> int:
    from infralens.maintainer.scaffold import MAX_KEY_STATEMENTS, parse_selection, plan_scaffold
    from infralens.maintainer.scaffold_yaml import add_to_project

    project, resolver = open_context(args)
    selection = parse_selection(args.selection, args.dist)
    limit = MAX_KEY_STATEMENTS if args.max_steps is None else args.max_steps
    plan = plan_scaffold(resolver, selection, max_steps=limit)
    result = add_to_project(project, resolver, plan, annotation_id=args.annotation_id, lab=args.lab, dry_run=args.dry_run)
    where = project.relative(result.path)
    for step in result.already:
        print(f"already annotated: line {step.statement.start_line}: {step.selector.describe()}", file=sys.stderr)
    if args.dry_run:
        sys.stdout.write(result.text)
        return EXIT_OK
    if not result.added:
        print(f"{where}: nothing to add — every chosen statement is already annotated in {result.annotation_id!r}", file=sys.stderr)
        return EXIT_FINDINGS
    verb = "created" if result.created else "extended"
    print(f"{verb} {where} ({result.annotation_id}): {len(result.added)} step(s) for {plan.dotted_target}")
    for step in result.added:
        print(f"  line {step.statement.start_line}: {step.selector.describe()}")
    print(f"next: write the TODO notes and summary, then 'infralens validate {where}' and 'infralens show {result.annotation_id}'")
    return EXIT_OK


@command("coverage")
def _coverage(args: argparse.Namespace) -> int:
    from pathlib import Path

    from infralens.commands import EXIT_USAGE, print_diagnostics
    from infralens.project import load_annotations
    from infralens.verify import SCENARIOS

    if args.list or not args.scenario:
        for spec in SCENARIOS:
            print(f"{spec.name:22} {spec.summary}")
        return EXIT_OK if args.list else EXIT_USAGE
    from infralens.maintainer.coverage import run_scenario_coverage
    from infralens.maintainer.coverage_format import format_tree, write_json

    project, resolver = open_context(args)
    loaded = load_annotations(project)
    print_diagnostics(d for d in loaded.diagnostics if d.severity.value == "error" and d.code != "todo")
    coverage = run_scenario_coverage(args.scenario, resolver, loaded.annotations, device=args.device)
    sys.stdout.write(format_tree(coverage, depth=args.depth))
    if args.json:
        write_json(coverage, Path(args.json))
        print(f"wrote {args.json}")
    return EXIT_OK if coverage.status == "passed" else EXIT_FINDINGS


@command("preview")
def _preview(args: argparse.Namespace) -> int:
    from pathlib import Path

    from infralens.maintainer.preview import build_preview, choose_page, serve

    project, _resolver = open_context(args)
    page = choose_page(project, args.what)
    sources = dict(item.partition("=")[::2] for item in args.source)
    build = build_preview(project, page, Path(args.out) if args.out else None, sources=sources)
    for line in build.warnings:
        print(line, file=sys.stderr)
    print(f"built the {page.kind} page for {page.name} in {build.seconds:.2f} s ({len(build.warnings)} warnings): {build.index_html}")
    if args.no_serve:
        return EXIT_OK
    serve(build.out_dir, args.port)
    return EXIT_OK
