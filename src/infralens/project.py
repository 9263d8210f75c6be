"""The project on disk: where annotations, labs, scenarios and the lock live, and loading them all.

Settings come from ``[tool.infralens]`` in ``pyproject.toml`` (all optional):
``annotations``, ``labs``, ``scenarios`` and ``lock`` paths relative to the project root, and the
``distributions`` the project annotates with their ``[tool.infralens.upstream]`` URL templates
(:mod:`infralens.libraries`).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from infralens.annotations import Annotation
from infralens.bounds import leads_outside
from infralens.errors import Diagnostic, InfralensError, Location, Severity
from infralens.libraries import Libraries, read_libraries


@dataclass(frozen=True)
class Project:
    """Paths of one InfraLens project."""

    root: Path
    annotations_dir: Path
    labs_dir: Path
    lock_path: Path
    scenarios_dir: Path | None = None
    """The project's scenarios (see :mod:`infralens.scenarios`); None means ``<root>/scenarios``."""
    libraries: Libraries = field(default_factory=Libraries)
    """The distributions the project annotates (the first is the default) and their upstream URL templates."""

    @property
    def distributions(self) -> tuple[str, ...]:
        return self.libraries.distributions

    @property
    def scenario_folder(self) -> Path:
        return self.scenarios_dir if self.scenarios_dir is not None else self.root / "scenarios"

    def relative(self, path: Path | str) -> str:
        """A path for messages: relative to the project root when inside it."""
        try:
            path = Path(path).resolve()
        except (RuntimeError, OSError):  # a link that loops (Python 3.11 raises RuntimeError): shown as found
            path = Path(os.path.abspath(path))
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def annotation_files(self, paths: list[str] | None = None) -> list[Path]:
        """YAML files under the given paths (files or directories), or under the annotations directory."""
        roots = [Path(p) for p in paths] if paths else [self.annotations_dir]
        files: list[Path] = []
        for root in roots:
            if paths and root.is_symlink() and root.is_dir():
                files.append(root)  # a linked folder named on the command line: reported, never entered, as in a walk
            elif root.is_dir():
                files.extend(sorted(self._yaml_files_under(root)))
            elif root.exists() or root.is_symlink():
                files.append(root)  # a file, or a FIFO, device or dangling link: load_annotations says what is wrong
            else:
                raise InfralensError(f"{root}: no such file or directory")
        return files

    def _yaml_files_under(self, root: Path) -> list[Path]:
        """Every ``.yaml``/``.yml`` entry under ``root`` that is not a folder (a FIFO is reported, not skipped), and
        every symbolic link to a folder (never entered: :func:`load_annotations` reports it, so none is skipped in silence).

        The walk never recurses and never enters a link (:func:`infralens.bounds.walk`); a folder nested too deep
        is a clear error naming it, never a ``RecursionError``.
        """
        from infralens.bounds import FolderTooDeep, walk

        found: list[Path] = []
        try:
            for folder, _, names in walk(root):
                paths = [Path(folder) / name for name in names]  # a link to a folder is among the names: the walk lists it, never enters it
                found.extend(path for path in paths if path.is_dir() or path.suffix in (".yaml", ".yml"))
        except FolderTooDeep as error:
            raise InfralensError(error.describe(_as_given(self, root))) from None
        return found

    def lab_slugs(self) -> set[str] | None:
        """Labs present in ``labs/`` (``lab-02-denoising-step`` → ``02-denoising-step``); None if there is no labs dir."""
        if not self.labs_dir.is_dir():
            return None
        return {p.name.removeprefix("lab-") for p in self.labs_dir.iterdir() if p.is_dir() and p.name.startswith("lab-")}


def find_project(start: Path | str | None = None) -> Project:
    """The nearest directory upwards holding an ``annotations/`` folder or a ``[tool.infralens]`` table."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        settings = _settings(folder / "pyproject.toml")
        if settings is not None or (folder / "annotations").is_dir():
            settings = settings or {}
            return Project(
                root=folder,
                annotations_dir=_inside(folder, settings, "annotations", "annotations"),
                labs_dir=_inside(folder, settings, "labs", "labs"),
                lock_path=_inside(folder, settings, "lock", "annotations/annotations.lock"),
                scenarios_dir=_inside(folder, settings, "scenarios", "scenarios", through_links=True),
                libraries=read_libraries(settings, folder / "pyproject.toml"),
            )
    raise ProjectNotFound(f"no InfraLens project found at or above {here} (expected an annotations/ folder)")


class ProjectNotFound(InfralensError):
    """No folder at or above the start holds a project (a project whose settings are wrong is another error)."""


PYPROJECT_LIMIT = 1 << 20
"""Largest ``pyproject.toml`` read for its ``[tool.infralens]`` table."""


def _settings(pyproject: Path) -> dict | None:
    from infralens.cachedir import read_regular

    if not pyproject.is_file():
        return None
    try:
        data = tomllib.loads(read_regular(pyproject, limit=PYPROJECT_LIMIT).decode("utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
        return None
    settings = data.get("tool", {}).get("infralens")
    return settings if isinstance(settings, dict) else None


def _inside(root: Path, settings: dict, key: str, default: str, *, through_links: bool = False) -> Path:
    """``root / settings[key]``, which must be a relative path that stays inside the project (no ``..`` out of it, no
    absolute path): the project's configuration names where its files live, never a file elsewhere to read or write.

    The annotations, labs and lock are data InfraLens reads and writes, so they must stay inside once symbolic links
    are followed too. ``through_links``: the scenarios folder, which is code the project runs by design (like a
    ``conftest.py``), may be a link to a shared folder."""
    value = settings.get(key, default)
    where = f"{root / 'pyproject.toml'}: [tool.infralens] {key}"
    if not isinstance(value, str) or not value or "\0" in value:
        raise InfralensError(f"{where} must be a relative path inside the project, as text (default {default!r})")
    path = Path(os.path.normpath(root / value))
    if Path(value).is_absolute() or not path.is_relative_to(root):
        raise InfralensError(f"{where} = {value!r} leads outside the project; name a path inside {root}")
    if not through_links and leads_outside(path, root):
        raise InfralensError(
            f"{where} = {value!r}: {path} leads outside the project through a symbolic link (to {os.path.realpath(path)}); "
            f"replace the link with the file itself, or name a path inside {root}"
        )
    return path


@dataclass(frozen=True)
class LoadedAnnotations:
    """Every well-formed annotation of the project, every diagnostic, and the files read."""

    annotations: tuple[Annotation, ...]
    diagnostics: tuple[Diagnostic, ...]
    files: tuple[str, ...]
    recovered: tuple[Annotation, ...] = ()
    """Annotations with broken steps, rebuilt from their good ones: for ``validate`` only (see ``LoadResult``)."""
    sha256: tuple[tuple[str, str], ...] = ()
    """Per file read (as ``Annotation.path`` names it), the SHA-256 of exactly the bytes its annotations were parsed from."""


def load_annotations(project: Project, paths: list[str] | None = None) -> LoadedAnnotations:
    """Load every annotation file and run the checks that span files (unique ids, folder, lab)."""
    from infralens.annotations import load_file  # YAML + JSON Schema: imported only when annotations are loaded

    annotations: list[Annotation] = []
    recovered: list[Annotation] = []
    diagnostics: list[Diagnostic] = []
    digests: list[tuple[str, str]] = []
    files = project.annotation_files(paths)
    root = project.root.resolve()
    for file in files:
        try:
            real = file.resolve()
        except (RuntimeError, OSError):  # a link that loops (Python 3.11 raises RuntimeError)
            diagnostics.append(_looping(project, file))
            continue
        if real != root and root not in real.parents:
            diagnostics.append(_outside(project, file))
            continue
        if file.is_dir():  # a link to a folder inside the project
            hint = "move the files here instead of linking to their folder"
            message = "this annotation folder is a symbolic link to a folder; annotation folders are not followed through links, so it was not read"
            diagnostics.append(Diagnostic(Location(_as_given(project, file)), message, hint, code="io"))
            continue
        result = load_file(file, display_path=project.relative(file))
        annotations.extend(result.annotations)
        recovered.extend(result.recovered)
        diagnostics.extend(result.diagnostics)
        if result.sha256 is not None:
            digests.append((result.path, result.sha256))
    diagnostics.extend(_cross_file_checks(project, annotations))
    files_read = tuple(project.relative(f) for f in files)
    return LoadedAnnotations(tuple(annotations), tuple(diagnostics), files_read, tuple(recovered), tuple(digests))


def _outside(project: Project, file: Path) -> Diagnostic:
    """Why a file outside the project is not read: a link leading out of it, or a plain file that is not in it."""
    shown = _as_given(project, file)
    given = Path(os.path.abspath(file))
    kind = "folder" if file.is_dir() else "file"
    if given.is_relative_to(Path(os.path.abspath(project.root))):
        what, hint = f"a link to a {kind} outside the project", f"copy the {kind} into the project instead of linking to it"
    else:
        what = f"outside the project (its root is {project.root})"
        hint = f"move it into {project.relative(project.annotations_dir)}/, or pass --project with the folder that holds it"
    return Diagnostic(Location(shown), f"this annotation {kind} is {what}; it was not read", hint, code="io")


def _looping(project: Project, file: Path) -> Diagnostic:
    hint = "replace the link with the file it should name, or remove it"
    return Diagnostic(Location(_as_given(project, file)), "this annotation file is a symbolic link that loops; it was not read", hint, code="io")


def _as_given(project: Project, path: Path) -> str:
    """The path as found in the project (a link's own name, not where it points), for messages."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path(os.path.abspath(project.root))).as_posix()
    except ValueError:
        return str(absolute)


def _cross_file_checks(project: Project, annotations: list[Annotation]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    first_seen: dict[str, Annotation] = {}
    labs = project.lab_slugs()
    for annotation in annotations:
        where = annotation.location or Location(annotation.path)
        earlier = first_seen.get(annotation.id)
        if earlier is not None:
            found.append(Diagnostic(where, f"id {annotation.id!r} is already used at {earlier.location}", "give this annotation another id", code="duplicate"))
        first_seen.setdefault(annotation.id, annotation)
        folder = Path(annotation.path).parent.name
        if Path(annotation.path).parent.parent.name == project.annotations_dir.name and folder != annotation.source:
            found.append(
                Diagnostic(
                    where,
                    f"source {annotation.source!r} lives in annotations/{folder}/",
                    f"move the file to annotations/{annotation.source}/",
                    Severity.WARNING,
                    code="layout",
                )
            )
        if labs is not None and annotation.lab is not None and annotation.lab not in labs:
            hint = "create labs/lab-" + annotation.lab + "/ or use one of: " + ", ".join(sorted(labs)) if labs else "create the lab folder in labs/"
            found.append(Diagnostic(where, f"lab {annotation.lab!r} does not exist", hint, code="lab"))
    return found
