"""Small projects for the write tests (``test_write_targets``, ``test_write_races``): one annotated function of a
fake distribution, and the ``demo`` project of the ``fix`` tests (``tests/maintainer/fix_samples.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "maintainer"))

from fix_samples import CHANGED_BOTH, CORE, FIX_PYPROJECT, OTHER_ANNOTATION, RENAMED, STEP_ANNOTATION, FixProject  # noqa: E402, F401  (re-exported to the write tests)

MOD = "def f(a):\n    x = a + 1\n    y = x * 2\n    return y\n"
ANNOTATION = "id: ann-f\nlab: 01-lab\nsource: fakedist\ntarget: fakedist.mod.f\nsummary: s\nsteps:\n  - at: x = a + 1\n    note: |\n      A note.\n"
NEW_STEP = "  - at: y = x * 2\n    note: |\n      Doubled.\n"
"""A second step for ``ANNOTATION``, as an edit or ``add`` would append it."""


__all__ = ["CHANGED_BOTH", "NEW_STEP", "OTHER_ANNOTATION", "RENAMED", "STEP_ANNOTATION", "FixProject", "cli", "new_fix_project", "small_project"]


def small_project(root: Path) -> Path:
    """A project with one annotation of ``fakedist.mod.f`` (``annotations/fakedist/f.yaml``) and its source under ``site/``."""
    (root / "site" / "fakedist").mkdir(parents=True)
    (root / "site" / "fakedist" / "__init__.py").write_text('__version__ = "1.0"\n')
    (root / "site" / "fakedist" / "mod.py").write_text(MOD)
    (root / "annotations" / "fakedist").mkdir(parents=True)
    (root / "labs" / "lab-01-lab").mkdir(parents=True)
    (root / "annotations" / "fakedist" / "f.yaml").write_text(ANNOTATION)
    return root


def cli(root: Path, *args: str) -> list[str]:
    """``infralens`` arguments for ``small_project``."""
    return ["--project", str(root), "--source", f"fakedist={root / 'site'}", "--no-cache", *args]


def new_fix_project(root: Path) -> FixProject:
    (root / "annotations" / "demo").mkdir(parents=True)
    (root / "labs" / "lab-01-demo").mkdir(parents=True)
    (root / "pyproject.toml").write_text(FIX_PYPROJECT, "utf-8")
    return FixProject(root)
