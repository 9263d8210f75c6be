"""Where generated pages are written: inside the source dir, or beside the doctrees when it is read-only.

Sphinx reads documents from its source dir, so generated pages normally go to
``<srcdir>/<infralens_generated_dir>/``. A read-only checkout (a read-only mount, a packaged docs
folder) cannot take them; then they are written under ``<doctreedir>/infralens-pages/`` instead and
registered with Sphinx's project under the same document names, so links, toctrees and the built
site are the same. Nothing is written into the source dir in that case.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from sphinx.project import Project

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

STAGING_FOLDER = "infralens-pages"
"""Folder under the doctree dir that receives generated pages when the source dir is read-only."""

_BASES: WeakKeyDictionary[BuildEnvironment, Path] = WeakKeyDictionary()


def writable(folder: Path) -> bool:
    """Whether ``folder`` (or, when it does not exist yet, its nearest existing parent) can be written."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return os.access(probe, os.W_OK)


def choose_base(app: Sphinx, generated_dir: str) -> Path:
    """The folder that will hold ``<generated_dir>/``: the source dir when it can be written, else the staging folder."""
    srcdir = Path(app.srcdir)
    base = srcdir if writable(srcdir / generated_dir) else Path(app.doctreedir) / STAGING_FOLDER
    _BASES[app.env] = base
    return base


def pages_base(env: BuildEnvironment) -> Path:
    """The folder holding ``<generated_dir>/`` for this build (the source dir unless it was read-only)."""
    return _BASES.get(env, Path(env.srcdir))


class StagedProject(Project):
    """Sphinx's project, plus the generated pages staged outside the source dir (picklable with the env)."""

    staged_folder: Path
    staged_prefix: str

    def discover(self, exclude_paths: Iterable[str] = (), include_paths: Iterable[str] = ("**",)) -> set[str]:
        found = super().discover(exclude_paths, include_paths)
        suffixes = tuple(self.source_suffix)
        for path in sorted(self.staged_folder.rglob("*")):
            if path.is_file() and path.name.endswith(suffixes):
                relative = PurePosixPath(path.relative_to(self.staged_folder).as_posix())
                docname = str(PurePosixPath(self.staged_prefix) / relative.with_suffix(""))
                self.docnames.add(docname)
                # Sphinx keeps no public setter; it joins the source dir with this absolute path, giving the path.
                self._docname_to_path[docname] = path
                self._path_to_docname[path] = docname
        return found


def serve_from(app: Sphinx, base: Path, generated_dir: str) -> None:
    """Make Sphinx find the pages under ``base/<generated_dir>`` as documents ``<generated_dir>/…``."""
    project = app.project
    project.__class__ = StagedProject
    assert isinstance(project, StagedProject)
    project.staged_folder = base / generated_dir
    project.staged_prefix = generated_dir
