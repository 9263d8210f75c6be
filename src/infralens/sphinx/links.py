"""Links between pages: a reference to a document, and a paragraph of them joined by " · "."""

from __future__ import annotations

from collections.abc import Iterable

from docutils import nodes
from sphinx import addnodes

SEPARATOR = " · "


def doc_link(docname: str, text: str, *, css: str | None = None, explicit: bool = True) -> addnodes.pending_xref:
    """A reference to ``docname`` (from the source root); ``explicit=False`` lets Sphinx show the page title instead of ``text``."""
    ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget="/" + docname, refexplicit=explicit, refwarn=True)
    ref += nodes.inline(text, text, classes=[css] if css else [])
    return ref


def add_joined(paragraph: nodes.paragraph, links: Iterable[nodes.Node]) -> nodes.paragraph:
    """Append ``links`` to ``paragraph``, separated by " · " from each other and from any links already there."""
    for link in links:
        if any(isinstance(child, addnodes.pending_xref) for child in paragraph.children):
            paragraph += nodes.Text(SEPARATOR)
        paragraph += link
    return paragraph
