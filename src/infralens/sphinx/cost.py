"""``infralens-cost``: a table and a ``cost-*.svg`` figure from ``reports/cost.json`` on any page.

Usage (MyST)::

    ```{infralens-cost} weights
    :models: flux1-dev-transformer, t5-xxl-encoder
    ```

Kinds: ``weights`` (``:models:``), ``flops`` and ``vae`` (``:model:``), ``offload`` and ``fbc`` (``:pipeline:``),
``generation`` (``:pipelines:``). The report is read once per build. The build never computes costs (that
would build upstream models from ``costs/models.yaml`` inside the site build): when the report no longer
matches the catalog or the installed versions, or the catalog cannot be read, the committed numbers are drawn
and a warning says to run ``make cost``. The figure is a node of its own, written by the HTML visitor into
``_images/`` and shown with an ``<img>``, so lab-page policies that refuse images from outside a lab's folder
do not apply to it.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from infralens.hashing import sha256_text
from infralens.sphinx.catalog import catalog_for
from infralens.sphinx.warnings import Subtype, warn

if TYPE_CHECKING:
    from sphinx.util.typing import OptionSpec

    from infralens.reports import CostReport

GIB = 2**30
TERA = 1e12
_CACHE: dict[str, CostReport] = {}
_FORMATS = ("fp32", "bf16", "fp8-layerwise", "int8-torchao", "nf4-bnb", "gguf-q8_0", "gguf-q4_k")


class cost_figure(nodes.General, nodes.Element):
    """An SVG figure: ``svg`` holds the text, ``name`` the file name (``cost-<kind>-<hash>.svg``)."""


def visit_cost_figure_html(self: Any, node: cost_figure) -> None:
    images = Path(self.builder.outdir) / "_images"
    images.mkdir(parents=True, exist_ok=True)
    target = images / node["name"]
    if not target.is_file() or target.read_text("utf-8") != node["svg"]:
        target.write_text(node["svg"], "utf-8")
    source = posixpath.relpath(f"_images/{node['name']}", posixpath.dirname(self.builder.current_docname) or ".")
    alt = self.encode(node["alt"])
    self.body.append(f'<figure class="il-cost-figure"><img src="{self.encode(source)}" alt="{alt}" loading="lazy"/><figcaption>{alt}</figcaption></figure>\n')
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
    key = str(path)
    if key in _CACHE:
        return _CACHE[key]
    from infralens.reports import CostReportError, load_cost_report

    try:
        report = load_cost_report(path)
    except CostReportError as error:
        warn(f"cannot draw cost figures: {error} (run `make cost`)", Subtype.REPORT, directive.get_location())
        return None
    why = _staleness(report, settings.project_root / "costs" / "models.yaml")
    if why:
        warn(f"{path} {why}: drawing its committed numbers (the site build never computes costs); run `make cost` and commit the report", Subtype.REPORT)
    _CACHE[key] = report
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


def _gib(value: float) -> str:
    return f"{value / GIB:.2f} GiB"


def _tflop(value: float) -> str:
    return f"{value / TERA:.2f} TFLOP" if value >= TERA / 100 else f"{value / TERA:.4f} TFLOP"


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


class CostDirective(SphinxDirective):
    """``infralens-cost KIND``: the table and figure of one view of the cost report."""

    required_arguments = 1
    option_spec: ClassVar[OptionSpec] = {
        "models": directives.unchanged,
        "model": directives.unchanged,
        "pipeline": directives.unchanged,
        "pipelines": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        from infralens.sphinx import cost_figures

        kind = self.arguments[0].strip()
        if kind not in cost_figures.FIGURES:
            warn(f"infralens-cost: unknown figure {kind!r} (one of {', '.join(cost_figures.FIGURES)})", Subtype.REPORT, self.get_location())
            return []
        report = _report(self)
        if report is None:
            return []
        self.env.note_dependency(str(catalog_for(self.env).settings.reports_dir / "cost.json"))
        try:
            table, svg, alt = self._draw(kind, report)
        except (KeyError, StopIteration, ValueError) as error:
            warn(f"infralens-cost {kind}: the report has no such entry ({error}); check the options or run `make cost`", Subtype.REPORT, self.get_location())
            return []
        figure = cost_figure(svg=svg, name=f"cost-{kind}-{sha256_text(svg)[:12]}.svg", alt=alt)
        note = nodes.paragraph(
            text=f"From reports/cost.json (infralens cost, counted on torch's meta device; batch {report.batch}). Peak memory on CUDA was not measured for this report."
            if report.cuda.startswith("not measured")
            else f"From reports/cost.json (infralens cost; batch {report.batch}). {report.cuda}.",
            classes=["il-cost-source"],
        )
        return [table, figure, note]

    def _draw(self, kind: str, report: CostReport) -> tuple[nodes.table, str, str]:
        from infralens.sphinx import cost_figures as figures

        if kind == "weights":
            models = _split(self.options.get("models", ""))
            rows = []
            for model_id in models:
                record = report.model(model_id)
                if record is None:
                    raise KeyError(model_id)
                rows.append([model_id, f"{record.params:,}", *(_gib(record.bytes[f]) for f in _FORMATS)])
            return (
                _table(["model", "parameters", *_FORMATS], rows),
                figures.weights_svg(report, models),
                f"Weights of {', '.join(models)} by storage format against 24, 48 and 80 GiB GPUs",
            )
        if kind in ("flops", "vae"):
            model_id = self.options.get("model", "").strip()
            record = report.model(model_id)
            if record is None:
                raise KeyError(model_id)
            attention, acts = record.attention_flops, record.activations
            if kind == "flops":
                rows = [[k, _tflop(v), _tflop(attention[k]), f"{attention[k] / v:.0%}", _gib(acts[k])] for k, v in record.flops.items()]
                header = ["at", "one forward", "attention", "attention share", "peak activations"]
                return _table(header, rows), figures.flops_svg(report, model_id), f"FLOPs of one {model_id} forward by resolution, attention share on top"
            rows = [[k, _tflop(v), _gib(acts[k]), _gib(acts[f"{k} sliced"]), _gib(acts[f"{k} tiled"])] for k, v in record.flops.items()]
            header = ["image", "decode", "peak activations", "enable_slicing()", "enable_tiling()"]
            return _table(header, rows), figures.vae_svg(report, model_id), f"Peak activations of one {model_id} decode, plain and tiled"
        if kind in ("offload", "fbc"):
            pipeline = self.options.get("pipeline", "").strip()
            if kind == "offload":
                record_o = next(o for o in report.offload if o.pipeline == pipeline)
                rows = [[m.mode, _gib(m.h2d_per_step), _gib(m.d2h_per_step), str(m.transfers_per_step), _gib(m.peak_resident_bytes)] for m in record_o.modes]
                header = ["mode", "host → GPU per step", "GPU → host per step", "copies per step", "weights resident at peak"]
                return _table(header, rows), figures.offload_svg(report, pipeline), f"Bytes moved per denoising step of {pipeline} by offload mode"
            caches = [c for c in report.first_block_cache if c.pipeline == pipeline]
            if not caches:
                raise KeyError(pipeline)
            fractions = list(caches[0].saved_fraction)
            rows = [[c.resolution, _tflop(c.always_flops), _tflop(c.skippable_flops), *(f"{v:.0%}" for v in c.saved_fraction.values())] for c in caches]
            header = ["at", "always runs", "skippable", *(f"saved at {f}" for f in fractions)]
            return _table(header, rows), figures.fbc_svg(report, pipeline), f"What First Block Cache saves on {pipeline} by the fraction of steps skipped"
        pipelines = _split(self.options.get("pipelines", ""))
        rows = []
        for pipeline in pipelines:
            record_p = report.pipeline(pipeline)
            if record_p is None:
                raise KeyError(pipeline)
            for r in record_p.resolutions:
                rows.append(
                    [
                        pipeline,
                        r.resolution,
                        str(record_p.steps),
                        str(r.passes),
                        _tflop(r.step_flops),
                        _tflop(r.generation_flops),
                        _tflop(r.generation_flops_one_pass),
                    ]
                )
        header = ["pipeline", "at", "steps", "passes a step", "one forward", "one image", "one image, one pass a step"]
        return _table(header, rows), figures.generation_svg(report, pipelines), f"FLOPs of one image for {', '.join(pipelines)}"
