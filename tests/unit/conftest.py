"""Helpers for unit tests: throwaway packages and annotation files written in ``tmp_path``.

Shaped like griffe's ``temporary_pypackage``: modules are given as dedented
strings, written under a fake distribution, and resolved through a
:class:`~infralens.resolve.resolver.Resolver` that never touches installed packages.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache
from infralens.source.distributions import DirectoryTree

DIST = "fakedist"


def write_package(root: Path, modules: dict[str, str], package: str = DIST) -> Path:
    """Write ``{"mod.py": source}`` files under ``root/package`` (``__init__.py`` added when missing)."""
    base = root / package
    base.mkdir(parents=True, exist_ok=True)
    for relpath, text in modules.items():
        path = base / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    for folder in [base, *(p for p in base.rglob("*") if p.is_dir())]:
        init = folder / "__init__.py"
        if not init.exists():
            init.write_text("", encoding="utf-8")
    return base


@pytest.fixture
def temporary_pypackage(tmp_path: Path) -> Callable[..., Resolver]:
    """``temporary_pypackage({"mod.py": "def f(): ..."})`` → a Resolver over ``fakedist``."""

    def make(modules: dict[str, str], *, cache: IndexCache | None = None) -> Resolver:
        root = tmp_path / "site"
        write_package(root, modules)
        tree = DirectoryTree(root, DIST, "1.0")
        return Resolver({DIST: tree}, cache=cache or IndexCache(persistent=False))

    return make


@pytest.fixture
def annotation_project(tmp_path: Path) -> Callable[..., Path]:
    """A project folder with ``annotations/fakedist/*.yaml`` and a fake package in ``site/``.

    ``annotation_project({"mod.py": src}, {"a.yaml": yaml_text})`` returns the project root;
    pass ``--source fakedist=<root>/site`` to the CLI.
    """

    def make(modules: dict[str, str], files: dict[str, str], labs: tuple[str, ...] = ("01-lab",)) -> Path:
        root = tmp_path / "project"
        write_package(root / "site", modules)
        folder = root / "annotations" / DIST
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            target = folder / name
            if isinstance(text, bytes):
                target.write_bytes(text)
            else:
                target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        for lab in labs:
            (root / "labs" / f"lab-{lab}").mkdir(parents=True, exist_ok=True)
        return root

    return make
