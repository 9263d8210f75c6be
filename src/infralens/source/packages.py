"""What a folder of Python packages says about itself, read without importing anything.

Which distribution a folder holds (its package folder, or the folder holding it), the packages a
distribution installs, and its version: from ``*.dist-info`` folders, or from the package's own
``__version__`` read statically from its ``__init__.py``.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Iterable
from pathlib import Path

from infralens.bounds import BadVersion, checked_version
from infralens.errors import SourceNotFoundError

MODULE_PART = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def canonical_name(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def package_names(names: Iterable[str]) -> tuple[str, ...]:
    """The plain top-level module names among ``names``; paths, ``..`` and anything else are dropped."""
    return tuple(name.strip() for name in names if MODULE_PART.match(name.strip()))


def static_version(text: str) -> str | None:
    """The string a module assigns to ``__version__`` at its top level, found without running it."""
    import ast

    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in module.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if any(isinstance(t, ast.Name) and t.id == "__version__" for t in targets) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            try:
                return checked_version(value.value.strip())
            except BadVersion:
                return None  # not a release anything can name: the tree's version is unknown
    return None


def version_from_dist_info_dir(root: Path, distribution: str) -> str | None:
    """The version a ``<distribution>-<version>.dist-info`` folder in ``root`` names, checked (a bad one is an error)."""
    wanted = canonical_name(distribution)
    for info in sorted(root.glob("*.dist-info")):
        name, _, version = info.name[: -len(".dist-info")].partition("-")
        if canonical_name(name) == wanted and version:
            return upstream_version(version, f"{root}: the {distribution} .dist-info folder's name")
    return None


def upstream_version(text: str, where: str) -> str:
    """``text`` when it is a version; else a :class:`SourceNotFoundError` saying ``where`` it came from (the text
    itself is quoted only when it is short and safe to print: a folded METADATA header never reaches a CI log)."""
    try:
        return checked_version(text)
    except BadVersion as error:
        raise SourceNotFoundError(f"{where} gives no valid version: {error}; it is not read") from None


def packages_from_record(dist: importlib.metadata.Distribution) -> tuple[str, ...]:
    names = set()
    for file in dist.files or ():
        parts = file.parts
        if len(parts) > 1 and parts[-1] == "__init__.py" and MODULE_PART.match(parts[0]):
            names.add(parts[0])
    return tuple(sorted(names))


def _package_names_of(distribution: str) -> set[str]:
    """Names the distribution's top-level package may have: its own name, and what an installed copy's metadata lists."""
    names = {distribution.replace("-", "_").lower()}
    try:
        dist = importlib.metadata.distribution(distribution)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return names
    top_level = package_names((dist.read_text("top_level.txt") or "").splitlines()) or packages_from_record(dist)
    return names | {name.lower() for name in top_level}


def package_root(folder: Path, distribution: str) -> tuple[Path, tuple[str, ...] | None]:
    """The folder that holds ``distribution``'s package, and that package when ``folder`` is the package itself.

    Refuses (:class:`SourceNotFoundError`, saying what to pass) a folder that neither is the package nor holds it.
    """
    names = _package_names_of(distribution)
    is_package = folder.name.lower() in names and (folder / "__init__.py").is_file()
    if is_package and not any((folder / child).is_dir() for child in (folder.name, *names)):
        return folder.resolve().parent, (folder.name,)
    holders = (folder, folder / "src")
    if any((holder / child.name).is_dir() for holder in holders if holder.is_dir() for child in holder.iterdir() if child.name.lower() in names):
        return folder, None
    if version_from_dist_info_dir(folder, distribution):
        return folder, None
    wanted = sorted(names)[0]
    raise SourceNotFoundError(
        f"{folder}: neither the package folder of {distribution} nor a folder holding it (no {wanted}/ inside) — "
        f"pass the folder that holds {wanted}/ (site-packages, or a checkout's src/), the package folder {wanted}/ itself, or a .whl"
    )
