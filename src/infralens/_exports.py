"""Lazy package exports: a package's ``__init__`` names what it offers without importing it all.

Each stage package re-exports its public names through :func:`lazy_exports`, so code outside the
package imports ``from infralens.source import IndexCache`` rather than reaching into a module, and
importing the package stays cheap (libcst, jsonschema, torch and Sphinx load only when used).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(package: str, names: Mapping[str, str]) -> tuple[list[str], Callable[[str], object]]:
    """``(__all__, __getattr__)`` for *package*, where *names* maps each exported name to its submodule."""

    def __getattr__(name: str) -> object:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        importlib.import_module(package).__dict__[name] = value
        return value

    return sorted(names), __getattr__
