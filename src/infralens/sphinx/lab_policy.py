"""Lab pages follow the notes' rules: what :mod:`.note_policy` refuses in a note is refused in lab text too.

Lab folders arrive in pull requests like annotations, and their pages are published. So, unless a
lab is listed in ``infralens_trusted_labs`` (the project's own, reviewed pages), its text may not
run reStructuredText, insert raw markup, a file or page metadata, copy a file of the build machine
into the site, or link with a scheme other than ``http``, ``https`` and ``mailto``. Images are
allowed when the file is inside the lab's own folder (or on the web).

Two passes, each warning at the lab file and line (``infralens.lab-text``):

- :func:`on_source_read` blanks what would act while the page is parsed: refused directives
  (also inside other directives), directives with a ``:file:`` or ``:url:`` option, and raw HTML blocks.
- :func:`on_doctree_read` removes what is left in the tree: inline raw markup, page metadata,
  ``{download}`` references, links with a refused scheme, images from outside the lab folder.
  It runs before Sphinx's collectors, so nothing refused is ever copied into the output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes

from infralens.sphinx.catalog import catalog_for
from infralens.sphinx.note_policy import REFUSED_DIRECTIVES, refused_scheme
from infralens.sphinx.staging import pages_base
from infralens.sphinx.warnings import Subtype, warn

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

DOCTREE_PRIORITY = 400
"""Before Sphinx's image and download collectors (priority 500) see the tree."""

_FILE_OPTION = re.compile(r"(?m)^\s*:(file|url):")
_IMAGE_DIRECTIVES = frozenset({"image", "figure"})


@dataclass(frozen=True)
class LabPage:
    """A page of a lab: its slug, its own file in ``labs/``, its path inside the lab, and the folder the lab is staged in."""

    slug: str
    path: Path
    inner: PurePosixPath
    staged: Path
    trusted: bool


def lab_page(env: BuildEnvironment, docname: str) -> LabPage | None:
    """The lab page ``docname`` is: a generated ``<generated>/labs/lab-<slug>/…`` page, or any page of an ``infralens preview`` of a lab."""
    catalog = catalog_for(env)
    settings = catalog.settings
    parts = PurePosixPath(docname).parts
    prefix = PurePosixPath(settings.generated_dir).parts + ("labs",)
    if settings.preview_lab:  # infralens preview: the source dir is a copy of that one lab's folder
        slug, inner, staged = settings.preview_lab, PurePosixPath(docname), Path(env.srcdir)
    elif len(parts) >= len(prefix) + 2 and parts[: len(prefix)] == prefix and parts[len(prefix)].startswith("lab-"):
        slug, inner = parts[len(prefix)][len("lab-") :], PurePosixPath(*parts[len(prefix) + 1 :])
        staged = pages_base(env) / settings.generated_dir / "labs" / f"lab-{slug}"
    else:
        return None
    lab = catalog.labs.get(slug)
    folder = lab.folder if lab is not None else settings.labs_dir / f"lab-{slug}"
    trusted = "*" in settings.trusted_labs or slug in settings.trusted_labs
    return LabPage(slug, folder / f"{inner}.md", inner, staged, trusted)


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
    """Blank refused directives and raw HTML blocks of an untrusted lab page before MyST parses it."""
    found = lab_source(app.env, docname)
    if found is None:
        return
    _, path, _ = found
    lines = source[0].split("\n")
    for line, reason, start, end in _refusals(_markdown(app), source[0], 0):
        warn(f"lab text: {reason}; it is left out of the page (list the lab in infralens_trusted_labs if it is your own)", Subtype.LAB_TEXT, (str(path), line))
        lines[start:end] = [""] * (end - start)
    source[0] = "\n".join(lines)


def _refusals(markdown: MarkdownIt, text: str, offset: int) -> list[tuple[int, str, int, int]]:
    """``(line, reason, first, end)`` for each refused block in ``text`` (lines 0-based, ``end`` exclusive)."""
    found: list[tuple[int, str, int, int]] = []
    for token in markdown.parse(text):
        if token.map is None:
            continue
        start, end = token.map[0] + offset, token.map[1] + offset
        if token.type == "html_block":
            found.append((start + 1, "raw HTML is refused", start, end))
        elif token.type in ("fence", "colon_fence") and (name := _directive_name(token)) is not None:
            reason = _directive_refusal(name, token.content)
            if reason is not None:
                found.append((start + 1, reason, start, end))
            elif name not in ("code-block", "code", "sourcecode", "math"):
                found.extend(_refusals(markdown, token.content, start + 1))
    return found


def _directive_name(token: Token) -> str | None:
    info = token.info.strip()
    if info.startswith("{") and "}" in info:
        return info[1 : info.index("}")].strip().lower()
    return None


def _directive_refusal(name: str, content: str) -> str | None:
    if name in REFUSED_DIRECTIVES - _IMAGE_DIRECTIVES:
        return f"the {name!r} directive is refused (it could run reStructuredText or insert markup, a file or page metadata)"
    if _FILE_OPTION.search(content):
        return f"the {name!r} directive's :file: or :url: option is refused (it would insert a file into the page)"
    return None


def _markdown(app: Sphinx) -> MarkdownIt:
    """A MyST parser with the project's MyST settings, to find blocks exactly as MyST will."""
    from myst_parser.config.main import MdParserConfig
    from myst_parser.mdit_to_docutils.sphinx_ import SphinxRenderer
    from myst_parser.parsers.mdit import create_md_parser

    config = getattr(app.env, "myst_config", None) or MdParserConfig()
    return create_md_parser(config, SphinxRenderer)


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Remove inline raw markup, metadata, downloads, refused links and outside images from an untrusted lab page."""
    page = lab_page(app.env, app.env.docname)
    if page is None or page.trusted:
        return
    path, folder = page.path, page.staged
    here = (folder / page.inner).parent
    for node in list(doctree.findall(nodes.Element)):
        reason = _node_refusal(node, Path(app.srcdir), here, folder)
        if reason is None:
            continue
        warn(f"lab text: {reason}; it is left out of the page", Subtype.LAB_TEXT, (str(path), node.line or 0))
        if isinstance(node, nodes.reference | addnodes.download_reference):
            node.replace_self([nodes.Text(node.astext())] if node.astext() else [])
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
