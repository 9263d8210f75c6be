"""The layout rules of ARCHITECTURE.md, checked on the source tree (statically, with ``ast``).

- Stages import only from stages below them (the flow load → index → resolve → drift | render | verify).
- Code outside a package imports it only through its ``__init__`` (the names its ``lazy_exports`` table offers).
- Every name a package exports exists in the module its table names.
- No module is longer than the limit.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "infralens"

LAYERS: dict[str, int] = {
    "_exports": 0,
    "atomic": 0,
    "portable": 0,
    "errors": 0,
    "cachedir": 0,
    "hashing": 0,
    "stops": 0,
    "bounds": 0,
    "records": 0,
    "userfiles": 1,
    "libraries": 1,
    "annotations": 1,
    "reports": 1,
    "tiny": 1,
    "scenarios": 1,
    "project": 2,
    "source": 3,
    "resolve": 4,
    "commands": 5,
    "ci_output": 5,
    "cost": 6,
    "drift": 6,
    "render": 6,
    "verify": 6,
    "maintainer": 7,
    "matrix": 7,
    "sphinx": 8,
    "cli": 9,
}
"""Each top-level unit of ``infralens`` and its layer: a unit imports only from lower layers (or itself)."""

MAX_LINES = 450
PACKAGES = sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").is_file())


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _unit(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return parts[0]


def _imports(path: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, absolute module, imported names) of every ``infralens`` import in the file, nested ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "infralens":
            found.append((node.lineno, node.module, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts).rsplit(".", 1)[0]
            module = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            found.append((node.lineno, module, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, ()) for alias in node.names if alias.name.split(".")[0] == "infralens")
    return found


def test_every_unit_has_a_layer():
    units = {_unit(p) for p in _modules()} - {"__init__"}
    assert units <= set(LAYERS), f"give these a layer in LAYERS (and ARCHITECTURE.md): {sorted(units - set(LAYERS))}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_imports_follow_the_layers_and_the_package_boundaries(path):
    mine = _unit(path)
    problems = []
    for line, module, _names in _imports(path):
        parts = module.split(".")
        if len(parts) == 1:  # from infralens import __version__
            continue
        theirs = parts[1]
        if theirs == mine:
            continue
        if mine != "__init__" and LAYERS[theirs] >= LAYERS[mine]:
            problems.append(f"line {line}: {mine} (layer {LAYERS[mine]}) imports {module} (layer {LAYERS[theirs]})")
        if theirs in PACKAGES and len(parts) > 2:
            problems.append(f"line {line}: imports {module} from outside {theirs}/: import it from infralens.{theirs}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_exists(package):
    module = importlib.import_module(f"infralens.{package}")
    exported = getattr(module, "__all__", ())
    assert exported, f"infralens.{package} exports nothing (__all__ is missing or empty)"
    for name in exported:
        assert getattr(module, name) is not None, f"infralens.{package}.{name}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_is_too_long(path):
    lines = len(path.read_text("utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(SRC)} has {lines} lines (limit {MAX_LINES}): split it by job"


@pytest.mark.parametrize("package", PACKAGES)
def test_no_exported_name_is_also_a_submodule(package):
    """Importing a submodule binds its name on the package, hiding an exported function of the same name."""
    exports = getattr(importlib.import_module(f"infralens.{package}"), "__all__", [])
    submodules = {p.stem for p in (SRC / package).glob("*.py")} | {p.name for p in (SRC / package).iterdir() if (p / "__init__.py").is_file()}
    assert not set(exports) & submodules, f"rename the module or the export: {sorted(set(exports) & submodules)}"
