"""One ``infralens check``: the cached answer when nothing changed, else check, remember, render.

:func:`check` is all the ``check`` command does. A clean check of the installed sources is
remembered by :mod:`.fastpath`, so the next one with unchanged inputs prints the stored report
without importing the checker (this module imports nothing heavy at its top for that reason).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from infralens import __version__
from infralens.commands import EXIT_FINDINGS, EXIT_OK
from infralens.drift import fastpath
from infralens.drift.request import CheckOutput, CheckRequest, OutputFormat

if TYPE_CHECKING:
    from infralens.drift.check import CheckReport
    from infralens.project import Project
    from infralens.resolve import Resolver
    from infralens.source import SourceTree

OpenProject = Callable[[], "tuple[Project, Resolver]"]
"""Opens the project and a resolver for the sources (from the global command-line options)."""


def check(request: CheckRequest, open_project: OpenProject) -> CheckOutput:
    """Check the locked steps against the sources and render the report as ``request`` asks."""
    cacheable = fastpath.usable(request)
    if cacheable:
        cached = fastpath.try_cached(request, __version__)
        if cached is not None:
            return CheckOutput(cached, EXIT_OK)
    from infralens.ci_output import repository_prefix
    from infralens.drift.check import run_check
    from infralens.drift.lock.file import read_lock

    project, resolver = open_project()
    lock = read_lock(project.lock_path, project.relative(project.lock_path))
    against = against_trees(request.against, {e.distribution for e in lock.annotations.values()})
    ids = request.ids or ((request.explain,) if request.explain else None)
    if request.walk and against:
        from infralens.drift.history.walk import walk_against

        report = walk_against(project, resolver, lock, against, ids=ids, strict=request.strict)
    else:
        report = run_check(project, resolver, lock, against=against, ids=ids, strict=request.strict)
    code = EXIT_OK if report.clean else EXIT_FINDINGS
    if cacheable and report.clean:
        _remember(request, project, resolver, report)
    return CheckOutput(_render(report, request, code, repository_prefix(project.root)), code)


def against_trees(specs: Collection[str], known: set[str]) -> dict[str, SourceTree]:
    """The ``--against`` trees by the lock's spelling of their distribution (``known``: the lock's distributions)."""
    from infralens.errors import InfralensError
    from infralens.source import canonical_name, open_against

    by_canonical = {canonical_name(d): d for d in known}
    trees = {}
    for spec in specs:
        tree = open_against(spec, known)
        name = by_canonical.get(canonical_name(tree.distribution))
        if name is None:
            raise InfralensError(f"--against {spec}: the lock has no annotations on {tree.distribution} (it has: {', '.join(sorted(known)) or 'none'})")
        trees[name] = tree
    return trees


def _render(report: CheckReport, request: CheckRequest, exit_code: int, prefix: str) -> str:
    from infralens.drift import report as drift_report

    if request.format is OutputFormat.JSON:
        return drift_report.render_json(report, exit_code)
    if request.format is OutputFormat.GITHUB:
        return drift_report.render_github(report, prefix)
    if request.format in (OutputFormat.JUNIT, OutputFormat.SARIF):
        return drift_report.render_ci(report, request.format.value, prefix)
    text = drift_report.render_text(report, everything=request.everything)
    return text + drift_report.explain(report, request.explain) if request.explain else text


def _remember(request: CheckRequest, project: Project, resolver: Resolver, report: CheckReport) -> None:
    """Store a clean check's outputs for the next run with the same inputs (checks of wheels are not stored)."""
    from infralens.ci_output import repository_prefix
    from infralens.drift import report as drift_report

    upstream = fastpath.upstream_files(report, resolver)
    if upstream is None:
        return
    github = drift_report.render_github(report, repository_prefix(project.root))
    outputs = {OutputFormat.TEXT: drift_report.render_text(report), OutputFormat.GITHUB: github}
    pyproject = project.root / "pyproject.toml"
    extra = [str(pyproject)] if pyproject.is_file() else []
    fastpath.store(request, __version__, lock_path=project.lock_path, annotations_dir=project.annotations_dir, upstream=upstream + extra, outputs=outputs)
