"""Build one page — an annotated function or a lab — in a throwaway Sphinx project, and serve it.

The temporary source dir holds an ``index.md`` with only the ``{infralens-function}`` directive for the
target, or a copy of the lab's folder. It is built with the site's own configuration (the project's
``docs/conf.py``: its extensions, MyST settings and theme), overriding only what a preview must (the
project root, page generation off), so the page looks as it will on the site; a project without a
site configuration gets a minimal one. Warnings name the project's files, not the throwaway copy, and
only those concerning the previewed page are shown, with ``validate``'s checks of the lab page's
directives. Building takes a second or two instead of the whole site's minutes.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from infralens.annotations import Annotation, read_lab_folder, read_lab_page
from infralens.cachedir import cache_root
from infralens.errors import Diagnostic, InfralensError
from infralens.project import Project, load_annotations

CONF = """\
extensions = ["myst_parser", "infralens.sphinx"]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
project = "InfraLens preview"
html_theme = "furo"
html_title = "InfraLens preview"
html_math_renderer = "infralens_mathml"
html_copy_source = False
pygments_style = "friendly"
pygments_dark_style = "monokai"
infralens_project_root = {root!r}
infralens_generate_pages = False
infralens_sources = {sources!r}
suppress_warnings = ["infralens.unknown-target"]
infralens_preview_lab = {lab!r}
"""


@dataclass(frozen=True)
class PreviewPage:
    """What to build: a title, the page's Markdown, and a lab folder to copy beside it (labs only)."""

    kind: str
    """``function`` or ``lab``."""
    name: str
    markdown: str
    lab_folder: Path | None = None


@dataclass(frozen=True)
class PreviewBuild:
    page: PreviewPage
    index_html: Path
    out_dir: Path
    seconds: float
    warnings: tuple[str, ...]


def choose_page(project: Project, what: str) -> PreviewPage:
    """A lab slug (``03-scheduler-reading``, ``lab-03-...``, or an unambiguous prefix like ``03``), an annotation id, or a target."""
    labs = sorted(project.lab_slugs() or ())
    slug = what.removeprefix("lab-").rstrip("/")
    matching = [lab for lab in labs if lab == slug] or ([lab for lab in labs if lab.startswith(slug)] if "." not in slug else [])
    if len(matching) == 1:
        folder = project.labs_dir / f"lab-{matching[0]}"
        page = folder / "index.md"
        for path in (folder, page):  # the site refuses these too (infralens.sphinx.catalog): nothing outside the project is published
            if not path.resolve().is_relative_to(project.root.resolve()):
                raise InfralensError(f"{project.relative(path)}: a symbolic link to {path.resolve()}, outside the project; refused")
        if not os.path.lexists(page):
            raise InfralensError(f"{project.relative(page)} does not exist yet: write the lab page first")
        read = read_lab_page(page, project.relative(page))  # as the site reads it: a regular file, bounded, UTF-8 checked
        if read.text is None:
            raise InfralensError(str(read.problems[0]))
        return PreviewPage("lab", matching[0], read.text, folder)
    if len(matching) > 1:
        raise InfralensError(f"{what!r} matches several labs: {', '.join(matching)}")
    loaded = load_annotations(project)
    by_id = {a.id: a for a in loaded.annotations}
    target = by_id[what].target if what in by_id else what
    if not any(a.target == target for a in loaded.annotations):
        raise InfralensError(f"{what!r} is not a lab, an annotation id, or the target of an annotation; 'infralens add {what} --lab SLUG' creates one")
    title = target.rsplit(".", 2)
    heading = ".".join(title[-2:]) if len(title) >= 2 else target
    markdown = f"# {heading}\n\n```{{infralens-function}} {target}\n:canonical:\n```\n"  # canonical: with the summary
    return PreviewPage("function", target, markdown)


def default_preview_dir() -> Path:
    """Where a preview is written without ``--out``: one folder in the InfraLens cache, replaced by each preview."""
    return Path(cache_root()) / "preview" / "html"


def build_preview(project: Project, page: PreviewPage, out_dir: Path | None = None, *, sources: dict[str, str] | None = None) -> PreviewBuild:
    """Write a throwaway Sphinx project, build it to HTML (warnings collected, never fatal), remove the project.

    The HTML goes to *out_dir*, or to :func:`default_preview_dir` (cleared first), so previews never
    accumulate temporary folders. ``sources``: distribution → directory or wheel read instead of the
    installed one (``--source``).
    """
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    if out_dir is None:
        out = default_preview_dir()
        shutil.rmtree(out, ignore_errors=True)
    else:
        out = Path(out_dir).resolve()
    warnings = io.StringIO()
    with tempfile.TemporaryDirectory(prefix="infralens-preview-") as folder:
        work = Path(folder)
        source = work / "src"
        if page.lab_folder is not None:
            for relative, data in read_lab_folder(page.lab_folder, project.root).files.items():  # what the site publishes; the build warns
                (source / relative).parent.mkdir(parents=True, exist_ok=True)
                (source / relative).write_bytes(data)
        source.mkdir(parents=True, exist_ok=True)
        (source / "index.md").write_text(page.markdown, "utf-8")
        lab = page.name if page.kind == "lab" else ""  # a lab's pages follow the lab-text rules, as on the site
        absolute = {k: str(Path(v).resolve()) for k, v in (sources or {}).items()}
        confdir = site_conf_dir(project)
        overrides: dict[str, object] = {"infralens_project_root": str(project.root), "infralens_generate_pages": False, "infralens_preview_lab": lab}
        overrides.update({"root_doc": "index", **({"infralens_sources": absolute} if absolute else {})})
        if confdir is None:
            confdir = source
            (source / "conf.py").write_text(CONF.format(root=str(project.root), sources=absolute, lab=lab), "utf-8")
        started = time.perf_counter()
        # docutils_namespace: undo the global node/directive registrations when done, so this build
        # leaves no state behind in a process that builds other Sphinx projects afterwards.
        with docutils_namespace():
            app = Sphinx(
                str(source), str(confdir), str(out), str(work / "doctrees"), "html", confoverrides=overrides, status=None, warning=warnings, freshenv=True
            )
            app.build(force_all=True)
        seconds = time.perf_counter() - started
        annotations = load_annotations(project).annotations
        lines = page_warnings(project, page, warnings.getvalue(), source, annotations)
    index = out / "index.html"
    if not index.is_file():
        raise InfralensError(f"the preview build wrote no page ({' | '.join(lines)[:500]})")
    built = {line.split(": ", 1)[0] for line in lines}  # 'path:line' the build already warned at (it knows unknown targets too)
    checks = [str(d) for d in lab_page_checks(project, page, annotations) if f"{d.location.path}:{d.location.line}" not in built]
    return PreviewBuild(page, index, out, seconds, (*lines, *checks))


def site_conf_dir(project: Project) -> Path | None:
    """The folder of the site's ``conf.py`` (``docs/``, ``doc/`` or the project root) when it loads ``infralens.sphinx``."""
    for folder in (project.root / "docs", project.root / "doc", project.root):
        conf = folder / "conf.py"
        try:
            if conf.is_file() and "infralens.sphinx" in conf.read_text("utf-8"):
                return folder
        except (OSError, UnicodeDecodeError):
            continue
    return None


_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def page_warnings(project: Project, page: PreviewPage, text: str, source: Path, annotations: Sequence[Annotation]) -> tuple[str, ...]:
    """The build's warnings about the previewed page, naming project files instead of the throwaway copy.

    Warnings at annotation files (or the concept map) that the page does not show are left out: loading
    the catalog reads every annotation, but a preview answers for one page.
    """
    shown = _page_files(project, page, annotations)
    own = project.relative(page.lab_folder) + "/" if page.lab_folder is not None else ""
    names = {f"{copy}/": own for copy in {str(source), str(source.resolve())}}
    if page.lab_folder is None:
        names = {f"{copy}/index.md": f"(the preview page of {page.name})" for copy in {str(source), str(source.resolve())}}
    root = f"{project.root}/"
    kept = []
    for raw in text.splitlines():
        line = _COLOUR.sub("", raw)
        if "WARNING" not in line and "ERROR" not in line:
            continue
        for copy, name in names.items():
            line = line.replace(copy, name)
        line = line.replace(root, "")
        path = line.split(":", 1)[0]
        if path in shown or not _concerns_other_files(project, path):
            kept.append(line)
    return tuple(kept)


def _concerns_other_files(project: Project, path: str) -> bool:
    """Whether a warning's path is one the whole project has many of: an annotation file, the concept map, another lab."""
    folders = [project.relative(project.annotations_dir) + "/", project.relative(project.labs_dir) + "/"]
    return any(path.startswith(folder) for folder in folders)


def _page_files(project: Project, page: PreviewPage, annotations: Sequence[Annotation]) -> set[str]:
    """The project files the page draws on: its lab folder's pages, the annotation files it shows, the concept map."""
    from infralens.resolve import lab_page_targets

    targets, concepts = ({page.name}, False) if page.lab_folder is None else lab_page_targets(project, page.markdown)
    files = {a.path for a in annotations if a.target in targets}
    if concepts:
        files.add(project.relative(project.labs_dir / "concepts.yaml"))
    if page.lab_folder is not None:
        from infralens.bounds import FolderTooDeep, walk

        try:  # iterative and depth-limited: a folder nested 1,200 deep is named, not a RecursionError
            files.update(project.relative(Path(where) / name) for where, _, names in walk(page.lab_folder) for name in names if name.endswith(".md"))
        except FolderTooDeep as error:
            raise InfralensError(error.describe(project.relative(page.lab_folder))) from None
    return files


def lab_page_checks(project: Project, page: PreviewPage, annotations: Sequence[Annotation]) -> list[Diagnostic]:
    """``validate``'s findings about a lab page: directives naming no annotation, annotations of the lab it does not show."""
    if page.lab_folder is None:
        return []
    from infralens.resolve import lab_reference_diagnostics, unshown_warnings

    folder = project.relative(page.lab_folder) + "/"
    found = [d for d in lab_reference_diagnostics(project, annotations) if d.location.path.startswith(folder)]
    found += unshown_warnings(project, [a for a in annotations if a.lab == page.name])
    return found


def make_server(directory: Path, port: int):
    """An HTTP server for ``directory`` bound to 127.0.0.1 only (``port`` 0 picks a free one)."""
    import functools
    import http.server

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # one line per request is noise here
            pass

    handler = functools.partial(QuietHandler, directory=str(directory))
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as error:
        raise InfralensError(f"cannot listen on 127.0.0.1:{port} ({error.strerror}); pass --port N (0 picks a free port)") from error


def serve(directory: Path, port: int) -> None:
    """Serve ``directory`` on 127.0.0.1 until interrupted; prints the URL first."""
    with make_server(directory, port) as server:
        print(f"serving http://127.0.0.1:{server.server_address[1]}/index.html (Ctrl-C stops)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("stopped")
