"""Docutils nodes of the annotated-function view and how each builder writes them.

Structure nodes carry their HTML tag and CSS classes; :class:`infralens_html`
holds markup built by :mod:`infralens.sphinx.html` from escaped pieces only
(highlighted code, never note text). Notes are ordinary docutils nodes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape
from typing import TYPE_CHECKING

from docutils import nodes

from infralens.sphinx.mathml import math_html

if TYPE_CHECKING:
    from sphinx.writers.html5 import HTML5Translator
    from sphinx.writers.latex import LaTeXTranslator
    from sphinx.writers.text import TextTranslator


class _Wrapper(nodes.General, nodes.Element):
    """A container written as ``<tag class=...>`` … ``</tag>`` in HTML."""

    tag = "div"


class infralens_function(_Wrapper):
    """One annotated function: header, then blocks of code with notes."""


class infralens_compare(_Wrapper):
    """Two functions side by side."""


class infralens_block(_Wrapper):
    """Some consecutive lines, with the notes that belong beside them."""


class infralens_fold(_Wrapper):
    """A long unannotated stretch, collapsed but expandable."""

    tag = "details"


class infralens_fold_summary(_Wrapper):
    tag = "summary"


class infralens_note(_Wrapper):
    """One note; its ids make the permalink target."""

    tag = "aside"


class infralens_html(nodes.General, nodes.Element):
    """Markup built from escaped parts; ``text`` (or the markup without tags) is the fallback for other builders."""


class infralens_math(nodes.Inline, nodes.TextElement):
    """A formula in a note, always written as MathML (never through a CDN)."""


class infralens_backlinks(nodes.General, nodes.Element):
    """Replaced on ``doctree-resolved`` by links to the pages embedding ``target``."""


def _visit_wrapper_html(self: HTML5Translator, node: _Wrapper) -> None:
    attributes: dict[str, str] = dict(node.get("html_attributes", {}))
    self.body.append(self.starttag(node, node.tag, "", False, **attributes))


def _depart_wrapper_html(self: HTML5Translator, node: _Wrapper) -> None:
    self.body.append(f"</{node.tag}>\n")


def _visit_trusted_html(self: HTML5Translator, node: infralens_html) -> None:
    self.body.append(node["html"])
    raise nodes.SkipNode


def _visit_trusted_text(self: TextTranslator, node: infralens_html) -> None:
    text = node.get("text")
    if text is None:  # code blocks keep only their HTML; the text is the HTML without tags
        markup = node["html"].replace("</a>", " ").replace('</span><span class="il-line', '</span>\n<span class="il-line')
        text = unescape(re.sub(r"<[^>]+>", "", markup))
    self.new_state(0)
    self.add_text(text)
    self.end_state(wrap=False)
    raise nodes.SkipNode


def _visit_note_math_html(self: HTML5Translator, node: infralens_math) -> None:
    self.body.append(math_html(node["latex"], node.get("display", False)))
    raise nodes.SkipNode


def _visit_note_math_text(self: TextTranslator, node: infralens_math) -> None:
    self.add_text(node["latex"])
    raise nodes.SkipNode


def _visit_note_math_as_text(self: nodes.NodeVisitor, node: infralens_math) -> None:
    """Man pages and Texinfo have no ``add_text``: the LaTeX goes through the writer's own text handling."""
    self.dispatch_visit(nodes.Text(node["latex"]))
    raise nodes.SkipNode


def _visit_note_math_latex(self: LaTeXTranslator, node: infralens_math) -> None:
    latex = node["latex"]
    self.body.append(f"\\[{latex}\\]" if node.get("display") else f"${latex}$")
    raise nodes.SkipNode


def _skip(self: nodes.NodeVisitor, node: nodes.Node) -> None:
    raise nodes.SkipNode


def _pass(self: nodes.NodeVisitor, node: nodes.Node) -> None:
    pass


Visitor = Callable[..., None]
"""A translator method taking ``(translator, node)``; each builder has its own translator class."""

_WRAPPER: dict[str, tuple[Visitor, Visitor | None]] = {
    "html": (_visit_wrapper_html, _depart_wrapper_html),
    **{builder: (_pass, _pass) for builder in ("latex", "text", "man", "texinfo")},
}

VISITORS: dict[type[nodes.Element], dict[str, tuple[Visitor, Visitor | None]]] = {
    **{wrapper: _WRAPPER for wrapper in (infralens_function, infralens_compare, infralens_block, infralens_fold, infralens_fold_summary, infralens_note)},
    infralens_html: {
        "html": (_visit_trusted_html, None),
        "text": (_visit_trusted_text, None),
        **{builder: (_skip, None) for builder in ("latex", "man", "texinfo")},
    },
    infralens_math: {
        "html": (_visit_note_math_html, None),
        "text": (_visit_note_math_text, None),
        "latex": (_visit_note_math_latex, None),
        **{builder: (_visit_note_math_as_text, None) for builder in ("man", "texinfo")},
    },
    infralens_backlinks: {builder: (_skip, None) for builder in ("html", "latex", "text", "man", "texinfo")},
}
"""Node class → builder → ``(visit, depart)``: what :func:`~infralens.sphinx.setup` registers with ``app.add_node``."""
