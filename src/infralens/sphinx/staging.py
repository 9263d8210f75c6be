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
from typing import TYPE_CHECKING, Any

from sphinx.project import Project

from infralens.sphinx.state import state_of

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

STAGING_FOLDER = "infralens-pages"
"""Folder under the doctree dir that receives generated pages when the source dir is read-only."""
STATE_KEY = "pages-base"
"""Where the build's :mod:`.state` holds the folder chosen for ``<generated_dir>/``."""


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
    state_of(app.env).values[STATE_KEY] = base
    return base


def pages_base(env: BuildEnvironment) -> Path:
    """The folder holding ``<generated_dir>/`` for this build (the source dir unless it was read-only)."""
    base = state_of(env).values.get(STATE_KEY)
    return base if isinstance(base, Path) else Path(env.srcdir)


class StagedProject(Project):
    """Sphinx's project, plus the generated pages staged outside the source dir.

    Only :class:`~sphinx.project.Project`'s public methods are extended: :meth:`discover` adds the staged pages,
    :meth:`doc2path` and :meth:`path2doc` map them to and from their files. It pickles with the environment.
    """

    def __init__(self, srcdir: str | os.PathLike[str], source_suffix: Iterable[str], staged_folder: Path, staged_prefix: str) -> None:
        super().__init__(srcdir, source_suffix)
        self.staged_folder = staged_folder
        self.staged_prefix = staged_prefix
        self.staged_docs: dict[str, Path] = {}
        """docname → the staged file (absolute) of each staged page."""
        self.staged_paths: dict[Path, str] = {}

    def restore(self, other: Project) -> None:
        super().restore(other)
        if isinstance(other, StagedProject):
            self.staged_docs, self.staged_paths = dict(other.staged_docs), dict(other.staged_paths)

    def discover(self, exclude_paths: Iterable[str] = (), include_paths: Iterable[str] = ("**",)) -> set[str]:
        found = super().discover(exclude_paths, include_paths)
        self.staged_docs.clear()
        self.staged_paths.clear()
        suffixes = tuple(self.source_suffix)
        for path in sorted(self.staged_folder.rglob("*")):
            if path.is_file() and path.name.endswith(suffixes):
                relative = PurePosixPath(path.relative_to(self.staged_folder).as_posix())
                docname = str(PurePosixPath(self.staged_prefix) / relative.with_suffix(""))
                found.add(docname)
                self.staged_docs[docname] = path
                self.staged_paths[path] = docname
        return found

    def doc2path(self, docname: str, absolute: bool) -> Any:
        staged = self.staged_docs.get(docname)
        if staged is None:
            return super().doc2path(docname, absolute)
        return self.srcdir / staged  # an absolute path (outside the source dir) either way, in Sphinx's own path type

    def path2doc(self, filename: str | os.PathLike[str]) -> str | None:
        return self.staged_paths.get(Path(filename)) or super().path2doc(filename)


def serve_from(app: Sphinx, base: Path, generated_dir: str) -> None:
    """Make this app's Sphinx project find the pages under ``base/<generated_dir>`` as documents ``<generated_dir>/…``.

    Sphinx reads documents from its source dir only and has no event that adds one from elsewhere, so the
    project object of this app (and of its environment, the same object) is replaced by a :class:`StagedProject`
    that took over its state; no class, function or other app is changed.
    """
    current = app.env.project
    staged = StagedProject(current.srcdir, current.source_suffix, base / generated_dir, generated_dir)
    staged.restore(current)
    app.project = staged
    app.env.project = staged
