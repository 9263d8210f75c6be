"""Lab pages are data: unless a lab is listed in ``infralens_trusted_labs``, its pages follow the lab allow-list.

Lab folders arrive in pull requests like annotations, and their pages are published. So, unless a
lab is listed in ``infralens_trusted_labs`` (the project's own, reviewed pages), a page may use only
what :mod:`.lab_allow` allows: no reStructuredText, raw markup, inserted file, page metadata or
copied file, links only to ``http``, ``https``, ``mailto`` or places in the project, images only from
the lab's own folder (or the web), toctrees only over the lab's own pages. Each refusal is a warning
at the lab's file and line (``infralens.lab-text``) and leaves the construct out; the build goes on.

Three passes:

- :func:`on_source_read`, before MyST parses the page: installs :mod:`.lab_guard` (directives and roles
  judged on their parsed options) and blanks what MyST handles without any lookup or what could not be
  parsed safely: ``{eval-rst}`` fences, raw HTML blocks, and directives nested deeper than
  :data:`MAX_DEPTH` block levels (found with MyST's own parser, without recursion).
- :func:`on_doctree_read` removes what is left in the tree: inline raw markup, page metadata,
  ``{download}`` references, links with a refused scheme, images from outside the lab folder. It runs
  before Sphinx's collectors, so nothing refused is ever copied into the output. It also marks every
  lab page but the index an orphan (trusted labs too), so the pages keep their own line numbers.

The bounds of the page itself (a regular file, its size, UTF-8) are :func:`infralens.annotations.read_lab_folder`'s,
applied when the lab is copied into the site.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes

from infralens.sphinx.catalog import catalog_for
from infralens.sphinx.lab_guard import GuardedPage, install
from infralens.sphinx.note_policy import refused_scheme
from infralens.sphinx.staging import pages_base
from infralens.sphinx.warnings import Subtype, warn

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

DOCTREE_PRIORITY = 400
"""Before Sphinx's image and download collectors (priority 500) see the tree."""

MAX_DEPTH = 40
"""The deepest block nesting (directives inside directives, quotes and lists) a lab page may reach."""

_LITERAL_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "math", "raw", "csv-table", "toctree"})
"""Directives whose body is not Markdown: not searched for nested blocks."""


@dataclass(frozen=True)
class LabPage:
    """A page of a lab: its slug, its own file in ``labs/``, its path inside the lab, and where the lab is staged."""

    slug: str
    path: Path
    inner: PurePosixPath
    staged: Path
    trusted: bool
    base: str = ""
    """The docname of the lab's folder (``""`` in ``infralens preview``)."""


def lab_page(env: BuildEnvironment, docname: str) -> LabPage | None:
    """The lab page ``docname`` is: a generated ``<generated>/labs/lab-<slug>/…`` page, or any page of an ``infralens preview`` of a lab."""
    catalog = catalog_for(env)
    settings = catalog.settings
    parts = PurePosixPath(docname).parts
    prefix = PurePosixPath(settings.generated_dir).parts + ("labs",)
    if settings.preview_lab:  # infralens preview: the source dir is a copy of that one lab's folder
        slug, inner, staged, base = settings.preview_lab, PurePosixPath(docname), Path(env.srcdir), ""
    elif len(parts) >= len(prefix) + 2 and parts[: len(prefix)] == prefix and parts[len(prefix)].startswith("lab-"):
        slug, inner = parts[len(prefix)][len("lab-") :], PurePosixPath(*parts[len(prefix) + 1 :])
        staged = pages_base(env) / settings.generated_dir / "labs" / f"lab-{slug}"
        base = str(PurePosixPath(*parts[: len(prefix) + 1]))
    else:
        return None
    lab = catalog.labs.get(slug)
    folder = lab.folder if lab is not None else settings.labs_dir / f"lab-{slug}"
    trusted = "*" in settings.trusted_labs or slug in settings.trusted_labs
    return LabPage(slug, folder / f"{inner}.md", inner, staged, trusted, base)


def lab_source(env: BuildEnvironment, docname: str) -> tuple[str, Path, PurePosixPath] | None:
    """``(slug, original file, path inside the lab)`` when ``docname`` is an untrusted lab page, else None."""
    page = lab_page(env, docname)
    if page is None or page.trusted:
        return None
    return page.slug, page.path, page.inner


def lab_file(env: BuildEnvironment, docname: str) -> Path | None:
    """The lab's own file behind ``docname`` (trusted or not), for warnings; None for other pages."""
    page = lab_page(env, docname)
    return None if page is None else page.path


def on_source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    """Guard the parse of an untrusted lab page, and blank what must not reach MyST."""
    page = lab_page(app.env, docname)
    if page is None or page.trusted:
        return
    install(app.env, GuardedPage(str(app.env.doc2path(docname)), page.path, docname, page.base))
    lines = source[0].split("\n")
    for line, reason, start, end in refusals(_markdown(app), source[0]):
        warn(
            f"lab text: {reason}; it is left out of the page (list the lab in infralens_trusted_labs if it is your own)",
            Subtype.LAB_TEXT,
            (str(page.path), line),
        )
        lines[start:end] = [""] * (end - start)
    source[0] = "\n".join(lines)


def refusals(markdown: MarkdownIt, text: str) -> list[tuple[int, str, int, int]]:
    """``(line, reason, first, end)`` for each block of ``text`` to blank (lines 0-based, ``end`` exclusive).

    Directive bodies are searched too, one level after another from a work list (never by recursion),
    each at its own line offset and depth; a directive past :data:`MAX_DEPTH` is blanked whole.
    """
    found: list[tuple[int, str, int, int]] = []
    work: list[tuple[str, int, int]] = [(text, 0, 0)]
    while work:
        chunk, offset, depth = work.pop()
        for token in markdown.parse(chunk):
            if token.map is None:
                continue
            start, end = token.map[0] + offset, token.map[1] + offset
            level = depth + token.level + 1
            if token.type == "html_block":
                found.append((start + 1, "raw HTML is refused", start, end))
            elif token.type not in ("fence", "colon_fence") or (name := _directive_name(token)) is None:
                continue
            elif name == "eval-rst":
                found.append((start + 1, "the 'eval-rst' directive is refused (it would run reStructuredText)", start, end))
            elif level > MAX_DEPTH:
                found.append((start + 1, f"the {name!r} directive nests blocks more than {MAX_DEPTH} levels deep", start, end))
            elif name not in _LITERAL_DIRECTIVES:
                work.append((token.content, start + 1, level))
    return found


def _directive_name(token: Token) -> str | None:
    info = token.info.strip()
    if info.startswith("{") and "}" in info:
        return info[1 : info.index("}")].strip().lower()
    return None


def _markdown(app: Sphinx) -> MarkdownIt:
    """A MyST parser with the project's MyST settings, to find blocks exactly as MyST will."""
    from myst_parser.config.main import MdParserConfig
    from myst_parser.mdit_to_docutils.sphinx_ import SphinxRenderer
    from myst_parser.parsers.mdit import create_md_parser

    config = getattr(app.env, "myst_config", None) or MdParserConfig()
    return create_md_parser(config, SphinxRenderer)


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Mark lab pages orphans; remove inline raw markup, metadata, downloads, refused links and outside images from an untrusted one."""
    page = lab_page(app.env, app.env.docname)
    if page is None:
        return
    if str(page.inner) != "index":  # listed only if the lab index lists it: never "not in any toctree"
        app.env.metadata[app.env.docname]["orphan"] = True
    if page.trusted:
        return
    path, folder = page.path, page.staged
    here = (folder / page.inner).parent
    for node in list(doctree.findall(nodes.Element)):
        reason = _node_refusal(node, Path(app.srcdir), here, folder)
        if reason is None:
            continue
        warn(f"lab text: {reason}; it is left out of the page", Subtype.LAB_TEXT, (str(path), node.line or 0))
        if isinstance(node, nodes.reference | addnodes.download_reference) and node.parent is not None and node.children:
            node.replace_self(nodes.inline("", "", *node.children))  # the text stays, as inert text
        elif node.parent is not None:
            node.parent.remove(node)


def _node_refusal(node: nodes.Element, srcdir: Path, here: Path, folder: Path) -> str | None:
    if isinstance(node, nodes.raw):
        return "raw markup is refused"
    if isinstance(node, nodes.meta):
        return "page metadata is refused"
    if isinstance(node, addnodes.download_reference):
        return "a {download} reference is refused (it would copy a file of the build machine into the site)"
    for attribute in ("refuri", "uri"):
        if (scheme := refused_scheme(str(node.get(attribute) or ""))) is not None:
            return f"a link with the {scheme!r} scheme is refused (only http, https, mailto or relative addresses)"
    if isinstance(node, nodes.image):
        uri = str(node.get("uri") or "")
        if "://" in uri:
            return None
        target = (srcdir / uri.lstrip("/")) if uri.startswith("/") else (here / uri)
        if not target.resolve().is_relative_to(folder.resolve()):
            return f"an image from outside the lab folder is refused ({uri})"
    return None
