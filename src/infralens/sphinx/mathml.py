"""LaTeX → MathML at build time, so formulas need no script and no CDN.

What latex2mathml produces is not trusted: it copies the argument of ``\\text``, ``\\mbox`` and
others into ``<mtext>`` unescaped, and ``\\href`` or ``\\color`` arguments into attributes. So its
output is parsed again (:class:`_Sanitiser`) and written anew from an allow-list: MathML
presentation elements only (:data:`ELEMENTS`), the attributes in :data:`ATTRIBUTES` with plain
values, and every piece of text escaped. Anything else (another element, attribute or value, a
comment, a tag left open) and the formula is shown as its escaped LaTeX instead.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from html.parser import HTMLParser
from typing import TYPE_CHECKING

from docutils import nodes

if TYPE_CHECKING:
    from sphinx.writers.html5 import HTML5Translator

MATHML_NAMESPACE = "http://www.w3.org/1998/Math/MathML"
ELEMENTS = frozenset(
    [
        "math",
        "mrow",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "msub",
        "msup",
        "msubsup",
        "mfrac",
        "msqrt",
        "mroot",
        "mstyle",
        "merror",
        "mpadded",
        "mphantom",
        "menclose",
        "munder",
        "mover",
        "munderover",
        "mtable",
        "mtr",
        "mtd",
        "mmultiscripts",
        "mprescripts",
        "none",
    ]
)
"""MathML presentation elements (no ``semantics``/``annotation-xml``, no ``mglyph``/``malignmark``)."""
ATTRIBUTES = frozenset(
    [
        "display",
        "mathvariant",
        "stretchy",
        "fence",
        "separator",
        "lspace",
        "rspace",
        "form",
        "accent",
        "accentunder",
        "movablelimits",
        "largeop",
        "symmetric",
        "minsize",
        "maxsize",
        "linethickness",
        "columnalign",
        "rowalign",
        "columnspacing",
        "rowspacing",
        "columnlines",
        "rowlines",
        "frame",
        "width",
        "height",
        "depth",
        "voffset",
        "displaystyle",
        "scriptlevel",
        "notation",
        "align",
        "bevelled",
        "numalign",
        "denomalign",
        "mathsize",
        "mathcolor",
        "mathbackground",
        "linebreak",
    ]
)
"""Attributes kept (with a value matching :data:`_PLAIN_VALUE`), plus ``xmlns`` equal to :data:`MATHML_NAMESPACE`."""
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9 .,#%+-]{0,64}")


class _Refused(Exception):
    """The markup holds something outside the allow-list."""


class _Sanitiser(HTMLParser):
    """Rebuilds MathML from the allow-list; raises :class:`_Refused` at the first thing outside it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ELEMENTS or (tag == "math") != (not self.open and not self.out):
            raise _Refused(tag)
        kept = []
        for name, value in attrs:
            if name == "xmlns" and value == MATHML_NAMESPACE and tag == "math":
                kept.append(f' xmlns="{MATHML_NAMESPACE}"')
            elif name in ATTRIBUTES and value is not None and _PLAIN_VALUE.fullmatch(value):
                kept.append(f' {name}="{value}"')
            else:
                raise _Refused(name)
        self.out.append(f"<{tag}{''.join(kept)}>")
        self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            raise _Refused(tag)
        self.open.pop()
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.open:
            if data.strip():
                raise _Refused("text outside <math>")
            return
        self.out.append(escape(data, quote=False))

    def handle_comment(self, data: str) -> None:
        raise _Refused("comment")

    def handle_decl(self, decl: str) -> None:
        raise _Refused("declaration")

    def handle_pi(self, data: str) -> None:
        raise _Refused("processing instruction")

    def unknown_decl(self, data: str) -> None:
        raise _Refused("declaration")


def sanitise_mathml(markup: str) -> str | None:
    """``markup`` rebuilt from the MathML allow-list, or None when it holds anything outside it."""
    sanitiser = _Sanitiser()
    try:
        sanitiser.feed(markup)
        sanitiser.close()
    except _Refused:
        return None
    if sanitiser.open or not sanitiser.out or sanitiser.rawdata:
        return None
    return "".join(sanitiser.out)


@lru_cache(maxsize=4096)
def latex_to_mathml(latex: str, display: bool) -> str | None:
    """MathML for ``latex``; ``None`` when it cannot be converted safely."""
    from latex2mathml.converter import convert

    try:
        markup = convert(latex.strip(), display="block" if display else "inline")
    except Exception:  # latex2mathml raises many unrelated types on bad input
        return None
    return sanitise_mathml(markup)


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
