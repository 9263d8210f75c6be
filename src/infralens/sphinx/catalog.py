"""Every annotation of the project, loaded and resolved once per build.

The catalog is rebuilt on ``builder-inited`` (cheap: YAML plus cached
indexes) and kept in the build's state on its environment (:mod:`.state`), so
parallel readers forked afterwards share it and no other build sees it.
Per-document state lives in the domain, not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from sphinx.environment import BuildEnvironment

from infralens.annotations import (
    CONCEPTS_FILE,
    LAB_FILE,
    TRACKS_FILE,
    ConceptMap,
    LabFolder,
    LabPlace,
    Tracks,
    check_path,
    load_concepts,
    load_tracks,
    page_diagnostics,
    read_lab_folder,
    read_lab_place,
)
from infralens.errors import InfralensError
from infralens.project import Project, load_annotations
from infralens.render import FunctionView, function_view
from infralens.resolve import ResolvedAnnotation, Resolver
from infralens.source import Definition, SourceFile, SourceTree, open_tree
from infralens.sphinx.badges import Reports, load_reports
from infralens.sphinx.config import Settings
from infralens.sphinx.state import state_of
from infralens.sphinx.upstream import upstream_templates
from infralens.sphinx.warnings import Subtype, warn, warn_diagnostic


@dataclass(frozen=True)
class AnnotatedFunction:
    """One upstream definition and every annotation that targets it."""

    distribution: str
    target: str
    resolved: tuple[ResolvedAnnotation, ...]
    dependencies: tuple[str, ...]
    """Absolute paths whose edits change this function's rendering."""

    @property
    def source(self) -> SourceFile:
        return self.resolved[0].target.source

    @property
    def definition(self) -> Definition:
        return self.resolved[0].target.definition

    @property
    def module(self) -> str:
        return self.resolved[0].target.module

    @property
    def qualname(self) -> str:
        return self.definition.qualname

    @cached_property
    def view(self) -> FunctionView:
        return function_view(self.source, self.definition, list(self.resolved))

    @property
    def note_count(self) -> int:
        return sum(len(r.steps) for r in self.resolved)

    @property
    def labs(self) -> tuple[str, ...]:
        return tuple(sorted({r.annotation.lab for r in self.resolved if r.annotation.lab}))

    @property
    def summaries(self) -> tuple[str, ...]:
        return tuple(r.annotation.summary.strip() for r in self.resolved if r.annotation.summary)


@dataclass(frozen=True)
class Lab:
    """A folder ``labs/lab-<slug>/``; ``page`` is its ``index.md`` when written."""

    slug: str
    folder: Path
    title: str
    page: Path | None
    files: LabFolder | None = field(default=None, compare=False, repr=False)
    """What the site may publish of the folder (:func:`~infralens.annotations.read_lab_folder`), read once per build."""
    place: LabPlace | None = None
    """Its place on the learning path, from its ``lab.yaml`` (:mod:`infralens.annotations.learning_path`)."""


class Catalog:
    """Loaded annotations grouped by target, plus the labs on disk."""

    def __init__(
        self,
        settings: Settings,
        functions: dict[str, AnnotatedFunction],
        labs: dict[str, Lab],
        reports: Reports,
        concepts: ConceptMap | None = None,
        tracks: Tracks | None = None,
    ) -> None:
        self.settings = settings
        self.functions = functions
        self.labs = labs
        self.reports = reports
        self.concepts = concepts if concepts is not None else ConceptMap((), ())
        """The concept map, holding only pairs whose two functions are both annotated."""
        self.tracks = tracks if tracks is not None else Tracks((), ())
        """The learning path's tracks, in order (none without ``labs/tracks.yaml``)."""
        self.upstream_urls: dict[str, str] = dict(settings.upstream_urls)
        """Upstream link templates by distribution: configured, or found in the distribution's metadata."""

    def function(self, target: str) -> AnnotatedFunction | None:
        return self.functions.get(target)

    def by_distribution(self) -> dict[str, dict[str, list[AnnotatedFunction]]]:
        """``{dist: {module: [functions in line order]}}``, sorted for stable pages."""
        tree: dict[str, dict[str, list[AnnotatedFunction]]] = {}
        for function in sorted(self.functions.values(), key=lambda f: (f.distribution, f.module, f.definition.start_line)):
            tree.setdefault(function.distribution, {}).setdefault(function.module, []).append(function)
        return tree

    def functions_of_lab(self, slug: str) -> list[AnnotatedFunction]:
        return [f for f in self.functions.values() if slug in f.labs]


def load_catalog(settings: Settings) -> Catalog:
    """Load and resolve every annotation; each problem becomes a warning at its YAML line."""
    project = Project(settings.project_root, settings.annotations_dir, settings.labs_dir, settings.annotations_dir / "annotations.lock")
    labs = _find_labs(settings.labs_dir, settings.project_root)  # each lab's files read once, bounded, with their warnings
    reports = load_reports(settings.reports_dir, settings.distributions)
    tracks = _tracks(settings, labs)
    if not settings.annotations_dir.is_dir():
        return Catalog(settings, {}, labs, reports, tracks=tracks)
    loaded = load_annotations(project)
    for diagnostic in loaded.diagnostics:
        warn_diagnostic(diagnostic, settings.project_root)
    resolver = Resolver(_override_trees(settings))
    grouped: dict[str, list[ResolvedAnnotation]] = {}
    for annotation in loaded.annotations:
        resolved, diagnostics = resolver.resolve_annotation(annotation)
        for diagnostic in diagnostics:
            warn_diagnostic(diagnostic, settings.project_root)
        if resolved is not None:
            grouped.setdefault(annotation.target, []).append(resolved)
    functions = {}
    for target, resolved_list in grouped.items():
        first = resolved_list[0]
        tree = resolver.tree(first.annotation.source)
        files = {str(_absolute(settings.project_root, r.annotation.path)) for r in resolved_list}
        files.add(_source_path(tree, first.target.source.relpath))
        functions[target] = AnnotatedFunction(first.annotation.source, target, tuple(resolved_list), tuple(sorted(files)))
    catalog = Catalog(settings, functions, labs, reports, _concepts(settings, functions, labs), tracks)
    trees = {function.distribution: resolver.tree(function.distribution) for function in functions.values()}
    catalog.upstream_urls = upstream_templates(settings.upstream_urls, trees)
    return catalog


def _concepts(settings: Settings, functions: dict[str, AnnotatedFunction], labs: dict[str, Lab]) -> ConceptMap:
    """The concept map with its problems warned about; a pair naming a function nobody annotated is dropped."""
    path = settings.concepts_file or settings.labs_dir / CONCEPTS_FILE
    loaded = load_concepts(path, str(path), settings.distributions)
    for diagnostic in loaded.diagnostics:
        warn_diagnostic(diagnostic, settings.project_root)
    kept = []
    for pair in loaded.pairs:
        where = (str(path), pair.location.line or 0)
        unknown = [t for t in pair.targets if t not in functions]
        if unknown:
            warn(f"concept pair {pair.slug!r}: no annotation targets {', '.join(unknown)}", Subtype.CONCEPTS, where)
            continue
        elsewhere = [f"{t} is a {functions[t].distribution} function" for d, t in pair.sides if functions[t].distribution != d]
        if elsewhere:
            warn(f"concept pair {pair.slug!r}: {'; '.join(elsewhere)}, not one of the key it is under", Subtype.CONCEPTS, where)
            continue
        if pair.lab is not None and pair.lab not in labs:
            warn(f"concept pair {pair.slug!r}: lab {pair.lab!r} has no folder in the labs directory", Subtype.CONCEPTS, where)
            continue
        kept.append(pair)
    return ConceptMap(tuple(kept), loaded.diagnostics, loaded.path)


def _tracks(settings: Settings, labs: dict[str, Lab]) -> Tracks:
    """The learning path's tracks, with every problem of the path (tracks file, labs' places) warned about at its line."""
    path = settings.labs_dir / TRACKS_FILE
    tracks = load_tracks(path, str(path))
    published = [lab for lab in labs.values() if lab.page is not None]
    places = {lab.folder.name: lab.place for lab in published}
    for diagnostic in [*tracks.diagnostics, *check_path(tracks, places, {lab.folder.name: str(lab.folder) for lab in published})]:
        warn_diagnostic(diagnostic, settings.project_root)
    return tracks


def _override_trees(settings: Settings) -> dict[str, SourceTree]:
    trees: dict[str, SourceTree] = {}
    for dist, spec in settings.sources.items():
        try:
            trees[dist] = open_tree(spec, distribution=dist)
        except InfralensError as error:
            warn(f"infralens_sources[{dist!r}]: {error}", Subtype.SOURCE, "conf.py")
    return trees


def _source_path(tree: SourceTree, relpath: str) -> str:
    """The file on disk a page depends on (the wheel, for a wheel source)."""
    return str(tree.file_on_disk(relpath))


def _absolute(root: Path, path: str) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else (root / candidate).resolve()


_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
LAB_FOLDER = re.compile(r"lab-[A-Za-z0-9][A-Za-z0-9._-]{0,120}")
"""A lab folder's name: it becomes document names, links and toctree entries, so it is kept to plain characters."""


def outside_project(path: Path, root: Path) -> bool:
    """Whether ``path`` (a symbolic link, or inside one) resolves to a place outside the project ``root``."""
    return not path.resolve().is_relative_to(root.resolve())


def _find_labs(labs_dir: Path, root: Path) -> dict[str, Lab]:
    """Every publishable lab folder; a folder with an unsafe name or that leads outside the project is refused with a warning."""
    labs: dict[str, Lab] = {}
    if not labs_dir.is_dir():
        return labs
    for folder in sorted(p for p in labs_dir.iterdir() if p.is_dir() and p.name.startswith("lab-")):
        if not LAB_FOLDER.fullmatch(folder.name):
            warn(f"lab folder {folder.name!r} is refused: a lab folder's name may hold only letters, digits and . _ -", Subtype.LAB, (str(folder), 0))
            continue
        if outside_project(folder, root):
            warn(f"lab folder {folder.name} is refused: it is a symbolic link to {folder.resolve()}, outside the project", Subtype.LAB, (str(folder), 0))
            continue
        slug = folder.name.removeprefix("lab-")
        content = read_lab_folder(folder, root)  # the one reader of a lab folder: bounded, FIFO-safe, UTF-8 checked
        for problem in content.problems:
            warn_diagnostic(problem, root)
        for relative in content.files:  # a curly quote in a lab's code breaks what readers paste
            if relative.endswith(".md"):
                for diagnostic in page_diagnostics(content.page(relative) or "", str(folder / relative)):
                    warn_diagnostic(diagnostic, root)
        index = content.page("index.md")
        match = _HEADING.search(index) if index is not None else None
        title = match.group(1).strip() if match else slug.replace("-", " ")
        place = None
        if LAB_FILE in content.files:
            place, problems = read_lab_place(content.files[LAB_FILE], str(folder / LAB_FILE))
            for problem in problems:
                warn_diagnostic(problem, root)
        labs[slug] = Lab(slug, folder, title, folder / "index.md" if index is not None else None, content, place)
    return labs


STATE_KEY = "catalog"
"""Where the build's :mod:`.state` holds its catalog."""


def catalog_for(env: BuildEnvironment) -> Catalog:
    """The catalog loaded for this build on ``builder-inited`` (held in the build's :mod:`.state`)."""
    catalog = state_of(env).values.get(STATE_KEY)
    if not isinstance(catalog, Catalog):
        raise InfralensError("infralens: catalog requested before builder-inited")
    return catalog


def store_catalog(env: BuildEnvironment, catalog: Catalog) -> None:
    state_of(env).values[STATE_KEY] = catalog
