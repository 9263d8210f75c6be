"""The cost report as readable tables (GiB, TFLOP).

Model and pipeline ids, format names and notes come from the project's ``costs/models.yaml``: each cell and
each line is printed through :func:`infralens.errors.printable_line`, so none can drive the terminal or start
a workflow command in a CI log, and the columns are measured on what is printed.
"""

from __future__ import annotations

from infralens.errors import printable_line
from infralens.reports import CostReport

GIB = 2**30
TERA = 1e12
FIT_FORMATS = ("bf16", "fp8-layerwise", "int8-torchao", "gguf-q8_0", "nf4-bnb", "nf4-bnb-dq", "gguf-q4_k")
TABLE_FORMATS = ("fp32", "bf16", "fp8-layerwise", "int8-torchao", "nf4-bnb", "nf4-bnb-dq", "gguf-q8_0", "gguf-q4_0", "gguf-q4_k")


def gib(value: float) -> str:
    return f"{value / GIB:.2f}"


def tflop(value: float) -> str:
    return f"{value / TERA:.2f}" if value >= TERA / 100 else f"{value / TERA:.4f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    header, rows = [printable_line(cell) for cell in header], [[printable_line(cell) for cell in row] for row in rows]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))) for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _fit_lines(report: CostReport, pipeline_id: str) -> list[str]:
    """The pipeline's weights and peak per storage format, and the smallest common card each fits (none: no lines)."""
    from infralens.cost.decisions import CARDS_GIB, DecisionError, largest_resolution, pipeline_peak, pipeline_weights, smallest_card

    try:
        at = largest_resolution(report, pipeline_id)
        rows = []
        for fmt in FIT_FORMATS:
            peak = pipeline_peak(report, pipeline_id, fmt, at)
            card = smallest_card(peak)
            rows.append([fmt, gib(pipeline_weights(report, pipeline_id, fmt)), gib(peak), f"{card} GiB" if card else "none"])
    except DecisionError:
        return []
    cards = "/".join(str(c) for c in CARDS_GIB)
    title = f"All components per format: weights, and the peak at {at} batch 1 with the largest stage's activations (GiB)"
    return ["", title, *_table(["format", "weights", "peak", f"smallest of {cards} GiB"], rows)]


def render_text(report: CostReport) -> str:
    out = [f"What it costs (batch {report.batch}; counted on the meta device in {report.seconds:.1f} s)", ""]
    out.append("Weights by storage format (GiB)")
    rows = []
    for m in report.models:
        rows.append([m.id, f"{m.params:,}", *(gib(m.bytes[f]) for f in TABLE_FORMATS)])
    out += _table(["model", "params", *TABLE_FORMATS], rows)
    out += ["", "One forward (TFLOP, attention share) and peak activations (GiB, bf16)"]
    rows = []
    for m in report.models:
        attention = m.attention_flops
        activations = m.activations
        for key, flops in m.flops.items():
            share = attention.get(key, 0) / flops if flops else 0.0
            extra = " / ".join(f"{name.split(' ')[1]} {gib(v)}" for name, v in activations.items() if name.startswith(f"{key} "))
            rows.append([m.id, key, tflop(flops), f"{share:.0%}", gib(activations.get(key, 0)), extra])
    out += _table(["model", "at", "TFLOP", "attn", "act GiB", "VAE sliced / tiled GiB"], rows)
    for pipe in report.pipelines:
        out += ["", f"Pipeline {pipe.id}: {pipe.steps} steps, {'CFG (2 passes a step)' if pipe.cfg else 'guidance-distilled (1 pass a step)'}"]
        rows = [
            [r.resolution, tflop(r.step_flops), tflop(r.text_flops), tflop(r.vae_flops), tflop(r.generation_flops), tflop(r.generation_flops_one_pass)]
            for r in pipe.resolutions
        ]
        out += _table(["at", "step TFLOP", "text TFLOP", "VAE TFLOP", "generation TFLOP", "one pass a step"], rows)
        out += _fit_lines(report, pipe.id)
    for off in report.offload:
        out += ["", f"Offload traffic per denoising step, {off.denoiser} in {off.weight_format} ({gib(off.weight_bytes)} GiB)"]
        rows = [[row.mode, gib(row.h2d_per_step), gib(row.d2h_per_step), str(row.transfers_per_step), gib(row.peak_resident_bytes)] for row in off.modes]
        out += _table(["mode", "host→GPU GiB", "GPU→host GiB", "copies", "peak resident GiB"], rows)
    if report.first_block_cache:
        out += ["", "First Block Cache: share of the denoiser's FLOPs saved when this fraction of steps hits the cache"]
        fractions = list(report.first_block_cache[0].saved_fraction)
        rows = [[f"{c.pipeline} {c.resolution}", *(f"{v:.0%}" for v in c.saved_fraction.values())] for c in report.first_block_cache]
        out += _table(["at", *fractions], rows)
    out += ["", f"CUDA: {report.cuda}"]
    if report.measured:
        rows = [
            [
                m.model,
                m.resolution,
                gib(m.predicted_weight_bytes),
                gib(m.weight_bytes),
                gib(m.predicted_activation_bytes),
                gib(m.activation_bytes),
                f"{m.activation_bytes / m.predicted_activation_bytes:.2f}×" if m.predicted_activation_bytes else "n/a",
            ]
            for m in report.measured
        ]
        out += _table(["model", "at", "weights GiB (predicted)", "measured", "act GiB (predicted)", "measured", "ratio"], rows)
    out += [f"note: {n}" for n in report.notes]
    return "\n".join(printable_line(line) for line in out) + "\n"
