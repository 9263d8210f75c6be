"""Build the docutils tree of one annotated function from its FunctionView.

Layout: :func:`infralens.render.segments` cuts the function's lines into
segments. An annotated segment becomes a grid of two columns, code and notes,
so each note starts on the row of its first line (CSS puts the note under the
code on narrow screens). A folded stretch goes into ``<details>``.
"""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from docutils import nodes
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from infralens.render import FunctionView, NoteView, Segment, segments
from infralens.source import split_lines
from infralens.sphinx import nodes as il
from infralens.sphinx.badges import Badge, BadgeState, Reports
from infralens.sphinx.contents import DISTRIBUTION, TITLE
from infralens.sphinx.links import add_joined, doc_link
from infralens.sphinx.observed import observed_line


@lru_cache(maxsize=256)
def highlighted_lines(text: str, first: int, last: int) -> dict[int, str]:
    """Lines ``first``..``last`` of ``text`` as pygments HTML, keyed by real line number.

    A definition starts and ends on statement boundaries, so lexing just its
    lines (in one pass, so strings spanning lines highlight right) is exact.
    """
    lines = split_lines(text)[first - 1 : last]  # not str.splitlines: form feeds/U+2028 are not line ends
    markup = highlight("\n".join(lines) + "\n", PythonLexer(stripnl=False, ensurenl=True), HtmlFormatter(nowrap=True))
    return {first + offset: html for offset, html in enumerate(markup.split("\n")[: len(lines)])}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


@dataclass(frozen=True)
class RenderContext:
    """Everything the builder of one view needs besides the view itself."""

    prefix: str
    """Unique id prefix on the page for this embedding."""
    reports: Reports
    upstream_url: str | None
    fold_min: int
    parse_notes: Callable[[list[NoteView]], list[list[nodes.Node]]]
    """Every note's nodes, in the order given (parsed in one go)."""
    note_id: Callable[[NoteView], str]
    lab_docnames: dict[str, tuple[str, str]]
    """lab slug → (docname, title) for labs that have a page."""
    function_docname: str | None
    """The function's own page, linked from embeddings elsewhere; None on that page."""
    distribution: str = ""
    """The function's distribution (picks its releases in the history report)."""
    glossary_url: str | None = None
    """Relative URL of the page that says what the chips' words mean; every chip links to it."""


def build_function(view: FunctionView, context: RenderContext, title: str) -> il.infralens_function:
    root = il.infralens_function(classes=["infralens-function"], ids=[context.prefix], **{TITLE: title, DISTRIBUTION: view.source.distribution})
    root += _header(view, context, title)
    marked = view.marked_lines()
    code = highlighted_lines(view.source.text, view.first_line, view.last_line)
    bodies = {id(note): body for note, body in zip(view.notes, context.parse_notes(list(view.notes)), strict=True)}
    for segment in segments(view, context.fold_min):
        block = il.infralens_block(classes=["il-block", "il-annotated" if segment.notes else "il-plain"])
        block += _lines(code, segment, marked, context.prefix)
        if segment.notes:
            notes = il.infralens_block(classes=["il-notes"])
            for note in segment.notes:
                notes += _note(note, context, bodies[id(note)])
            block += notes
        if segment.folded:
            folded = il.infralens_fold(classes=["il-fold"])
            summary = il.infralens_fold_summary(classes=["il-fold-summary"])
            count = segment.last - segment.first + 1
            summary += nodes.Text(f"{count} unannotated lines ({segment.first}–{segment.last}) — show")
            folded += summary
            folded += block
            root += folded
        else:
            root += block
    return root


def _lines(code: dict[int, str], segment: Segment, marked: set[int], prefix: str) -> il.infralens_html:
    rows = []
    for number in range(segment.first, segment.last + 1):
        html = code.get(number, "")
        css = "il-line il-marked" if number in marked else "il-line"
        style = f' style="--il-hang:{_hang_of(html)}ch"'
        rows.append(
            f'<span class="{css}" id="{prefix}-L{number}"{style}><a class="il-ln" href="#{prefix}-L{number}" aria-hidden="true">{number}</a>'
            f"{_BREAK_AFTER.sub(_add_break, html)}</span>"
        )
    markup = '<div class="highlight il-code"><pre>' + "".join(rows) + "</pre></div>"
    return il.infralens_html(html=markup)


_TAG = re.compile(r"<[^>]*>")
_BREAK_AFTER = re.compile(r'(<span class="(?:p|o)">[.,(\[{]+</span>)')
"""Punctuation tokens after which a long line may break (pygments' punctuation and operator spans)."""


def _add_break(match: re.Match[str]) -> str:
    return match.group(1) + "<wbr>"


def _hang_of(html: str) -> int:
    """Where a highlighted line's continuations start: after its first open bracket, else 4 columns past its indent."""
    text = htmllib.unescape(_TAG.sub("", html))
    indent = len(text) - len(text.lstrip(" "))
    for column, char in enumerate(text):
        if char in "([{":
            return column + 1
        if char in "'\"#":  # a string or comment before any bracket: no bracket to follow
            break
    return indent + 4


def _note(note: NoteView, context: RenderContext, body: list[nodes.Node]) -> il.infralens_note:
    note_id = context.note_id(note)
    box = il.infralens_note(classes=["il-note"], ids=[note_id])
    box["html_attributes"] = {
        "data-first-line": str(note.first_line),
        "data-last-line": str(note.last_line),
        "data-line-anchor": f"{context.prefix}-L{note.first_line}",
        **(context.reports.history.note_attributes(context.distribution, note.step_id) if context.reports.history else {}),
    }
    lines = f"line {note.first_line}" if note.first_line == note.last_line else f"lines {note.first_line}–{note.last_line}"
    chips = "".join(_badge_html(chip, context.glossary_url) for chip in context.reports.step_status(note.step_id))
    if note.static and not context.reports.verify:  # with a report, its chip already says "read"
        chips += _badge_html(Badge("static", BadgeState.UNKNOWN, "read only", f"not traced: {note.static}"), context.glossary_url)
    if note.review:  # 'infralens fix' (or a maintainer) flagged it: the note may no longer match the code
        chips += _badge_html(Badge("review", BadgeState.WARN, "under review", f"this note waits for a re-read against the code: {note.review}"))
    foot = (  # after the text: a reader meets the note's words first, its line numbers and chips after them
        f'<div class="il-note-foot"><a class="il-permalink headerlink" href="#{note_id}" title="Permalink to this note">#</a>'
        f'<span class="il-note-lines">{lines}</span>{chips}</div>'
    )
    box.extend(body)
    box += il.infralens_html(html=foot, text=f"[{lines}]")
    if note.expect:
        claims = nodes.bullet_list(classes=["il-claims"])
        for expression in note.expect:
            item = nodes.list_item("", nodes.paragraph("", "", nodes.literal(expression, expression)))
            for device, observed in context.reports.observations(note.step_id, expression):
                if (line := observed_line(device, observed)) is not None:
                    item += line
            claims += item
        fold = il.infralens_fold(classes=["il-claims-fold"])  # folded: the claims would push the code apart
        summary = il.infralens_fold_summary(classes=["il-claims-title"])
        count = len(note.expect)
        summary += nodes.Text(f"Checked in the real frame: {count} claim{'s' if count != 1 else ''}")
        fold += summary
        fold += claims
        box += fold
    if note.static:
        box += nodes.paragraph("", f"Not traced: {note.static}", classes=["il-static"], support_smartquotes=False)
    return box


def _badge_html(badge: Badge, glossary_url: str | None = None) -> str:
    """A chip: its word, and its reason shown on hover, on focus and on tap, with a link to what the word means."""
    more = f' <a class="il-badge-glossary" href="{escape(glossary_url)}">what this means</a>' if glossary_url else ""
    return (
        f'<span class="il-badge il-badge-{badge.state.value}" tabindex="0">{escape(badge.label)}'
        f'<span class="il-badge-reason" role="tooltip">{escape(badge.title)}{more}</span></span>'
    )


def _header(view: FunctionView, context: RenderContext, title: str) -> list[nodes.Node]:
    source = view.source
    url = context.upstream_url
    link = f' · <a class="il-upstream reference external" href="{escape(url)}">upstream at v{escape(source.version)} ↗</a>' if url else ""
    step_ids = [n.step_id for n in view.notes]
    annotation_ids = sorted({n.annotation_id for n in view.notes})
    badges = "".join(_badge_html(b, context.glossary_url) for b in context.reports.function_badges(step_ids, annotation_ids))
    html = (
        '<div class="il-head">'
        f'<div class="il-title"><code>{escape(title)}</code> <span class="il-kind">{escape(view.definition.kind.value)}</span></div>'
        f'<div class="il-meta"><span class="il-dist">{escape(source.distribution)} {escape(source.version)}</span> · '
        f'<code class="il-path">{escape(source.relpath)}</code> lines {view.first_line}–{view.last_line}{link}</div>'
        f'<div class="il-badges">{badges}</div>'
        f"{context.reports.history.strip(source.distribution, annotation_ids, None) if context.reports.history else ''}</div>"
    )
    text = f"{title} — {source.distribution} {source.version} {source.relpath}:{view.first_line}-{view.last_line}"
    parts: list[nodes.Node] = [il.infralens_html(html=html, text=text)]
    links = [
        doc_link(docname, f"← {lab_title}", css="il-lab-link")
        for docname, lab_title in (context.lab_docnames[lab] for lab in sorted({n.lab for n in view.notes if n.lab}) if lab in context.lab_docnames)
    ]
    if context.function_docname:
        links.append(doc_link(context.function_docname, "open in the source browser →", css="il-page-link"))
    if links:
        parts.append(add_joined(nodes.paragraph(classes=["il-links"]), links))
    return parts
