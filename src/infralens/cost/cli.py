"""``infralens cost``: argument parsing and printing only."""

from __future__ import annotations

import argparse
import re
import sys

from infralens.bounds import cli_whole
from infralens.commands import EXIT_OK, EXIT_USAGE, command, extension, say


@extension
def _add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cost = sub.add_parser("cost", help="memory, FLOPs and offload traffic of models at their published configs (counted on the meta device)")
    cost.add_argument("models", nargs="*", metavar="MODEL", help="model ids from costs/models.yaml (default: all)")
    cost.add_argument("--resolution", action="append", default=[], metavar="WxH", help="image size (repeatable; default: each pipeline's sizes)")
    cost.add_argument("--batch", type=cli_whole(1, 64), default=1, help="images per prompt, 1-64 (default 1)")
    cost.add_argument(
        "--context",
        action="append",
        type=cli_whole(1, 1 << 20),
        default=[],
        metavar="TOKENS",
        help="decoders: a context length for the KV cache per request and the decode figures (repeatable; default 4096, 32768, 131072)",
    )
    cost.add_argument("--format", choices=["text", "json"], default="text", help="json: the reports/cost.json format")
    cost.add_argument("--output", metavar="FILE", help="write the report to FILE instead of standard output ('-': standard output)")
    cost.add_argument("--catalog", metavar="FILE", help="the model catalog (default: costs/models.yaml in the project)")
    cost.add_argument(
        "--measure", choices=["cuda"], help="also build each model on CUDA (random bf16 weights made on the GPU) and measure its weights and forward peak"
    )


def parse_resolution(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*([0-9]{1,5})\s*[xX×]\s*([0-9]{1,5})\s*", text)  # ASCII digits, a few of them
    if not match:
        raise ValueError(f"--resolution {text!r}: expected WIDTHxHEIGHT, e.g. 1024x1024")
    width, height = int(match.group(1)), int(match.group(2))
    if width % 16 or height % 16 or not 64 <= width <= 8192 or not 64 <= height <= 8192:
        raise ValueError(f"--resolution {text!r}: width and height must be multiples of 16 between 64 and 8192")
    return width, height


@command("cost")
def _cost(args: argparse.Namespace) -> int:
    from dataclasses import replace
    from pathlib import Path

    from infralens.cost.catalog import default_catalog_path, load_catalog
    from infralens.cost.compute import Request, compute_report
    from infralens.cost.measure import NO_CUDA, NoCudaError, cuda_available, measure_cuda
    from infralens.cost.text import render_text
    from infralens.reports import dumps_cost_report

    try:
        resolutions = tuple(parse_resolution(r) for r in args.resolution)
    except ValueError as error:
        say(f"infralens: error: {error}", error=True)
        return EXIT_USAGE
    if args.batch < 1 or args.batch > 64:
        say("infralens: error: --batch must be between 1 and 64", error=True)
        return EXIT_USAGE
    from infralens.userfiles import STANDARD_OUTPUT, check_output, write_output

    output = None if args.output == STANDARD_OUTPUT else args.output
    if output:
        check_output(output)  # a FIFO, a device or a link leading out of its folder: refused before the counting
    catalog = load_catalog(Path(args.catalog) if args.catalog else default_catalog_path(Path(args.project) if args.project else None))
    for model_id in args.models:
        catalog.model(model_id)  # unknown ids fail before any counting
    if args.measure == "cuda" and not cuda_available():
        raise NoCudaError(f"--measure cuda: {NO_CUDA}")  # before the counting, which takes a while
    report = compute_report(
        catalog, Request(models=tuple(args.models), resolutions=resolutions, batch=args.batch, contexts=tuple(sorted(set(args.context)))), NO_CUDA
    )
    if args.measure == "cuda":
        measured = measure_cuda(catalog, report)
        report = replace(report, cuda=measured.describe(), measured=measured.records)
    text = dumps_cost_report(report) if args.format == "json" else render_text(report)
    if output:
        write_output(output, text, what="cost report")
        say(f"wrote {output}", error=True)
    else:
        sys.stdout.write(text)
    return EXIT_OK
