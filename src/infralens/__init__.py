"""InfraLens: line-by-line notes on the real source of installed Python packages, kept true as upstream changes.

The public API is re-exported here; everything else is an implementation detail.
Importing this package is cheap: heavy modules (libcst, jsonschema, torch) load lazily.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = [
    "Annotation",
    "AnnotationLoadError",
    "Definition",
    "Diagnostic",
    "InfralensError",
    "Location",
    "ModuleIndex",
    "ResolutionError",
    "ResolvedAnnotation",
    "ResolvedStep",
    "Resolver",
    "SourceFile",
    "SourceNotFoundError",
    "Statement",
    "Step",
    "__version__",
    "find_project",
    "load_annotations",
    "normalize",
    "open_tree",
]

_LAZY = {
    "Annotation": "annotations.models",
    "Definition": "source.models",
    "ModuleIndex": "source.models",
    "ResolvedAnnotation": "resolve.models",
    "ResolvedStep": "resolve.models",
    "SourceFile": "source.models",
    "Statement": "source.models",
    "Step": "annotations.models",
    "AnnotationLoadError": "errors",
    "Diagnostic": "errors",
    "InfralensError": "errors",
    "Location": "errors",
    "ResolutionError": "errors",
    "SourceNotFoundError": "errors",
    "Resolver": "resolve.resolver",
    "find_project": "project",
    "load_annotations": "project",
    "normalize": "source.normal_form",
    "open_tree": "source.distributions",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'infralens' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"infralens.{module}"), name)
    globals()[name] = value
    return value
