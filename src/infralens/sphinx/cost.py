"""``infralens-cost``: tables, sentences and an inline SVG figure from ``reports/cost.json`` on any page.

Usage (MyST)::

    ```{infralens-cost} fit
    :pipelines: flux1-dev
    ```

Kinds: ``fit`` (``:pipelines:``: each pipeline's total per storage format against card sizes), ``weights``
(``:models:``), ``flops`` and ``vae`` (``:model:``), ``offload`` (per step and per image, with bus times) and ``fbc``
(``:pipeline:``), ``generation`` (``:pipelines:``), and for decoder-only language models ``kv`` (KV cache per token and
per request, tokens that fit on a card) and ``decode`` (prefill and decode FLOPs, bytes a decode step reads, the
HBM-bandwidth bound on tokens a second), both with ``:models:``; :mod:`.cost_views` works each out. The report is read once per
build (kept in the build's :mod:`.state`, so a second build in the same process reads it again). The build never
computes costs and never imports torch (that would build upstream models from ``costs/models.yaml`` inside the
site build): when the report is missing or unreadable, no longer matches the catalog or the installed versions, or
the catalog cannot be read, a warning (an error under ``-W``) says to run ``make cost``; a stale report's committed
numbers are still drawn. The figure is a node of its own: the
HTML visitor writes its SVG into the page (text stays text, so it can be selected and found) after checking it
holds only drawing elements, no script, no event handler and no outside reference, with its ids made unique to it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from xml.etree import ElementTree

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from infralens.hashing import sha256_text
from infralens.sphinx.catalog import catalog_for
from infralens.sphinx.state import memo
from infralens.sphinx.warnings import Subtype, warn

if TYPE_CHECKING:
    from sphinx.util.typing import OptionSpec

    from infralens.reports import CostReport
    from infralens.sphinx.cost_views import View

REPORTS_MEMO = "cost-reports"
"""The build's memo table (:mod:`.state`) of cost reports read, by path."""
VIEWS_MEMO = "cost-views"
"""The build's memo table of views drawn, by report fingerprint, kind and options (pages share figures)."""
SVG_ELEMENTS = frozenset(
    {"svg", "g", "defs", "clipPath", "pattern", "path", "rect", "use", "text", "tspan", "title", "desc", "line", "polyline", "polygon", "circle", "ellipse"}
)
"""What a cost figure may hold (matplotlib's SVG output of bars, lines, markers and text)."""
_PROLOGUE = re.compile(r"\A\s*<\?xml[^>]*\?>\s*(<!DOCTYPE[^>]*>\s*)?", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_STYLE = re.compile(r'<defs>\s*<style type="text/css">\*\{stroke-linejoin: round; stroke-linecap: butt\}</style>\s*</defs>\s*')
"""matplotlib's one style sheet: it would apply to the whole page, so its two (inherited) properties go on the root instead."""
_OUTSIDE = re.compile(r"url\(\s*['\"]?(?!#)", re.I)
_ID = re.compile(r'\sid="([^"]*)"')
_REFERENCE = re.compile(r'url\(#([^)]*)\)|href="#([^"]*)"')


class UnsafeFigure(ValueError):
    """A figure's SVG holds something other than drawing elements and text."""


def inline_svg(svg: str, prefix: str) -> str:
    """*svg* (matplotlib's output) ready to sit inside an HTML page: no XML prologue or metadata, ids kept only where
    something refers to them and prefixed with *prefix*, scaled to the column. Raises :class:`UnsafeFigure` when
    it holds an element outside :data:`SVG_ELEMENTS`, an ``on*`` attribute, or a reference that is not to itself."""
    body = _STYLE.sub("", _METADATA.sub("", _PROLOGUE.sub("", svg, count=1)), count=1)
    if _OUTSIDE.search(body):
        raise UnsafeFigure("a url() that is not a reference inside the figure")
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as error:
        raise UnsafeFigure(f"not well-formed SVG: {error}") from None
    for element in root.iter():
        tag = element.tag.rpartition("}")[2]
        if tag not in SVG_ELEMENTS:
            raise UnsafeFigure(f"element <{tag}> is not drawing")
        for name, value in element.attrib.items():
            local = name.rpartition("}")[2].lower()
            if local.startswith("on") or (local == "href" and not value.startswith("#")):
                raise UnsafeFigure(f"attribute {local}={value[:40]!r} on <{tag}>")
    referenced = {a or b for a, b in _REFERENCE.findall(body)}
    body = _ID.sub(lambda m: f' id="{prefix}-{m.group(1)}"' if m.group(1) in referenced else "", body)
    body = _REFERENCE.sub(lambda m: f"url(#{prefix}-{m.group(1)})" if m.group(1) else f'href="#{prefix}-{m.group(2)}"', body)
    style = "max-width:100%;height:auto;stroke-linejoin:round;stroke-linecap:butt"
    return body.replace("<svg ", f'<svg class="il-cost-svg" role="img" style="{style}" ', 1)


class cost_figure(nodes.General, nodes.Element):
    """An SVG figure: ``svg`` holds matplotlib's text, ``name`` its id (``cost-<kind>-<hash>``), ``alt`` its caption."""


def visit_cost_figure_html(self: Any, node: cost_figure) -> None:
    caption = self.encode(node["alt"])
    try:
        drawing = inline_svg(node["svg"], node["name"])
    except UnsafeFigure as error:
        warn(f"infralens-cost: figure {node['name']} left out: {error}", Subtype.REPORT, (self.builder.current_docname, 0))
        raise nodes.SkipNode from None
    self.body.append(f'<figure class="il-cost-figure" aria-label="{caption}">{drawing}<figcaption>{caption}</figcaption></figure>\n')
    raise nodes.SkipNode


def skip_cost_figure(self: Any, node: cost_figure) -> None:
    raise nodes.SkipNode


COST_VISITORS = {
    "html": (visit_cost_figure_html, None),
    "latex": (skip_cost_figure, None),
    "text": (skip_cost_figure, None),
    "man": (skip_cost_figure, None),
    "texinfo": (skip_cost_figure, None),
}


def _report(directive: SphinxDirective) -> CostReport | None:
    """The committed ``reports/cost.json``, read once per build; a warning naming ``make cost`` when it is stale."""
    settings = catalog_for(directive.env).settings
    path = settings.reports_dir / "cost.json"
    reports = memo(directive.env, REPORTS_MEMO)
    key = str(path)
    if key in reports:
        return reports[key]
    from infralens.reports import CostReportError, load_cost_report

    try:
        report = load_cost_report(path)
    except CostReportError as error:
        warn(f"cannot draw cost figures: {error} (run `make cost`)", Subtype.REPORT, directive.get_location())
        return None
    why = _staleness(report, settings.project_root / "costs" / "models.yaml")
    if why:
        warn(f"{path} {why}: drawing its committed numbers (the site build never computes costs); run `make cost` and commit the report", Subtype.REPORT)
    reports[key] = report
    return report


def _staleness(report: CostReport, catalog_path: Path) -> str:
    """Why *report* may not match the catalog and the installed versions ("" when it matches).

    Only reads: the catalog as data and the installed versions' metadata. No model is built and no upstream or
    catalogued module is imported.
    """
    if not catalog_path.is_file():
        return ""
    from infralens.cost import is_current
    from infralens.errors import InfralensError

    try:
        return "" if is_current(report, catalog_path) else "is stale (costs/models.yaml or the installed versions changed)"
    except InfralensError as error:
        return f"cannot be checked against the catalog ({error})"


def _nodes(view: View) -> list[nodes.Node]:
    """The view's paragraphs, bullet lists and tables as docutils nodes (text only: every value is escaped on output)."""
    from infralens.sphinx.cost_views import Table

    found: list[nodes.Node] = []
    for block in view.blocks:
        if isinstance(block, Table):
            found.append(_table(block.header, block.rows))
        elif isinstance(block, list):
            items = nodes.bullet_list(classes=["il-cost-notes"])
            for line in block:
                items += nodes.list_item("", nodes.paragraph(text=line))
            found.append(items)
        else:
            found.append(nodes.paragraph(text=block, classes=["il-cost-text"]))
    return found


def _table(header: list[str], rows: list[list[str]]) -> nodes.table:
    table = nodes.table(classes=["il-cost-table"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    head, body = nodes.thead(), nodes.tbody()
    for section, cells_list in ((head, [header]), (body, rows)):
        for cells in cells_list:
            row = nodes.row()
            for cell in cells:
                entry = nodes.entry()
                entry += nodes.paragraph(text=cell)
                row += entry
            section.append(row)
    group += head
    group += body
    return table


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


class CostDirective(SphinxDirective):
    """``infralens-cost KIND``: the tables and figure of one view of the cost report."""

    required_arguments = 1
    option_spec: ClassVar[OptionSpec] = {
        "models": directives.unchanged,
        "model": directives.unchanged,
        "pipeline": directives.unchanged,
        "pipelines": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        from infralens.cost import DecisionError
        from infralens.sphinx import cost_figures

        kind = self.arguments[0].strip()
        if kind not in cost_figures.FIGURES:
            warn(f"infralens-cost: unknown figure {kind!r} (one of {', '.join(cost_figures.FIGURES)})", Subtype.REPORT, self.get_location())
            return []
        report = _report(self)
        if report is None:
            return []
        self.env.note_dependency(str(catalog_for(self.env).settings.reports_dir / "cost.json"))
        key = (report.fingerprint, kind, tuple(sorted((name, str(value)) for name, value in self.options.items())))
        views = memo(self.env, VIEWS_MEMO)
        try:
            view = views[key] if key in views else views.setdefault(key, self._view(kind, report))
        except (KeyError, StopIteration, ValueError, DecisionError) as error:
            warn(f"infralens-cost {kind}: the report has no such entry ({error}); check the options or run `make cost`", Subtype.REPORT, self.get_location())
            return []
        figure = cost_figure(svg=view.svg, name=f"cost-{kind}-{sha256_text(view.svg)[:12]}", alt=view.alt)
        return [*_nodes(view), figure, nodes.paragraph(text=_source(report, kind), classes=["il-cost-source"])]

    def _view(self, kind: str, report: CostReport) -> View:
        from infralens.sphinx import cost_views as views

        if kind == "weights":
            return views.weights_view(report, _split(self.options.get("models", "")))
        if kind == "fit":
            return views.fit_view(report, _split(self.options.get("pipelines", "")))
        if kind in ("flops", "vae"):
            model_id = self.options.get("model", "").strip()
            return views.flops_view(report, model_id) if kind == "flops" else views.vae_view(report, model_id)
        if kind in ("offload", "fbc"):
            pipeline = self.options.get("pipeline", "").strip()
            return views.offload_view(report, pipeline) if kind == "offload" else views.fbc_view(report, pipeline)
        if kind in DECODER_KINDS:
            models = _split(self.options.get("models", ""))
            if not models:
                raise ValueError(f"{kind} needs :models: (decoder ids of costs/models.yaml)")
            return views.kv_view(report, models) if kind == "kv" else views.decode_view(report, models)
        return views.generation_view(report, _split(self.options.get("pipelines", "")))


DECODER_KINDS = ("kv", "decode")


def _source(report: CostReport, kind: str) -> str:
    """The line under a view: where its numbers come from (a decoder's are read off its shapes, no forward is run)."""
    if kind in DECODER_KINDS:
        return "From reports/cost.json (infralens cost: read off each model's module shapes on torch's meta device; no forward was run, nothing was timed)."
    if report.cuda.startswith("not measured"):
        return (
            f"From reports/cost.json (infralens cost, counted on torch's meta device; batch {report.batch}). "
            + "Peak memory on CUDA was not measured for this report."
        )
    return f"From reports/cost.json (infralens cost; batch {report.batch}). {report.cuda}."
