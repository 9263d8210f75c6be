"""The learning path on the site: ``infralens-learning-path`` draws it, and each lab page says where it sits.

The path is content (:mod:`infralens.annotations.learning_path`: ``labs/tracks.yaml`` and each lab's
``lab.yaml``), loaded with the catalog. The directive draws every track in order, each lab as a card: its
title (a link), about how long it takes, its one-line summary, and what it assumes (the labs to take first,
as links, and what it assumes from outside the labs). The start page and the labs index both use it. On
``doctree-read`` a lab page gets one line under its title: its track, its place in it, its time, what it
assumes. Every value reaches the page as docutils text, so nothing in it is read as markup; only a
backtick span becomes inline code.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

from infralens.annotations import LAB_FILE, TRACKS_FILE, Track, lab_number, path_order
from infralens.sphinx.catalog import Catalog, Lab, catalog_for
from infralens.sphinx.pages import lab_docname
from infralens.sphinx.warnings import Subtype, warn

if TYPE_CHECKING:
    from sphinx.application import Sphinx

_CODE = re.compile(r"`([^`]+)`")
NOT_TAUGHT = frozenset({"il-learning-place", "il-learning-assumes"})
"""Classes of the lines a lab page gets about its place: what it assumes is not what it teaches (search leaves them out)."""


def tracks_with_labs(catalog: Catalog) -> list[tuple[Track, list[Lab]]]:
    """Each track in order with its labs in path order (labs with a page and a place on a declared track)."""
    by_folder = {lab.folder.name: lab for lab in catalog.labs.values() if lab.page is not None}
    order = path_order(catalog.tracks, {folder: lab.place for folder, lab in by_folder.items()})
    return [(track, [by_folder[f] for f in order if by_folder[f].place and by_folder[f].place.track == track.name]) for track in catalog.tracks.tracks]  # type: ignore[union-attr]


def labs_in_path_order(catalog: Catalog) -> list[Lab]:
    """Every lab with a page: those on the path in its order, then any other in folder order."""
    on_path = [lab for _, labs in tracks_with_labs(catalog) for lab in labs]
    return on_path + [lab for lab in catalog.labs.values() if lab.page is not None and lab not in on_path]


def duration(minutes: int) -> str:
    """``45 min``, ``1 h``, ``2 h 15 min``."""
    hours, rest = divmod(minutes, 60)
    return " ".join(part for part in (f"{hours} h" if hours else "", f"{rest} min" if rest or not hours else "") if part)


def _inline(text: str) -> list[nodes.Node]:
    """``text`` as docutils text, each backtick span as inline code."""
    parts: list[nodes.Node] = []
    for index, piece in enumerate(_CODE.split(text)):
        if piece:
            parts.append(nodes.literal(piece, piece) if index % 2 else nodes.Text(piece))
    return parts


def _lab_link(catalog: Catalog, lab: Lab, label: str) -> addnodes.pending_xref:
    target = "/" + lab_docname(catalog.settings, lab.slug)
    link = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget=target, refexplicit=True, refwarn=True)
    link += nodes.inline(label, label)
    return link


def assumes(catalog: Catalog, lab: Lab) -> nodes.paragraph:
    """ "Assumes: <links to the labs to take first>; <what it assumes from outside>"."""
    paragraph = nodes.paragraph(classes=["il-learning-assumes"])
    paragraph += nodes.strong("Assumes: ", "Assumes: ")
    by_number = {lab_number(other.folder.name): other for other in catalog.labs.values() if other.page is not None}
    earlier = [by_number[number] for number in (lab.place.after if lab.place else ()) if number in by_number]
    for index, other in enumerate(earlier):
        paragraph += nodes.Text(", " if index else "")
        paragraph += _lab_link(catalog, other, other.title)
    if lab.place is not None and lab.place.know:
        paragraph += nodes.Text("; " if earlier else "")
        paragraph.extend(_inline(lab.place.know))
    return paragraph


def _card(catalog: Catalog, lab: Lab) -> nodes.list_item:
    item = nodes.list_item(classes=["il-learning-lab"])
    head = nodes.paragraph(classes=["il-learning-head"])
    title = nodes.strong()
    title += _lab_link(catalog, lab, lab.title)
    head += title
    if lab.place is not None:
        head += nodes.inline("", f"about {duration(lab.place.minutes)}", classes=["il-learning-time"])
    item += head
    if lab.place is not None:
        item += nodes.paragraph("", "", *_inline(lab.place.summary), classes=["il-learning-summary"])
    item += assumes(catalog, lab)
    return item


def path_nodes(catalog: Catalog) -> list[nodes.Node]:
    """Every track: its name, what it covers with its lab count and total time, then a card per lab."""
    found: list[nodes.Node] = []
    for track, labs in tracks_with_labs(catalog):
        box = nodes.container(classes=["il-learning-track"])
        box += nodes.rubric(track.name, track.name, classes=["il-learning-track-name"])
        total = sum(lab.place.minutes for lab in labs if lab.place is not None)
        count = f"{len(labs)} lab{'s' if len(labs) != 1 else ''}, about {duration(total)}."
        box += nodes.paragraph("", "", *_inline(track.about), nodes.Text(" "), nodes.emphasis(count, count), classes=["il-learning-about"])
        cards = nodes.enumerated_list(classes=["il-learning-labs"])
        cards.extend(_card(catalog, lab) for lab in labs)
        if labs:
            box += cards
        found.append(box)
    return found


class LearningPathDirective(SphinxDirective):
    """``infralens-learning-path``: the tracks and their labs, as cards (nothing, with a warning, when there is no path)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        catalog = catalog_for(self.env)
        labs_dir = catalog.settings.labs_dir
        self.env.note_dependency(str(labs_dir / TRACKS_FILE))
        for lab in catalog.labs.values():  # a changed summary, time, title or new lab redraws the page
            self.env.note_dependency(str(lab.folder / LAB_FILE))
            if lab.page is not None:
                self.env.note_dependency(str(lab.page))
        if catalog.tracks.path is None:
            warn(f"infralens-learning-path: there is no learning path ({labs_dir / TRACKS_FILE} does not exist)", Subtype.LAB, self.get_location())
            return []
        return [nodes.container("", *path_nodes(catalog), classes=["il-learning-path"])]


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    """A lab page on the path gets one line under its title: track, place in it, time, what it assumes."""
    catalog = catalog_for(app.env)
    for track, labs in tracks_with_labs(catalog):
        for position, lab in enumerate(labs, 1):
            if lab_docname(catalog.settings, lab.slug) != app.env.docname or lab.place is None:
                continue
            section = doctree.next_node(nodes.section)
            if section is None:
                return
            line = nodes.paragraph(classes=["il-learning-place"])
            line += nodes.strong(track.name, track.name)
            line += nodes.Text(f", lab {position} of {len(labs)} · about {duration(lab.place.minutes)}")
            title = next((index for index, child in enumerate(section.children) if isinstance(child, nodes.title)), 0)
            section.insert(title + 1, [line, assumes(catalog, lab)])
            return
