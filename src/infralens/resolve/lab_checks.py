"""What ``validate`` checks between the lab pages, the concept map and the annotations.

Every ``{infralens-*}`` directive on a lab page must name an annotated function (or a concept pair),
every pair of ``labs/concepts.yaml`` must pair two annotated functions, and an annotation that names a
lab no page of that lab shows gets a warning: the ``lab:`` key does not put it on the page, a directive does.
Problems are reported at the lab file and line, as the site build would warn about them.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from infralens.annotations import (
    CONCEPTS_FILE,
    INFRALENS_DIRECTIVES,
    Annotation,
    ConceptMap,
    DirectiveUse,
    directive_uses,
    lab_pages,
    load_concepts,
    page_diagnostics,
    read_lab_page,
)
from infralens.bounds import leads_outside
from infralens.errors import Diagnostic, Location, Severity
from infralens.project import Project


@dataclass(frozen=True)
class LabPageRead:
    """One lab page as ``validate`` read it: its path, the name messages give it (a link's own), and its text."""

    path: Path
    shown: str
    text: str


@dataclass(frozen=True)
class LabPages:
    """Every lab page that could be read, and an error for each one that could not (or was not, being a link out)."""

    pages: tuple[LabPageRead, ...]
    problems: tuple[Diagnostic, ...]


def read_lab_pages(project: Project) -> LabPages:
    """Every lab page, each read by :func:`infralens.annotations.read_lab_page`, the site's own reader of a page.

    So a FIFO, a device or a page larger than the site takes is refused at once (never waited on, never read
    whole), and bytes that are not UTF-8 are an error at their line. A lab folder or page that is a symbolic link
    leading outside the project is never opened: an error names the link itself, not where it leads.
    """
    problems: list[Diagnostic] = []
    for slug in sorted(project.lab_slugs() or ()):
        folder = project.labs_dir / f"lab-{slug}"
        if leads_outside(folder, project.root):
            problems.append(_linked_out(project, folder, "lab folder", "folder", "move the lab's files into the labs folder"))
    pages: list[LabPageRead] = []
    for page in lab_pages(project.labs_dir, within=project.root):
        shown = _as_found(project, page)
        if leads_outside(page, project.root):
            problems.append(_linked_out(project, page, "lab page", "file", "copy the page into the lab folder instead of linking to it"))
            continue
        read = read_lab_page(page, shown)
        problems.extend(dataclasses.replace(problem, severity=Severity.ERROR) for problem in read.problems)  # the site build fails on them too (-W)
        if read.text is not None:
            pages.append(LabPageRead(page, shown, read.text))
    return LabPages(tuple(pages), tuple(problems))


def lab_page_diagnostics(project: Project) -> list[Diagnostic]:
    """Errors about the lab pages themselves: each one that cannot be read, and each curly quote in its code."""
    read = read_lab_pages(project)
    return [*read.problems, *(d for page in read.pages for d in page_diagnostics(page.text, page.shown))]


def _as_found(project: Project, path: Path) -> str:
    """*path* as it stands in the project (a link's own name, never where it leads), for messages."""
    absolute = os.path.abspath(path)
    root = os.path.abspath(project.root)
    return Path(os.path.relpath(absolute, root)).as_posix() if absolute.startswith(root.rstrip(os.sep) + os.sep) else absolute


def _linked_out(project: Project, path: Path, what: str, kind: str, hint: str) -> Diagnostic:
    message = f"this {what} is a link to a {kind} outside the project; it was not read"
    return Diagnostic(Location(_as_found(project, path)), message, hint, code="io")


def lab_page_uses(project: Project) -> dict[Path, list[DirectiveUse]]:
    """Every lab page's ``{infralens-*}`` directives (a page that cannot be read has none: :func:`read_lab_pages` says why)."""
    return {page.path: directive_uses(page.text, page.shown) for page in read_lab_pages(project).pages}


def concept_map(project: Project) -> ConceptMap | None:
    path = project.labs_dir / CONCEPTS_FILE
    return load_concepts(path, project.relative(path), project.distributions) if path.is_file() else None


def lab_reference_diagnostics(project: Project, annotations: Sequence[Annotation]) -> list[Diagnostic]:
    """Errors for directives and concept pairs that name no annotation (``annotations``: the whole project's)."""
    sources = {a.target: a.source for a in annotations}
    targets = sorted(sources)
    concepts = concept_map(project)
    pairs = {p.slug for p in concepts.pairs} if concepts else set()
    found: list[Diagnostic] = list(concepts.diagnostics) if concepts else []
    for uses in lab_page_uses(project).values():
        for use in uses:
            found.extend(_directive_problems(use, targets, pairs, project.distributions))
    for pair in concepts.pairs if concepts else ():
        for dist, target in pair.sides:
            if target not in sources:
                found.append(_no_annotation(pair.location, target, targets, f"concept pair {pair.slug!r} ({dist})"))
            elif sources[target] != dist:
                message = f"concept pair {pair.slug!r}: {target} is annotated as a {sources[target]} function, not a {dist} one"
                found.append(Diagnostic(pair.location, message, f"put it under '{sources[target]}:' or name a {dist} function", code="lab-page"))
        labs = project.lab_slugs()
        if pair.lab is not None and labs is not None and pair.lab not in labs:
            found.append(Diagnostic(pair.location, f"concept pair {pair.slug!r}: lab {pair.lab!r} has no folder in the labs directory", _lab_hint(labs)))
    return found


def _directive_problems(use: DirectiveUse, targets: list[str], pairs: set[str], distributions: tuple[str, ...]) -> list[Diagnostic]:
    where = use.location
    if use.name not in INFRALENS_DIRECTIVES:
        close = difflib.get_close_matches(use.name, INFRALENS_DIRECTIVES, n=1)
        hint = f"did you mean {close[0]}?" if close else f"use one of: {', '.join(INFRALENS_DIRECTIVES)}"
        return [Diagnostic(where, f"unknown directive {use.name!r}", hint, code="lab-page")]
    if use.name == "infralens-function":
        if not use.argument:
            return [Diagnostic(where, "infralens-function names no function", "write the annotated target after the directive name", code="lab-page")]
        return [] if use.argument in targets else [_no_annotation(where, use.argument, targets, "infralens-function")]
    if use.name == "infralens-compare":
        unknown = [
            Diagnostic(o.location, f"infralens-compare :{o.name}: is not one of the project's distributions", _compare_hint(distributions), code="lab-page")
            for o in use.options
            if o.name not in distributions
        ]
        named = [o for o in use.options if o.name in distributions and o.value]
        if not named:
            return [*unknown, Diagnostic(where, "infralens-compare names no function", _compare_hint(distributions), code="lab-page")]
        return [*unknown, *(_no_annotation(o.location, o.value, targets, f"infralens-compare :{o.name}:") for o in named if o.value not in targets)]
    if use.name == "infralens-concept" and use.argument not in pairs:
        close = difflib.get_close_matches(use.argument, sorted(pairs), n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}?" if close else f"add the pair to the concept map ({CONCEPTS_FILE} in the labs folder)"
        return [Diagnostic(where, f"no concept pair {use.argument!r}", hint, code="lab-page")]
    return []


def _compare_hint(distributions: tuple[str, ...]) -> str:
    """``add ':a: TARGET' and/or ':b: TARGET'``: the options the project's distributions give the directive."""
    options = [f"':{name}: TARGET'" for name in distributions]
    return "add " + (", ".join(options[:-1]) + " and/or " + options[-1] if len(options) > 1 else options[0]) + " (the project's distributions)"


def _no_annotation(where: Location, target: str, targets: list[str], what: str) -> Diagnostic:
    close = difflib.get_close_matches(target, targets, n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(close)}?" if close else f"annotate it first: infralens add {target}"
    return Diagnostic(where, f"{what}: no annotation targets {target!r}", hint, code="lab-page")


def _lab_hint(labs: set[str]) -> str:
    return "use one of: " + ", ".join(sorted(labs)) if labs else "create the lab folder in the labs directory"


def unshown_warnings(project: Project, annotations: Sequence[Annotation]) -> list[Diagnostic]:
    """A warning for each annotation whose ``lab:`` names a lab whose pages show it nowhere."""
    uses = lab_page_uses(project)
    concepts = concept_map(project)
    pairs = {p.slug: p.targets for p in concepts.pairs} if concepts else {}
    shown: dict[str, set[str]] = {}
    for page, page_uses in uses.items():
        lab = next((part.removeprefix("lab-") for part in page.relative_to(project.labs_dir).parts[:1]), "")
        shown.setdefault(lab, set()).update(t for use in page_uses for t in _shown_targets(use, pairs))
    found: list[Diagnostic] = []
    for annotation in annotations:
        if annotation.lab is None or annotation.lab not in shown or annotation.target in shown[annotation.lab]:
            continue
        index = project.relative(project.labs_dir / f"lab-{annotation.lab}" / "index.md")
        found.append(
            Diagnostic(
                annotation.location or Location(annotation.path),
                f"annotation {annotation.id!r} names lab {annotation.lab!r}, but no page of that lab shows {annotation.target}",
                f"'lab:' only files it under the lab; to show it, add a directive to {index}: ```{{infralens-function}} {annotation.target}```",
                Severity.WARNING,
                code="lab-page",
            )
        )
    return found


def lab_page_targets(project: Project, text: str) -> tuple[set[str], bool]:
    """The targets a page's directives show, and whether it draws concept pairs (so the concept map concerns it)."""
    concepts = concept_map(project)
    pairs = {p.slug: p.targets for p in concepts.pairs} if concepts else {}
    uses = directive_uses(text, "")
    return {t for use in uses for t in _shown_targets(use, pairs)}, any(use.name in ("infralens-concept", "infralens-compare") for use in uses)


def _shown_targets(use: DirectiveUse, pairs: dict[str, tuple[str, str]]) -> tuple[str, ...]:
    if use.name == "infralens-function":
        return (use.argument,)
    if use.name == "infralens-compare":
        return tuple(o.value for o in use.options if o.value)  # every option of the directive names a target
    if use.name == "infralens-concept":
        return pairs.get(use.argument, ())
    return ()
