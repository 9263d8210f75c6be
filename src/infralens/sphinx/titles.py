"""Page titles that are dotted names (``DDIMScheduler.step``) break after a dot on a narrow screen, never inside a name.

A browser may not break a line at ``.``, and with ``overflow-wrap`` it breaks anywhere, so a phone
showed ``DDIMScheduler.ste`` / ``p``. This post-transform puts ``<wbr>`` after each dot of a code
literal in a page's top title (HTML only; the table of contents and the search index keep the plain text).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform


class BreakableTitles(SphinxPostTransform):
    """``<wbr>`` after each ``.`` of a dotted code literal in a document's top-level title."""

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for section in self.document.children:
            if not isinstance(section, nodes.section) or not section.children or not isinstance(section[0], nodes.title):
                continue
            for literal in list(section[0].findall(nodes.literal)):
                text = literal.astext()
                if "." not in text or len(literal.children) != 1 or not isinstance(literal[0], nodes.Text):
                    continue
                pieces: list[nodes.Node] = []
                for index, part in enumerate(text.split(".")):
                    if index:
                        pieces += [nodes.Text("."), nodes.raw("", "<wbr>", format="html")]
                    pieces.append(nodes.Text(part))
                literal.children = []
                literal.extend(pieces)
