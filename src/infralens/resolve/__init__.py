"""Stage 3, resolve: bind annotation targets and selectors to real definitions and statements.

Owns the resolver (:mod:`.resolver`), the one selector matcher that resolution and drift share
(:mod:`.selectors`) and the resolved values (:mod:`.models`).
May import: :mod:`infralens.annotations`, :mod:`infralens.source`, :mod:`infralens.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .annotated import AnnotatedTarget as AnnotatedTarget, annotated_target as annotated_target
    from .lab_checks import lab_page_targets as lab_page_targets, lab_reference_diagnostics as lab_reference_diagnostics, unshown_warnings as unshown_warnings
    from .models import ResolvedAnnotation as ResolvedAnnotation, ResolvedStep as ResolvedStep, ResolvedTarget as ResolvedTarget
    from .resolver import Resolver as Resolver
    from .selectors import still_picks as still_picks
    from .validate import Validation as Validation, validate_project as validate_project

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "AnnotatedTarget": "annotated",
        "annotated_target": "annotated",
        "lab_page_targets": "lab_checks",
        "lab_reference_diagnostics": "lab_checks",
        "unshown_warnings": "lab_checks",
        "Validation": "validate",
        "validate_project": "validate",
        "ResolvedAnnotation": "models",
        "ResolvedStep": "models",
        "ResolvedTarget": "models",
        "Resolver": "resolver",
        "still_picks": "selectors",
    },
)
