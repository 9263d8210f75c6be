"""The on-page contents list every annotated function, under the section that draws it.

Sphinx's ToC collector lists a page's sections (and object descriptions); an annotated function is
neither, so a lab page drawing 21 functions under 14 headings listed only the headings. After the
collector has run (``doctree-read``, a later priority), each function drawn on the page becomes an
entry under its section's entry, in page order, linking to the function's own anchor.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes

from infralens.sphinx import nodes as il

if TYPE_CHECKING:
    from sphinx.application import Sphinx

TITLE = "il_title"
"""The attribute of an ``infralens_function`` node holding the name the contents show for it."""
DISTRIBUTION = "il_distribution"
"""Its distribution, added to the name where two functions on one page share a name."""
PRIORITY = 600
"""After Sphinx's ToC collector (500), which builds the list this adds to."""


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """Add every function drawn on the page to its ToC (``env.tocs``), under the entry of its section."""
    docname = app.env.docname
    toc = app.env.tocs.get(docname)
    first = doctree.next_node(nodes.section)
    if toc is None or first is None or not first["ids"]:
        return
    entries = _section_entries(toc, first["ids"][0])
    functions = list(doctree.findall(il.infralens_function))
    shared = Counter(function.get(TITLE) for function in functions)
    for function in functions:
        section = next((node for node in _ancestors(function) if isinstance(node, nodes.section)), None)
        entry = entries.get(section["ids"][0]) if section is not None and section["ids"] else None
        if entry is None or not function["ids"] or not function.get(TITLE):
            continue
        sublist = next((child for child in entry.children if isinstance(child, nodes.bullet_list)), None)
        if sublist is None:
            sublist = nodes.bullet_list()
            entry += sublist
        title = function[TITLE] if shared[function[TITLE]] == 1 else f"{function[TITLE]} ({function.get(DISTRIBUTION, '')})"
        name = nodes.literal("", title)
        reference = nodes.reference("", "", name, internal=True, refuri=docname, anchorname="#" + function["ids"][0])
        sublist += nodes.list_item("", addnodes.compact_paragraph("", "", reference), classes=["il-toc-function"])


def _section_entries(toc: nodes.Node, first_id: str) -> dict[str, nodes.list_item]:
    """Section id → its ToC entry (the collector gives the page's first section the anchor "")."""
    found = {}
    for entry in toc.findall(nodes.list_item):
        reference = entry.next_node(nodes.reference)
        if reference is not None and reference.parent.parent is entry:
            anchor = reference.get("anchorname", "")
            found[anchor[1:] if anchor else first_id] = entry
    return found


def _ancestors(node: nodes.Node) -> Iterator[nodes.Element]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent
