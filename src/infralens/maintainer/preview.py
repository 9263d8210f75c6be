"""Build one page — an annotated function or a lab — in a throwaway Sphinx project, and serve it.

The temporary project has a ``conf.py`` that loads ``infralens.sphinx`` against the real project
(annotations, labs, reports) with page generation off, and an ``index.md`` holding only the
``{infralens-function}`` directive for the target, or a copy of the lab's folder. Building that
takes a second or two instead of the whole site's minutes.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from infralens.cachedir import cache_root
from infralens.errors import InfralensError
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
        if not page.is_file():
            raise InfralensError(f"{project.relative(page)} does not exist yet: write the lab page first")
        return PreviewPage("lab", matching[0], page.read_text("utf-8"), folder)
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
            shutil.copytree(page.lab_folder, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        source.mkdir(parents=True, exist_ok=True)
        (source / "index.md").write_text(page.markdown, "utf-8")
        conf = CONF.format(root=str(project.root), sources={k: str(Path(v).resolve()) for k, v in (sources or {}).items()})
        (source / "conf.py").write_text(conf, "utf-8")
        started = time.perf_counter()
        # docutils_namespace: undo the global node/directive registrations when done, so this build
        # leaves no state behind in a process that builds other Sphinx projects afterwards.
        with docutils_namespace():
            app = Sphinx(str(source), str(source), str(out), str(work / "doctrees"), "html", status=None, warning=warnings, freshenv=True, verbosity=0)
            app.build(force_all=True)
        seconds = time.perf_counter() - started
    index = out / "index.html"
    if not index.is_file():
        raise InfralensError(f"the preview build wrote no page ({warnings.getvalue().strip()[:500]})")
    lines = tuple(line for line in warnings.getvalue().splitlines() if "WARNING" in line or "ERROR" in line)
    return PreviewBuild(page, index, out, seconds, lines)


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
