"""``infralens init``: its arguments (the work is :mod:`infralens.maintainer.init`, imported when it runs)."""

from __future__ import annotations

import argparse

from infralens.commands import command, extension


@extension
def _init_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    init = sub.add_parser(
        "init",
        help="make a new project: annotations/, scenarios/, a Sphinx docs/, pyproject.toml, pre-commit and CI recipes",
        description=(
            "Writes pyproject.toml ([tool.infralens] distributions and upstream link templates), annotations/README.md, "
            "scenarios/example.py, docs/conf.py and docs/index.md (a site that builds under -W), .pre-commit-config.yaml, "
            ".github/workflows/infralens.yml, and .gitignore where there is none. FOLDER may be new or empty, or hold "
            "files init does not write (.git/, a README, a licence, other workflows): init refuses, writing nothing, when "
            "one of its files exists or annotations/, scenarios/ or docs/ is not empty. Every file is written atomically, "
            "all or none."
        ),
    )
    init.add_argument("folder", nargs="?", default=".", metavar="FOLDER", help="where the project goes (default: the current folder)")
    init.add_argument(
        "--distribution",
        dest="distributions",
        action="append",
        default=[],
        metavar="NAME",
        help="an installed distribution the project annotates (repeatable), e.g. transformers",
    )
    init.add_argument(
        "--upstream",
        action="append",
        default=[],
        metavar="NAME=TEMPLATE",
        help="a link template to NAME's source at the release tag, with {version} {public_version} {relpath} {start} {end} "
        "(known without it: diffusers, transformers)",
    )
    init.add_argument("--theme", default="alabaster", help="the Sphinx theme docs/conf.py names (default: alabaster, Sphinx's own)")


@command("init")
def _init(args: argparse.Namespace) -> int:
    from infralens.maintainer.init import InitOptions, init_project

    return init_project(InitOptions(args.folder, tuple(args.distributions), tuple(args.upstream), args.theme))
