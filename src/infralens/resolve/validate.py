"""Whole-project validation: load every annotation file and resolve every annotation against the sources."""

from __future__ import annotations

from dataclasses import dataclass

from infralens.errors import Diagnostic, Severity
from infralens.project import Project, load_annotations
from infralens.resolve.resolver import Resolver


@dataclass(frozen=True)
class Validation:
    """What ``infralens validate`` found: every diagnostic, sorted by place, and what was read."""

    diagnostics: tuple[Diagnostic, ...]
    annotations: int
    steps: int
    files: int

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return len(self.diagnostics) - self.errors

    def summary(self) -> str:
        return f"validated {self.annotations} annotations ({self.steps} steps) in {self.files} files: {self.errors} errors, {self.warnings} warnings"


def validate_project(project: Project, resolver: Resolver, paths: list[str] | None = None) -> Validation:
    """Schema, cross-file checks and resolution of the annotation files under *paths* (default: all).

    Every error of a file comes in one pass: an annotation whose schema errors all lie inside some
    steps still has its other steps resolved, so their selector problems are reported too.
    """
    loaded = load_annotations(project, paths)
    diagnostics = list(loaded.diagnostics)
    resolver.prefetch(loaded.annotations)  # parse cache misses on every core
    for annotation in loaded.annotations + loaded.recovered:  # recovered: selector problems in the same pass
        diagnostics.extend(resolver.resolve_annotation(annotation)[1])
    diagnostics.sort(key=lambda d: (d.location.path, d.location.line, d.location.col))
    steps = sum(len(annotation.steps) for annotation in loaded.annotations)
    return Validation(tuple(diagnostics), len(loaded.annotations), steps, len(loaded.files))
