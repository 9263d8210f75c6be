"""A throwaway InfraLens project over a synthetic distribution ``demo``, written by each test."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from infralens.drift import build_entries, compose, read_lock, read_lock_text, run_check, write_lock_file
from infralens.project import find_project
from infralens.resolve import Resolver
from infralens.source import DirectoryTree, IndexCache

PYPROJECT = '[tool.infralens]\nannotations = "annotations"\nlabs = "labs"\nlock = "annotations/annotations.lock"\n'


@dataclass
class DemoProject:
    root: Path
    cache: Path

    def write_source(self, version: str, files: dict[str, str]) -> Path:
        base = self.root.parent / f"demo-{version}"
        for relpath, text in files.items():
            path = base / "demo" / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
        init = base / "demo" / "__init__.py"
        if not init.exists():  # the release a folder holds: what 'lock' records (it refuses a folder naming none)
            init.write_text(f"__version__ = {version!r}\n", "utf-8")
        return base

    def write_annotation(self, name: str, text: str) -> Path:
        path = self.root / "annotations" / "demo" / name
        path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
        return path

    def resolver(self, base: Path, version: str = "1.0") -> Resolver:
        return Resolver({"demo": DirectoryTree(base, "demo", version=version)}, cache=IndexCache(self.cache))

    def lock(self, base: Path) -> None:
        project = find_project(self.root)
        built = build_entries(project, self.resolver(base))
        assert not built.diagnostics, [str(d) for d in built.diagnostics]
        write_lock_file(project.lock_path, compose(None, list(built.entries), None, set()))

    def check(self, base: Path, version: str = "2.0", *, reviewed: str | None = "1.0", **options):
        """Check the lock against the release at ``base``; ``reviewed`` names the release the lock was made from, as
        the check reads it for what places held before (None: that release is not at hand)."""
        project = find_project(self.root)
        lock = read_lock(project.lock_path, "annotations/annotations.lock")
        tree = DirectoryTree(base, "demo", version=version)
        before = self.root.parent / f"demo-{reviewed}"
        known = {"demo": DirectoryTree(before, "demo", version=reviewed)} if reviewed and before.is_dir() else None
        return run_check(project, self.resolver(base, version), lock, against={"demo": tree}, reviewed=known, **options)

    @property
    def lock_path(self) -> Path:
        return self.root / "annotations" / "annotations.lock"

    def lock_text(self):
        return read_lock_text(self.lock_path)


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DemoProject:
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "project"
    (root / "annotations" / "demo").mkdir(parents=True)
    (root / "labs" / "lab-01-demo").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT, "utf-8")
    return DemoProject(root, tmp_path / "cache")
