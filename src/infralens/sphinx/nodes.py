"""Docutils nodes of the annotated-function view and how each builder writes them.

Structure nodes carry their HTML tag and CSS classes; :class:`trusted_html`
holds markup built by :mod:`infralens.sphinx.html` from escaped pieces only
(highlighted code, never note text). Notes are ordinary docutils nodes.
"""

from __future__ import annotations

import re
from html import escape, unescape

from docutils import nodes
from sphinx.application import Sphinx

from infralens.sphinx.mathml import math_html


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


def _visit_wrapper_html(self, node: _Wrapper) -> None:
    attributes = {k: v for k, v in node.get("html_attributes", {}).items()}
    self.body.append(self.starttag(node, node.tag, "", **attributes))


def _depart_wrapper_html(self, node: _Wrapper) -> None:
    self.body.append(f"</{node.tag}>\n")


def _visit_trusted_html(self, node: infralens_html) -> None:
    self.body.append(node["html"])
    raise nodes.SkipNode


def _visit_trusted_text(self, node: infralens_html) -> None:
    text = node.get("text")
    if text is None:  # code blocks keep only their HTML; the text is the HTML without tags
        markup = node["html"].replace("</a>", " ").replace('</span><span class="il-line', '</span>\n<span class="il-line')
        text = unescape(re.sub(r"<[^>]+>", "", markup))
    self.new_state(0)
    self.add_text(text)
    self.end_state(wrap=False)
    raise nodes.SkipNode


def _visit_note_math_html(self, node: infralens_math) -> None:
    self.body.append(math_html(node["latex"], node.get("display", False)))
    raise nodes.SkipNode


def _visit_note_math_text(self, node: infralens_math) -> None:
    self.add_text(node["latex"])
    raise nodes.SkipNode


def _skip(self, node: nodes.Node) -> None:
    raise nodes.SkipNode


def _pass(self, node: nodes.Node) -> None:
    pass


def _visit_note_math_latex(self, node: infralens_math) -> None:
    latex = node["latex"]
    self.body.append(f"\\[{latex}\\]" if node.get("display") else f"${latex}$")
    raise nodes.SkipNode


def register(app: Sphinx) -> None:
    wrapper = {
        "html": (_visit_wrapper_html, _depart_wrapper_html),
        "latex": (_pass, _pass),
        "text": (_pass, _pass),
        "man": (_pass, _pass),
        "texinfo": (_pass, _pass),
    }
    for node_class in (infralens_function, infralens_compare, infralens_block, infralens_fold, infralens_fold_summary, infralens_note):
        app.add_node(node_class, override=True, **wrapper)
    app.add_node(
        infralens_html,
        override=True,
        html=(_visit_trusted_html, None),
        text=(_visit_trusted_text, None),
        latex=(_skip, None),
        man=(_skip, None),
        texinfo=(_skip, None),
    )
    app.add_node(
        infralens_math,
        override=True,
        html=(_visit_note_math_html, None),
        text=(_visit_note_math_text, None),
        latex=(_visit_note_math_latex, None),
        man=(_visit_note_math_text, None),
        texinfo=(_visit_note_math_text, None),
    )
    app.add_node(infralens_backlinks, override=True, html=(_skip, None), latex=(_skip, None), text=(_skip, None), man=(_skip, None), texinfo=(_skip, None))


def plain(text: str) -> str:
    return escape(text, quote=True)
