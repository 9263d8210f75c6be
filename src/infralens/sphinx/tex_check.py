"""A build check: TeX that did not become math is a warning, so ``make site`` (``-W``) fails on it.

MyST renders ``$…$`` and ``$$…$$`` only where its rules allow (``$$`` inside a list item, or math
split by markup, stays text); a reader then sees raw ``\\frac{\\alpha}{r}``. This post-transform looks
at the text a page will show — not code, literals or math — and warns at the source line of any
leftover ``$$`` or TeX command.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

from infralens.sphinx.lab_policy import lab_source
from infralens.sphinx.warnings import Location, Subtype, warn

LEFTOVER_TEX = re.compile(r"\$\$|\\(?:frac|sqrt|bar|hat|tilde|alpha|beta|gamma|sigma|epsilon|lambda|cdot|sum|prod|mathbf|mathrm|text|left|right)\b")
"""``$$`` or a TeX command a note or page meant as math."""

_NOT_PROSE = (nodes.literal, nodes.literal_block, nodes.math, nodes.math_block, nodes.raw, nodes.comment, nodes.system_message)


class LeftoverTexCheck(SphinxPostTransform):
    """Warn (``infralens.math``) where rendered text still holds TeX."""

    default_priority = 900
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for text in self.document.findall(nodes.Text):
            if _inside(text, _NOT_PROSE) or _inside_named(text, ("infralens_math", "infralens_html")):
                continue
            match = LEFTOVER_TEX.search(text.astext())
            if match is not None:
                snippet = text.astext()[max(0, match.start() - 20) : match.end() + 20]
                self._warn(text, f"TeX left in rendered text ({snippet!r})")
            elif _stray_dollar(text):
                self._warn(text, f"a '$' left beside a formula ({text.astext()[-30:]!r}): '$$' inside a paragraph or list item became inline math")

    def _warn(self, text: nodes.Text, what: str) -> None:
        parent = text.parent
        lab = lab_source(self.env, self.env.docname)  # a lab page: point at the lab's own file, not the generated copy
        where: Location = (str(lab[1]), parent.line or 0) if lab else parent
        warn(f"{what.replace(chr(10), ' ')}: it shows as raw markup; write it as $…$ or a ```{{math}} block", Subtype.MATH, where)


def _stray_dollar(text: nodes.Text) -> bool:
    """Text that ends with ``$`` right before a formula, or starts with one right after it."""
    parent = text.parent
    if parent is None:
        return False
    siblings = parent.children
    index = siblings.index(text)
    before = siblings[index + 1] if index + 1 < len(siblings) else None
    after = siblings[index - 1] if index > 0 else None
    value = text.astext()
    return (value.endswith("$") and _is_math(before)) or (value.startswith("$") and _is_math(after))


def _is_math(node: nodes.Node | None) -> bool:
    return node is not None and (isinstance(node, nodes.math) or type(node).__name__ == "infralens_math")


def _inside(node: nodes.Node, kinds: tuple[type[nodes.Node], ...]) -> bool:
    current: nodes.Node | None = node.parent
    while current is not None:
        if isinstance(current, kinds):
            return True
        current = current.parent
    return False


def _inside_named(node: nodes.Node, names: tuple[str, ...]) -> bool:
    current: nodes.Node | None = node.parent
    while current is not None:
        if type(current).__name__ in names:
            return True
        current = current.parent
    return False
