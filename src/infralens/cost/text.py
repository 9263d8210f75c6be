"""The cost report as readable tables (GiB, TFLOP).

Model and pipeline ids, format names and notes come from the project's ``costs/models.yaml``: each cell and
each line is printed through :func:`infralens.errors.printable_line`, so none can drive the terminal or start
a workflow command in a CI log, and the columns are measured on what is printed.
"""

from __future__ import annotations

from collections.abc import Callable

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


def _at(values: dict[str, int], key: str, show: Callable[[int], str]) -> str:
    """*values*[*key*] as *show* prints it, or a dash where the model has no such entry (a context beyond its positions)."""
    return show(values[key]) if key in values else "-"


def _giga(value: float) -> str:
    return f"{value / 1e9:.1f}"


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"


def _decoder_lines(report: CostReport) -> list[str]:
    """The decoders' KV cache, card fits, FLOPs and decode steps with their bandwidth bounds (none: no lines)."""
    decoders = [(m, m.decoder) for m in report.models if m.decoder is not None]
    if not decoders:
        return []
    contexts = list(dict.fromkeys(c for _, d in decoders for c in d.kv_bytes_per_request))
    out = ["", "Decoders: KV cache in bf16 (bytes per token; GiB per request at each context)"]
    rows = [
        [
            m.id,
            f"{d.layers}",
            f"{d.attention_heads}/{d.kv_heads}",
            f"{d.head_dim}",
            f"{m.kv_bytes_per_token:,}",
            *(_at(d.kv_bytes_per_request, c, gib) for c in contexts),
        ]
        for m, d in decoders
    ]
    out += _table(["model", "layers", "heads/kv", "head dim", "KV B/token", *(f"{c} tok" for c in contexts)], rows)
    cards = [fit.card_gib for fit in decoders[0][1].fits if fit.weight_format == decoders[0][1].fits[0].weight_format]
    out += ["", "Tokens of KV cache (bf16) that fit after the weights, per card (runtime overheads not subtracted)"]
    rows = [
        [m.id, fmt, *(f"{fit.tokens:,}" for fit in d.fits if fit.weight_format == fmt)]
        for m, d in decoders
        for fmt in dict.fromkeys(f.weight_format for f in d.fits)
    ]
    out += _table(["model", "weights", *(f"{card} GiB" for card in cards)], rows)
    out += ["", "FLOPs: prefill of N tokens (TFLOP) and decode of one token at a context (GFLOP)"]
    prompts = list(dict.fromkeys(n for _, d in decoders for n in d.prefill_flops))
    rows = [[m.id, *(_at(d.prefill_flops, n, tflop) for n in prompts), *(_at(d.decode_flops_per_token, c, _giga) for c in contexts)] for m, d in decoders]
    out += _table(["model", *(f"prefill {n}" for n in prompts), *(f"decode @{c}" for c in contexts)], rows)
    memories = list(report.hbm)
    out += ["", "Decode step, bf16 weights and cache: GiB read and the bandwidth bound on tokens/s (an upper bound, not a speed)"]
    out += [f"  HBM bandwidth: {', '.join(f'{name} {rate / 1e12:g} TB/s' for name, rate in report.hbm.items())}"]
    rows = [
        [m.id, str(s.batch), str(s.context), gib(s.bytes_read), *(_rate(s.bound_tokens_per_s.get(name, 0.0)) for name in memories)]
        for m, d in decoders
        for s in d.decode
    ]
    out += _table(["model", "batch", "context", "GiB read", *memories], rows)
    return out


def render_text(report: CostReport) -> str:
    out = [f"What it costs (batch {report.batch}; counted on the meta device in {report.seconds:.1f} s)", ""]
    out.append("Weights by storage format (GiB)")
    rows = []
    for m in report.models:
        rows.append([m.id, f"{m.params:,}", *(gib(m.bytes[f]) for f in TABLE_FORMATS)])
    out += _table(["model", "params", *TABLE_FORMATS], rows)
    rows = []
    for m in report.models:
        attention = m.attention_flops
        activations = m.activations
        for key, flops in m.flops.items():
            share = attention.get(key, 0) / flops if flops else 0.0
            extra = " / ".join(f"{name.split(' ')[1]} {gib(v)}" for name, v in activations.items() if name.startswith(f"{key} "))
            rows.append([m.id, key, tflop(flops), f"{share:.0%}", gib(activations.get(key, 0)), extra])
    if rows:
        out += ["", "One forward (TFLOP, attention share) and peak activations (GiB, bf16)"]
        out += _table(["model", "at", "TFLOP", "attn", "act GiB", "VAE sliced / tiled GiB"], rows)
    out += _decoder_lines(report)
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
