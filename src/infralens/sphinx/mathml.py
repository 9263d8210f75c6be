"""LaTeX → MathML at build time, so formulas need no script and no CDN."""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from typing import TYPE_CHECKING

from docutils import nodes

if TYPE_CHECKING:
    from sphinx.writers.html5 import HTML5Translator

_UNSAFE = re.compile(r"<\s*script|javascript:|\bon\w+\s*=|\bhref\s*=", re.IGNORECASE)


@lru_cache(maxsize=4096)
def latex_to_mathml(latex: str, display: bool) -> str | None:
    """MathML for ``latex``; ``None`` when it cannot be converted safely."""
    from latex2mathml.converter import convert

    try:
        markup = convert(latex.strip(), display="block" if display else "inline")
    except Exception:  # latex2mathml raises many unrelated types on bad input
        return None
    if _UNSAFE.search(markup):
        return None
    return markup


def math_html(latex: str, display: bool) -> str:
    """MathML, or the escaped LaTeX in a ``<code>`` when conversion fails."""
    markup = latex_to_mathml(latex, display)
    if markup is None:
        tag = "div" if display else "span"
        return f'<{tag} class="il-math-fallback"><code>{escape(latex)}</code></{tag}>'
    if display:
        return f'<div class="math il-math-display">{markup}</div>'
    return f'<span class="math il-math">{markup}</span>'


# Sphinx's html math renderer hooks (``app.add_html_math_renderer``): every
# ``$...$`` in the project, not only in notes, becomes MathML.


def visit_math_html(self: HTML5Translator, node: nodes.math) -> None:
    self.body.append(math_html(node.astext(), display=False))
    raise nodes.SkipNode


def visit_math_block_html(self: HTML5Translator, node: nodes.math_block) -> None:
    if node.get("number"):
        self.body.append(f'<span class="eqno">({escape(str(node["number"]))})</span>')
    self.body.append(math_html(node.astext(), display=True))
    raise nodes.SkipNode
