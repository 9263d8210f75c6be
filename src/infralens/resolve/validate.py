"""Whole-project validation: load every annotation file and resolve every annotation against the sources."""

from __future__ import annotations

from dataclasses import dataclass

from infralens.errors import Diagnostic, Location, Severity
from infralens.project import Project, load_annotations
from infralens.resolve.frame_names import unknown_names
from infralens.resolve.lab_checks import lab_page_diagnostics, lab_reference_diagnostics, unshown_warnings
from infralens.resolve.models import ResolvedAnnotation
from infralens.resolve.resolver import Resolver
from infralens.resolve.scenario_names import scenario_diagnostics


@dataclass(frozen=True)
class Validation:
    """What ``infralens validate`` found: every diagnostic, sorted by place, and what was read."""

    diagnostics: tuple[Diagnostic, ...]
    annotations: int
    steps: int
    files: int
    file_names: tuple[str, ...] = ()
    """The files read, as messages name them (relative to the project root)."""

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
        resolved, found = resolver.resolve_annotation(annotation)
        diagnostics.extend(found)
        if resolved is not None:
            diagnostics.extend(step_warnings(resolved))
    diagnostics.extend(scenario_diagnostics(project, loaded.annotations + loaded.recovered, folder_problems=paths is None))
    if paths is None:  # the whole project: its lab pages and concept map too, against every annotation
        diagnostics.extend(lab_page_diagnostics(project))  # read as the site reads them: bounded, never through a link out
        diagnostics.extend(lab_reference_diagnostics(project, loaded.annotations + loaded.recovered))
    diagnostics.extend(unshown_warnings(project, loaded.annotations))
    diagnostics.sort(key=lambda d: (d.location.path, d.location.line, d.location.col))
    steps = sum(len(annotation.steps) for annotation in loaded.annotations)
    return Validation(tuple(diagnostics), len(loaded.annotations), steps, len(loaded.files), loaded.files)


def step_warnings(resolved: ResolvedAnnotation) -> list[Diagnostic]:
    """Warnings about how a resolved annotation's steps will be verified.

    A step with neither a scenario nor a ``static:`` reason will never be verified; an expect that
    names something the statement's frame does not have can only fail (or pass vacuously inside a
    short-circuit).
    """
    annotation = resolved.annotation
    where = annotation.location or Location(annotation.path)
    found: list[Diagnostic] = []
    text = resolved.target.source.text
    for step in resolved.steps:
        if step.step.review:
            found.append(
                Diagnostic(
                    step.step.location or where,
                    f"step {step.step.key!r} needs review: {step.step.review}",
                    "re-read the note against the code, then remove 'review:'",
                    Severity.WARNING,
                    code="review",
                )
            )
        if step.step.static:
            continue
        if not (step.step.scenario or annotation.scenario):
            found.append(
                Diagnostic(
                    step.step.location or where,
                    f"step {step.step.key!r} has no scenario and is not static, so it is never verified",
                    "add 'scenario:' (to the step or the annotation) or mark it 'static: <reason>'",
                    Severity.WARNING,
                    code="verify",
                )
            )
        for expression, location in zip(step.step.expect, step.step.expect_locations, strict=False):
            unknown = unknown_names(expression, text, step.start_line)
            if unknown:
                found.append(
                    Diagnostic(
                        location,
                        f"expect names {', '.join(unknown)}, which the frame of {resolved.target.definition.qualname} does not have",
                        "use the function's parameters and locals, the module's globals or builtins",
                        Severity.WARNING,
                        code="expect",
                    )
                )
    return found
