"""What a note may contain once it reaches the public site, and removing everything else.

Notes and summaries arrive in pull requests, so their Markdown is not trusted. They may use
Markdown, math and harmless directives, and link only to ``http``, ``https``, ``mailto`` or
relative addresses. Refused outright, with an ``infralens.note`` warning and nothing of them
on the page: raw HTML, ``{eval-rst}``, directives that insert files, markup or page metadata
(:data:`REFUSED_DIRECTIVES`), the ``{download}`` role, images, links with any other scheme, and
markup nested deeper than :data:`MAX_DEPTH`.

:class:`NoteRenderer` refuses at parse time and leaves a :class:`refused` marker in the tree;
:func:`scrub` then turns the markers into messages and removes, as a second line of defence,
any node that carries a refused address or would copy a file into the site.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING
from urllib.parse import unquote

from docutils import nodes
from myst_parser.mdit_to_docutils.sphinx_ import SphinxRenderer
from sphinx import addnodes

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})
"""URL schemes a note may link to; an address without a scheme (relative) is allowed too."""

REFUSED_DIRECTIVES = frozenset({"eval-rst", "raw", "include", "literalinclude", "meta", "image", "figure"})
"""Directives that would run reStructuredText, insert raw markup or a file, or set page metadata."""

REFUSED_ROLES = frozenset({"download", "raw"})
"""Roles that would copy a file of the build machine into the site, or insert raw markup."""

MAX_DEPTH = 48
"""The deepest a note's node tree may be; deeper notes are refused before anything recurses on them."""

_SCHEME = re.compile(r"([a-z][a-z0-9+.\-]*):")
_INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]+")


class refused(nodes.Element):
    """Where a refused construct was; ``reason`` says what. Never reaches a page: :func:`scrub` removes it."""


def refused_scheme(url: str) -> str | None:
    """The scheme of ``url`` when it is not allowed, else ``None``.

    Decoded as a browser would read it: entities and percent-escapes resolved, whitespace and
    invisible characters dropped, case ignored.
    """
    text = url
    for _ in range(3):  # entities and escapes may be nested: &amp;#106; %256A
        decoded = unquote(html.unescape(text))
        if decoded == text:
            break
        text = decoded
    match = _SCHEME.match(_INVISIBLE.sub("", text).lower())
    if match is None or match.group(1) in ALLOWED_SCHEMES:
        return None
    return match.group(1)


def _link_refusal(scheme: str) -> str:
    allowed = ", ".join(sorted(ALLOWED_SCHEMES))
    return f"a link with the {scheme!r} scheme is refused (notes may link only to {allowed} or relative addresses); its text is kept"


class NoteRenderer(SphinxRenderer):
    """MyST's Sphinx renderer, refusing what notes may not contain (see the module docstring)."""

    def _refuse(self, reason: str) -> None:
        self.current_node += refused(reason=reason)

    def render_restructuredtext(self, token: SyntaxTreeNode) -> None:
        self._refuse("{eval-rst} is refused in notes (reStructuredText could add raw markup, links and files)")

    def run_directive(
        self,
        name: str,
        first_line: str,
        content: str,
        position: int,
        additional_options: dict[str, str] | None = None,
        *,
        block_text: str | None = None,
    ) -> list[nodes.Element]:
        if name.strip().lower() in REFUSED_DIRECTIVES:
            return [refused(reason=f"the {name!r} directive is refused in notes (it could insert markup, a file or page metadata)")]
        return super().run_directive(name, first_line, content, position, additional_options, block_text=block_text)

    def render_myst_role(self, token: SyntaxTreeNode) -> None:
        name = str(token.meta["name"])
        if name.strip().lower() in REFUSED_ROLES:
            self._refuse(f"the {{{name}}} role is refused in notes (it could copy a file of the build machine into the site)")
            return
        super().render_myst_role(token)

    def render_html_block(self, token: SyntaxTreeNode) -> None:
        self._refuse("raw HTML is refused in notes and left out of the page")

    def render_html_inline(self, token: SyntaxTreeNode) -> None:
        self.render_html_block(token)

    def render_image(self, token: SyntaxTreeNode) -> None:
        self._refuse("images are refused in notes (they could copy a file of the build machine into the site)")

    def render_link(self, token: SyntaxTreeNode) -> None:
        scheme = refused_scheme(str(token.attrGet("href") or ""))
        if scheme is None:
            super().render_link(token)
            return
        self._refuse(_link_refusal(scheme))
        if token.info != "auto":  # an autolink's text is the address itself
            self.render_children(token)


def accept_every_link(url: str) -> bool:
    """Let markdown-it turn every link into a link token, so :class:`NoteRenderer` refuses it by name."""
    return True


def scrub(root: nodes.Element) -> list[str]:
    """Remove refused markers and anything unsafe from ``root``; one reason for each thing removed."""
    if depth(root) > MAX_DEPTH:
        root.children = []
        return [f"the note nests markup more than {MAX_DEPTH} levels deep and is left out of the page"]
    reasons: list[str] = []
    for node in list(root.findall(nodes.Element)):
        reason = _reason(node)
        if reason is None:
            continue
        reasons.append(reason)
        if isinstance(node, nodes.reference | addnodes.download_reference):
            node.replace_self([nodes.Text(node.astext())] if node.astext() else [])
        elif node.parent is not None:
            node.parent.remove(node)
    return reasons


def _reason(node: nodes.Element) -> str | None:
    if isinstance(node, refused):
        return str(node["reason"])
    if isinstance(node, nodes.raw):
        return "raw markup is refused in notes and left out of the page"
    if isinstance(node, nodes.image | addnodes.download_reference):
        return "a file reference is refused in notes (it could copy a file of the build machine into the site)"
    if isinstance(node, nodes.meta):
        return "page metadata is refused in notes"
    for attribute in ("refuri", "uri"):
        if (scheme := refused_scheme(str(node.get(attribute) or ""))) is not None:
            return _link_refusal(scheme)
    return None


def depth(root: nodes.Node) -> int:
    """How deep ``root``'s tree is, counted without recursion."""
    deepest = 0
    stack: list[tuple[nodes.Node, int]] = [(root, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(node, nodes.Element) and level <= MAX_DEPTH:
            stack.extend((child, level + 1) for child in node.children)
    return deepest
