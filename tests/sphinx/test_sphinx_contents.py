"""The page's contents (its ToC) list every function the page draws, under the section that draws it."""

from __future__ import annotations

import pytest
from docutils import nodes
from sphinx.testing.util import SphinxTestApp


def _entries(toc: nodes.Node) -> list[tuple[str, str]]:
    """(text, anchor) of every entry of a ToC, in order."""
    return [(ref.astext(), ref.get("anchorname", "")) for ref in toc.findall(nodes.reference)]


@pytest.mark.sphinx("html", testroot="basic")
def test_every_drawn_function_is_an_entry_of_the_page_contents(app: SphinxTestApp) -> None:
    app.build()
    docname = "_infralens/labs/lab-01-toy/index"
    entries = _entries(app.env.tocs[docname])
    doctree = app.env.get_doctree(docname)
    drawn = [node["ids"][0] for node in doctree.findall(lambda n: isinstance(n, nodes.Element) and "infralens-function" in n["classes"])]
    assert drawn
    assert [anchor for _, anchor in entries if anchor.startswith("#il-")] == ["#" + d for d in drawn]
    assert any(text.endswith("blend") for text, anchor in entries if anchor.startswith("#il-"))
    html = (app.outdir / "_infralens/labs/lab-01-toy/index.html").read_text("utf-8")
    assert 'class="il-toc-function"' in html


@pytest.mark.sphinx("html", testroot="basic")
def test_a_lab_page_links_to_its_starters_source(app: SphinxTestApp) -> None:
    """The starter is written as a page of its own (its source, fenced) and the lab page ends with a link to it."""
    app.build()
    page = (app.outdir / "_infralens/starters/lab-01-toy.html").read_text("utf-8")
    assert "lab-01-toy/starter.py" in page and "<span class=\"s1\">'starter'</span>" in page  # the toy starter's one line, highlighted
    lab = (app.outdir / "_infralens/labs/lab-01-toy/index.html").read_text("utf-8")
    assert 'href="../../starters/lab-01-toy.html"' in lab
