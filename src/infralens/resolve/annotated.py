"""One function and the annotations on it, as ``infralens show`` needs them."""

from __future__ import annotations

from dataclasses import dataclass

from infralens.errors import Diagnostic, InfralensError, ResolutionError, Severity
from infralens.project import Project, load_annotations
from infralens.resolve.models import ResolvedAnnotation, ResolvedTarget
from infralens.resolve.resolver import Resolver


@dataclass(frozen=True)
class AnnotatedTarget:
    """A resolved function, the project's annotations on it, and the problems that concern them."""

    target: ResolvedTarget
    annotations: tuple[ResolvedAnnotation, ...]
    problems: tuple[Diagnostic, ...]


def annotated_target(project: Project | None, resolver: Resolver, target: str, distribution: str | None = None) -> AnnotatedTarget:
    """Resolve *target* (``module.qualname``, or an annotation id inside a project) with its annotations.

    Outside a project the function is shown bare. Problems are the load errors and resolution
    diagnostics of the annotation files that annotate this target.
    """
    loaded = load_annotations(project) if project else None
    if loaded and "." not in target:
        by_id = {a.id: a for a in loaded.annotations}
        if target not in by_id:
            raise InfralensError(f"{target!r} is neither a dotted target nor an annotation id")
        target = by_id[target].target
    if not all(part.isidentifier() for part in target.split(".")):
        raise InfralensError(f"{target!r} is not a dotted target (module.qualname) or an annotation id")
    distribution = distribution or target.split(".")[0]
    try:
        resolved_target = resolver.resolve_target(distribution, target)
    except ResolutionError as error:
        detail = ("; candidates: " + " | ".join(error.candidates)) if error.candidates else ""
        raise InfralensError(f"{target}: {error}{detail}") from error
    if not loaded:
        return AnnotatedTarget(resolved_target, (), ())
    mine: list[ResolvedAnnotation] = []
    problems = [d for d in loaded.diagnostics if d.severity is Severity.ERROR]
    for annotation in loaded.annotations:
        if annotation.target != target or annotation.source != distribution:
            continue
        resolved, diagnostics = resolver.resolve_annotation(annotation)
        problems.extend(diagnostics)
        if resolved is not None:
            mine.append(resolved)
    files = {a.path for a in loaded.annotations if a.target == target}
    return AnnotatedTarget(resolved_target, tuple(mine), tuple(d for d in problems if d.location.path in files))
