"""A project's scenarios: found by reading its ``scenarios/`` folder, imported only when one runs.

A scenario is code that runs the annotated upstream functions on tiny inputs, so ``verify`` can watch
the annotated statements. Two forms live side by side in the folder:

- ``scenarios/NAME.py`` defining ``def run(device: str) -> None`` is the scenario ``NAME``;
- a module may instead declare several, each a function taking a ``ScenarioContext`` (from
  ``infralens.verify``) and decorated with ``@scenario("name", "summary", process=..., imports=(...))``.
  Module-level ``PROCESS = "..."`` and ``IMPORTS = (...)`` apply to every scenario of the module.

Listing reads the files with :mod:`ast` (nothing is imported, so no torch): the decorator's arguments and
those two constants must be literals. Files whose name starts with ``_`` are helpers, not scenarios.
*process* names the worker group (scenarios of one group share a Python process); ``imports`` are
imported before the scenario is timed.
"""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import importlib.util
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from infralens.errors import Diagnostic, InfralensError, Location, Severity
from infralens.hashing import sha256_text

DEFAULT_PROCESS = "default"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_PACKAGE_PREFIX = "infralens_scenarios_"
MAX_FILE_BYTES = 2_000_000

F = TypeVar("F", bound=Callable[..., Any])


def scenario(name: str, summary: str = "", *, process: str | None = None, imports: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Declare the decorated function (taking a ``ScenarioContext``) as the scenario *name*.

    Nothing happens at run time: ``verify`` reads the declaration from the file without importing it.
    """

    def mark(function: F) -> F:
        return function

    return mark


class ScenarioForm(str, Enum):
    """How a scenario function is called."""

    DEVICE = "device"
    """``run(device)``: the simple form, one scenario per file."""
    CONTEXT = "context"
    """``function(ctx)`` with a ``ScenarioContext``: the declared form."""


@dataclass(frozen=True)
class ScenarioSpec:
    """One named scenario and where its code lives."""

    name: str
    process: str
    """Worker group: scenarios of one group share a process (``default`` unless the module says otherwise)."""
    file: Path
    function: str
    summary: str
    imports: tuple[str, ...] = ()
    """Modules imported before the scenario is timed (so its seconds exclude import cost)."""
    form: ScenarioForm = ScenarioForm.CONTEXT
    line: int = 1
    """Where the scenario is declared: its ``@scenario`` line, or ``def run``."""

    @property
    def module(self) -> str:
        return self.file.stem

    def load(self) -> Callable[[Any], None]:
        """The function to call with a ``ScenarioContext`` (its module imported from the file)."""
        return load_scenario(self)


@dataclass(frozen=True)
class ScenarioCatalog:
    """Every scenario of one folder, in file order, and the problems found reading it."""

    folder: Path | None
    specs: tuple[ScenarioSpec, ...] = ()
    problems: tuple[Diagnostic, ...] = ()

    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.specs)

    def get(self, name: str) -> ScenarioSpec | None:
        return next((spec for spec in self.specs if spec.name == name), None)

    def spec(self, name: str) -> ScenarioSpec:
        """The scenario *name*; an unknown name is an :class:`~infralens.errors.InfralensError`."""
        found = self.get(name)
        if found is None:
            where = f" in {self.folder}" if self.folder is not None else ""
            known = ", ".join(self.names()) or "none"
            raise InfralensError(f"unknown scenario {name!r}{where}; known: {known}")
        return found


def discover_scenarios(folder: Path | None, root: Path | None = None) -> ScenarioCatalog:
    """The scenarios declared in *folder* (read, never imported); paths in problems are relative to *root*."""
    if folder is None or not folder.is_dir():
        return ScenarioCatalog(folder)
    files = sorted(path for path in folder.glob("*.py") if not path.name.startswith("_") and path.is_file())
    stamp = tuple((path.name, *_stat(path)) for path in files)
    return _discover(folder.resolve(), root.resolve() if root else None, stamp)


def _stat(path: Path) -> tuple[int, int]:
    try:
        status = path.stat()
    except OSError:
        return (0, 0)
    return (status.st_mtime_ns, status.st_size)


@functools.lru_cache(maxsize=16)
def _discover(folder: Path, root: Path | None, stamp: tuple[tuple[str, int, int], ...]) -> ScenarioCatalog:
    specs: list[ScenarioSpec] = []
    problems: list[Diagnostic] = []
    first: dict[str, ScenarioSpec] = {}
    for name, *_ in stamp:
        path = folder / name
        shown = _shown(path, root)
        found, trouble = _read_module(path, shown)
        problems.extend(trouble)
        for spec in found:
            earlier = first.get(spec.name)
            if earlier is not None:
                where = f"{_shown(earlier.file, root)}:{earlier.line}"
                problems.append(
                    Diagnostic(Location(shown, spec.line), f"scenario {spec.name!r} is already defined at {where}", "rename one of them", code="scenario")
                )
                continue
            first[spec.name] = spec
            specs.append(spec)
    return ScenarioCatalog(folder, tuple(specs), tuple(problems))


def _shown(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return str(path)


def _read_module(path: Path, shown: str) -> tuple[list[ScenarioSpec], list[Diagnostic]]:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return [], [Diagnostic(Location(shown), f"scenario file is larger than {MAX_FILE_BYTES} bytes; it was not read", code="scenario")]
        tree = ast.parse(path.read_bytes(), filename=shown)
    except SyntaxError as error:
        return [], [Diagnostic(Location(shown, error.lineno or 1, error.offset or 1), f"scenario file does not parse: {error.msg}", code="scenario")]
    except (OSError, ValueError) as error:
        return [], [Diagnostic(Location(shown), f"scenario file cannot be read: {error}", code="scenario")]
    problems: list[Diagnostic] = []
    constants = _module_constants(tree, shown, problems)
    process = constants.get("PROCESS", DEFAULT_PROCESS)
    imports = constants.get("IMPORTS", ())
    specs: list[ScenarioSpec] = []
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    for function in functions:
        for decorator in function.decorator_list:
            if isinstance(decorator, ast.Call) and _called_name(decorator.func) == "scenario":
                declared = _declared(decorator, function, path, shown, process, imports, problems)
                if declared is not None:
                    specs.append(declared)
    if not specs and not any(_called_name(d) == "scenario" for f in functions for d in f.decorator_list):
        run = next((function for function in functions if function.name == "run"), None)
        if run is None:
            hint = "define 'def run(device: str) -> None', or declare scenarios with @scenario(...); helper modules start with '_'"
            problems.append(Diagnostic(Location(shown), "this scenario file defines no scenario", hint, Severity.WARNING, code="scenario"))
        elif _positional_count(run) < 1:
            problems.append(Diagnostic(Location(shown, run.lineno), "run() must take the device name: def run(device: str) -> None", code="scenario"))
        elif not _NAME.match(path.stem):
            problems.append(Diagnostic(Location(shown), f"{path.stem!r} cannot name a scenario", "use letters, digits, '-', '_' and '.'", code="scenario"))
        else:
            summary = _first_line(ast.get_docstring(run) or ast.get_docstring(tree) or "")
            specs.append(ScenarioSpec(path.stem, process, path, "run", summary, imports, ScenarioForm.DEVICE, run.lineno))
    return specs, problems


def _module_constants(tree: ast.Module, shown: str, problems: list[Diagnostic]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value = node.target.id, node.value
        if target not in ("PROCESS", "IMPORTS") or value is None:
            continue
        literal = _literal(value)
        if target == "PROCESS" and isinstance(literal, str) and literal:
            found[target] = literal
        elif target == "IMPORTS" and isinstance(literal, tuple | list) and all(isinstance(item, str) for item in literal):
            found[target] = tuple(literal)
        else:
            kind = "a string" if target == "PROCESS" else "a tuple of module names"
            problems.append(Diagnostic(Location(shown, node.lineno, node.col_offset + 1), f"{target} must be {kind}, written as a literal", code="scenario"))
    return found


_MISSING = object()


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def _called_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _declared(
    call: ast.Call, function: ast.FunctionDef, path: Path, shown: str, process: str, imports: tuple[str, ...], problems: list[Diagnostic]
) -> ScenarioSpec | None:
    where = Location(shown, call.lineno, call.col_offset + 1)
    values: dict[str, Any] = {}
    for key, node in [*zip(("name", "summary"), call.args, strict=False), *((k.arg, k.value) for k in call.keywords)]:
        if key not in ("name", "summary", "process", "imports") or len(call.args) > 2:
            problems.append(Diagnostic(where, "@scenario takes a name, a summary, process= and imports= only", code="scenario"))
            return None
        value = _literal(node)
        if value is _MISSING:
            problems.append(Diagnostic(where, f"@scenario's {key} must be a literal (the folder is read without importing it)", code="scenario"))
            return None
        values[key] = value
    name = values.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        problems.append(Diagnostic(where, f"@scenario needs a name of letters, digits, '-', '_' and '.' (got {name!r})", code="scenario"))
        return None
    summary = values.get("summary") or _first_line(ast.get_docstring(function) or "")
    chosen = values.get("process", process)
    extra = values.get("imports", ())
    if not isinstance(summary, str) or not isinstance(chosen, str) or not chosen or not isinstance(extra, tuple | list):
        problems.append(Diagnostic(where, "@scenario's summary and process are strings, its imports a tuple of module names", code="scenario"))
        return None
    if _positional_count(function) < 1:
        problems.append(Diagnostic(where, f"scenario {name!r}: {function.name}() must take the scenario context", code="scenario"))
        return None
    return ScenarioSpec(name, chosen, path, function.name, summary, tuple(dict.fromkeys((*imports, *map(str, extra)))), ScenarioForm.CONTEXT, call.lineno)


def _positional_count(function: ast.FunctionDef) -> int:
    return len(function.args.posonlyargs) + len(function.args.args) + (1 if function.args.vararg else 0)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0].strip() if text.strip() else ""


def load_scenario(spec: ScenarioSpec) -> Callable[[Any], None]:
    """Import the scenario's module from its file (inside a package for its folder) and return a ``ctx`` callable."""
    module = _import_file(spec.file)
    function = getattr(module, spec.function, None)
    if not callable(function):
        raise InfralensError(f"{spec.file}: scenario {spec.name!r} names {spec.function}(), which the module does not define")
    if spec.form is ScenarioForm.DEVICE:
        run: Callable[[str], None] = function

        def with_device(context: Any) -> None:
            run(context.device)

        with_device.__name__ = with_device.__qualname__ = f"run[{spec.name}]"
        return with_device
    return function


def _import_file(file: Path) -> ModuleType:
    """The module of *file*, imported as ``infralens_scenarios_<hash>.<stem>`` so that relative imports work."""
    folder = file.resolve().parent
    package = _PACKAGE_PREFIX + sha256_text(str(folder))[:12]
    if package not in sys.modules:
        init = folder / "__init__.py"
        if init.is_file():  # a real package: its __init__ runs, as on a normal import
            spec = importlib.util.spec_from_file_location(package, init, submodule_search_locations=[str(folder)])
            if spec is None or spec.loader is None:
                raise InfralensError(f"{folder}: cannot import the scenarios folder")
            parent = importlib.util.module_from_spec(spec)
            sys.modules[package] = parent
            try:
                spec.loader.exec_module(parent)
            except BaseException:
                sys.modules.pop(package, None)
                raise
        else:  # an empty package whose modules are the folder's files
            spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
            spec.submodule_search_locations = [str(folder)]
            sys.modules[package] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"{package}.{file.stem}")
