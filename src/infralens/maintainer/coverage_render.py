"""Draw a :class:`~.coverage.CoverageMap` as static HTML: an SVG icicle chart and a collapsible tree.

Everything is rendered at build time into the page: inline SVG (tooltips are SVG ``<title>``
elements) and nested ``<details>`` elements for the tree, with a small inline stylesheet. No
script, no CDN, nothing fetched by the browser.

Icicle layout: one chart per entry point (a root of the call tree), one row per call depth; a
box's width is proportional to the calls made in its subtree (its own calls plus everything it
called), so where the run spends its calls is where the picture is wide. Annotated functions are green, darker the more of their statements are
annotated; the rest are grey. Boxes narrower than a pixel and a half are not drawn.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

from infralens.maintainer.coverage import CallNode, CoverageMap, FunctionInfo
from infralens.maintainer.coverage_format import STAR, summary_line

WIDTH = 720
ROW = 22
MIN_BOX = 1.5
CHAR = 6.4
"""Approximate width of one label character at the chart's font size."""
OPEN_LEVELS = 2
"""Tree levels shown expanded when the page loads."""

STYLE = """
.infralens-coverage svg { width: 100%; height: auto; font: 11px ui-monospace, SFMono-Regular, Menlo, monospace; }
.infralens-coverage svg rect { stroke: #fff; stroke-width: 0.5; }
.infralens-coverage svg text { pointer-events: none; fill: #1b1b1b; }
.infralens-coverage .ilc-legend span { display: inline-block; width: 0.9em; height: 0.9em; margin: 0 0.3em 0 1em; vertical-align: middle; }
.infralens-coverage ul.ilc-tree, .infralens-coverage ul.ilc-tree ul { list-style: none; margin: 0; padding-left: 1.2em; }
.infralens-coverage ul.ilc-tree { padding-left: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.85em; }
.infralens-coverage summary { cursor: pointer; }
.infralens-coverage figure.ilc-chart { margin: 0.6em 0 1.2em 0; }
.infralens-coverage figure.ilc-chart figcaption { font-size: 0.85em; color: #666; margin-bottom: 0.2em; }
.infralens-coverage .ilc-leaf { padding-left: 1.05em; }
.infralens-coverage .ilc-calls { color: #777; }
.infralens-coverage .ilc-star { color: #1a7f37; font-weight: 600; }
.infralens-coverage .ilc-where { color: #999; font-size: 0.9em; }
"""

GREY = "#cfd3d7"


@dataclass(frozen=True)
class Box:
    """One drawn rectangle of the icicle chart."""

    x: float
    width: float
    depth: int
    node: CallNode


Links = Mapping[tuple[str, str, str], str]
"""``(distribution, file, qualname)`` → the URL of that function's annotated page."""


def render_html(coverage: CoverageMap, *, title: str | None = None, links: Links | None = None) -> str:
    """The whole block: summary, legend, icicle chart, collapsible tree, annotated-function table.

    With ``links``, each annotated function in the tree and the table links to its page.
    """
    links = links or {}
    parts = [f'<div class="infralens-coverage"><style>{STYLE}</style>']
    if title:
        parts.append(f"<p><strong>{html.escape(title)}</strong></p>")
    parts.append(f"<p>{html.escape(summary_line(coverage))}</p>")
    parts.append(
        '<p class="ilc-legend">'
        f'<span style="background:{fill_for(None)}"></span>not annotated'
        f'<span style="background:{_green(0.15)}"></span>annotated (few statements)'
        f'<span style="background:{_green(0.9)}"></span>annotated (most statements)'
        "</p>"
    )
    parts.append(
        "<p>Each chart is one entry point the scenario called. A row is a call depth; "
        "a box's width is the number of calls made in its subtree. "
        "Hover a box for the function, its file and line, and what is annotated.</p>"
    )
    parts.append(render_icicles(coverage))
    parts.append("<p>The call tree (children in the order they were first called; click to fold):</p>")
    parts.append(render_tree(coverage, links))
    parts.append(render_table(coverage, links))
    parts.append("</div>")
    return "\n".join(parts)


# ---------------------------------------------------------------------------
# Icicle
# ---------------------------------------------------------------------------


def layout(roots: tuple[CallNode, ...], width: float = WIDTH) -> list[Box]:
    """Boxes of an icicle chart of ``roots`` side by side, parents before children."""
    boxes: list[Box] = []
    total = sum(root.total_calls() for root in roots) or 1

    def place(nodes: tuple[CallNode, ...], x: float, scale: float, depth: int) -> None:
        for node in nodes:
            size = node.total_calls() * scale
            if size >= MIN_BOX:
                boxes.append(Box(x, size, depth, node))
                place(node.children, x, scale, depth + 1)
            x += size

    place(roots, 0.0, width / total, 0)
    return boxes


def render_icicles(coverage: CoverageMap, width: float = WIDTH) -> str:
    """One full-width chart per entry point (a root of the call tree), in the order they ran."""
    parts = []
    for root in coverage.roots:
        info = coverage.functions[root.function]
        below = root.total_calls() - root.calls
        caption = f"{_label(info)} — {root.calls} call{'s' if root.calls > 1 else ''}, {below} upstream call{'s' if below != 1 else ''} below it"
        parts.append(f'<figure class="ilc-chart"><figcaption>{html.escape(caption)}</figcaption>{render_icicle(coverage, (root,), width)}</figure>')
    return "\n".join(parts)


def render_icicle(coverage: CoverageMap, roots: tuple[CallNode, ...], width: float = WIDTH) -> str:
    """One SVG icicle chart of ``roots``."""
    boxes = layout(roots, width)
    depth = max((box.depth for box in boxes), default=0) + 1
    height = depth * ROW
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height}" role="img" aria-label="{html.escape(coverage.scenario)} call tree">']
    for box in boxes:
        info = coverage.functions[box.node.function]
        y = box.depth * ROW
        tooltip = html.escape(_tooltip(info, box.node))
        out.append(f'<g><title>{tooltip}</title><rect x="{box.x:.2f}" y="{y}" width="{box.width:.2f}" height="{ROW - 1}" fill="{fill_for(info)}"/>')
        label = _fit(_label(info), box.width)
        if label:
            out.append(f'<text x="{box.x + 3:.2f}" y="{y + ROW - 7}">{html.escape(label)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def fill_for(info: FunctionInfo | None) -> str:
    if info is None or info.mark is None:
        return GREY
    fraction = info.mark.annotated_statements / info.mark.statements if info.mark.statements else 1.0
    return _green(fraction)


def _green(fraction: float) -> str:
    lightness = 82 - 40 * max(0.0, min(1.0, fraction))
    return f"hsl(140, 55%, {lightness:.0f}%)"


def _label(info: FunctionInfo) -> str:
    star = f"{STAR} " if info.mark else ""
    return star + info.ref.qualname.replace(".<locals>", "")


def _fit(text: str, width: float) -> str:
    room = int((width - 6) / CHAR)
    if room >= len(text):
        return text
    if room < 4:
        return ""
    return text[: room - 1] + "…"


def _tooltip(info: FunctionInfo, node: CallNode) -> str:
    text = f"{info.ref.qualname} ×{node.calls} here ({info.calls} in all)\n{info.ref.file}:{info.ref.line}"
    if info.mark:
        text += f"\n{STAR} {info.mark.annotated_statements}/{info.mark.statements} statements annotated: {', '.join(info.mark.annotation_ids)}"
    return text


# ---------------------------------------------------------------------------
# Collapsible tree and table
# ---------------------------------------------------------------------------


def render_tree(coverage: CoverageMap, links: Links | None = None) -> str:
    out = ['<ul class="ilc-tree">']

    def item(node: CallNode, level: int) -> None:
        info = coverage.functions[node.function]
        line = _tree_line(info, node, links or {})
        if not node.children:
            out.append(f'<li class="ilc-leaf">{line}</li>')
            return
        opened = " open" if level < OPEN_LEVELS else ""
        out.append(f"<li><details{opened}><summary>{line}</summary><ul>")
        for child in node.children:
            item(child, level + 1)
        out.append("</ul></details></li>")

    for root in coverage.roots:
        item(root, 0)
    out.append("</ul>")
    return "".join(out)


def _name(info: FunctionInfo, links: Links) -> str:
    """The function's qualname, linked to its annotated page when there is one."""
    url = links.get((info.ref.distribution, info.ref.file, info.ref.qualname))
    name = html.escape(info.ref.qualname)
    return f'<a class="reference internal" href="{html.escape(url)}">{name}</a>' if url else name


def _tree_line(info: FunctionInfo, node: CallNode, links: Links) -> str:
    text = f'{_name(info, links)} <span class="ilc-calls">×{node.calls}</span>'
    if info.mark:
        mark = info.mark
        text += f' <span class="ilc-star">{STAR} {mark.annotated_statements}/{mark.statements} statements annotated</span>'
    return text + f' <span class="ilc-where">{html.escape(info.ref.file)}:{info.ref.line}</span>'


def render_table(coverage: CoverageMap, links: Links | None = None) -> str:
    if not coverage.annotated:
        return "<p>No annotated function ran in this scenario.</p>"
    rows = ["<table class='docutils'><thead><tr><th>annotated function</th><th>calls</th><th>statements annotated</th><th>annotations</th></tr></thead><tbody>"]
    for info in sorted(coverage.annotated, key=lambda f: f.ref.qualname):
        mark = info.mark
        if mark is None:  # not annotated (coverage.annotated holds marked functions only)
            continue
        rows.append(
            f"<tr><td><code>{_name(info, links or {})}</code></td><td>{info.calls}</td>"
            f"<td>{mark.annotated_statements}/{mark.statements}</td><td>{html.escape(', '.join(mark.annotation_ids))}</td></tr>"
        )
    rows.append("</tbody></table>")
    return "".join(rows)
