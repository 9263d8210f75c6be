"""What every subcommand shares: exit codes, registration, the project and resolver, diagnostics.

The top-level CLI (:mod:`infralens.cli`) and each stage's CLI (``drift.cli``, ``verify.cli``,
``maintainer.cli``) import from here, so no CLI imports another.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal, overload

if TYPE_CHECKING:
    from infralens.errors import Diagnostic
    from infralens.project import Project
    from infralens.resolve import Resolver

Handler = Callable[[argparse.Namespace], int]
ParserExtension = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

COMMANDS: dict[str, Handler] = {}


def command(name: str) -> Callable[[Handler], Handler]:
    """Register a subcommand handler (its parser is built by :func:`infralens.cli.build_parser`)."""

    def register(function: Handler) -> Handler:
        COMMANDS[name] = function
        return function

    return register


EXTENSIONS: list[ParserExtension] = []


def extension(function: ParserExtension) -> ParserExtension:
    """Let other modules add subcommands (drift, verify, maintainer tools)."""
    EXTENSIONS.append(function)
    return function


@overload
def open_context(args: argparse.Namespace, *, need_project: Literal[True] = True) -> tuple[Project, Resolver]: ...


@overload
def open_context(args: argparse.Namespace, *, need_project: Literal[False]) -> tuple[Project | None, Resolver]: ...


def open_context(args: argparse.Namespace, *, need_project: bool = True) -> tuple[Project | None, Resolver]:
    """(project or None, resolver) configured from the global options ``--project``, ``--source``, ``--no-cache``."""
    from pathlib import Path

    from infralens.project import ProjectNotFound, find_project
    from infralens.resolve import Resolver
    from infralens.source import IndexCache, open_tree

    project = None
    try:
        project = find_project(Path(args.project) if args.project else None)
    except ProjectNotFound:  # a project whose settings are wrong is an error even where none is needed
        if need_project:
            raise
    trees = {}
    for item in args.source:
        name, version, path = source_option(item)
        tree = open_tree(path, distribution=name, version=version)
        tree.distribution = name
        if version:
            tree.version = version
        trees[name] = tree
    return project, Resolver(trees, cache=IndexCache(persistent=not args.no_cache))


def source_option(item: str) -> tuple[str, str | None, str]:
    """``DIST=PATH`` or ``DIST==VERSION=PATH`` (the version for a folder whose metadata names none) → (dist, version, path)."""
    from infralens.errors import InfralensError

    name, sep, path = item.partition("=")
    version = None
    if path.startswith("="):
        version, sep, path = path[1:].partition("=")
        if not version.strip():
            raise InfralensError(f"--source {item!r}: expected DIST==VERSION=PATH (a version between '==' and '=')")
    if not sep or not name or not path:
        raise InfralensError(f"--source {item!r}: expected DIST=PATH")
    return name, version, path


def say(message: str, *, error: bool = False) -> None:
    """Print one line of a command's own output (``wrote PATH``, a note, a summary) on stdout, or stderr with
    *error*, through :func:`infralens.errors.printable_line`: a path, id or version in it cannot drive the
    terminal, split the line, or start a workflow command in a CI log."""
    from infralens.errors import printable_line

    print(printable_line(message), file=sys.stderr if error else sys.stdout)


def print_diagnostics(diagnostics: Iterable[Diagnostic]) -> None:
    """Each diagnostic on its own line of stderr (``path:line:col: severity: message — hint``), every field escaped."""
    from infralens.errors import printable

    for diagnostic in diagnostics:
        print(printable(str(diagnostic)), file=sys.stderr)
