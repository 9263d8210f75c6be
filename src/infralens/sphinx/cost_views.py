"""What each ``{infralens-cost}`` kind shows: tables, sentences and a figure, worked out from the cost report (no docutils).

:mod:`.cost` turns a :class:`View` into nodes. Every figure and table comes from ``reports/cost.json`` through
:mod:`infralens.cost` (the pipeline totals, card fits and bus times of ``infralens.cost.decisions``); which
models form a pipeline is the catalog's content, never named here. The decoder views (``kv``, ``decode``) show a
language model's ``decoder`` record as ``infralens cost`` wrote it; a report written before those records is a
KeyError that the directive turns into a warning naming ``make cost``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from infralens.cost import CARDS_GIB, LINKS, components, format_rule, largest_resolution, offload_images, pipeline_peak, pipeline_weights, stage_activations
from infralens.sphinx import cost_figures as figures

if TYPE_CHECKING:
    from infralens.reports import CostReport, DecoderCostRecord, ModelCostRecord

GIB = 2**30
TERA = 1e12
TABLE_FORMATS = ("fp32", "bf16", "fp8-layerwise", "int8-torchao", "nf4-bnb", "nf4-bnb-dq", "gguf-q8_0", "gguf-q4_k")
FIT_FORMATS = ("bf16", "fp8-layerwise", "int8-torchao", "gguf-q8_0", "nf4-bnb", "nf4-bnb-dq", "gguf-q4_k")
"""The formats a pipeline is weighed in, largest first (fp32 is left to the weights table)."""


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]


@dataclass
class View:
    """What one directive shows, in order: paragraphs (``str``), bullet lists (``list[str]``) and tables, then the figure."""

    blocks: list[str | list[str] | Table] = field(default_factory=list)
    svg: str = ""
    alt: str = ""


def gib(value: float) -> str:
    return f"{value / GIB:.2f} GiB"


def tflop(value: float) -> str:
    return f"{value / TERA:.2f} TFLOP" if value >= TERA / 100 else f"{value / TERA:.4f} TFLOP"


def _model(report: CostReport, model_id: str) -> ModelCostRecord:
    record = report.model(model_id)
    if record is None:
        raise KeyError(model_id)
    return record


def format_notes(report: CostReport, formats: tuple[str, ...], models: list[str]) -> list[str]:
    """One line per format: what it assumes; for fp8 layerwise, the share of each model's parameters it leaves in bf16."""
    lines = []
    for fmt in formats:
        line = f"{fmt}: {format_rule(fmt)}"
        if fmt == "fp8-layerwise":  # a parameter takes 1 byte cast, 2 bytes kept: the bytes above the count are the kept ones
            kept = [f"{m} {(_model(report, m).bytes[fmt] - _model(report, m).params) / _model(report, m).params:.1%}" for m in models]
            line += f" (parameters left in bf16: {', '.join(kept)})"
        lines.append(line + ".")
    return [*lines, "Every format keeps in bf16 what its rule does not quantize (biases, norms, embeddings, and for most, convolutions)."]


def weights_view(report: CostReport, models: list[str]) -> View:
    rows = [[m, f"{_model(report, m).params:,}", *(gib(_model(report, m).bytes[f]) for f in TABLE_FORMATS)] for m in models]
    return View(
        [Table(["model", "parameters", *TABLE_FORMATS], rows)],
        figures.weights_svg(report, models, CARDS_GIB),
        f"Weights of {', '.join(models)} by storage format on a log scale, against {', '.join(f'{c}' for c in CARDS_GIB)} GiB cards",
    )


def _fits_sentence(report: CostReport, pipeline_id: str, resolution: str) -> str:
    weights = pipeline_weights(report, pipeline_id, "bf16")
    peak = pipeline_peak(report, pipeline_id, "bf16", resolution)
    fit = [c for c in CARDS_GIB if peak <= c * GIB]
    short = [c for c in CARDS_GIB if peak > c * GIB]
    verdict = (
        f"it fits a {fit[0]} GiB card" + (f" but not a {short[-1]} GiB one" if short else "")
        if fit
        else f"it fits none of the {', '.join(str(c) for c in CARDS_GIB)} GiB cards"
    )
    return f"In bf16 its weights take {gib(weights)} and its peak at {resolution} is {gib(peak)}: {verdict}."


def fit_view(report: CostReport, pipelines: list[str], resolution: str = "") -> View:
    """Per pipeline: its components, the bf16 verdict, then per format the weights, the peak and a yes/no per card."""
    blocks: list[str | list[str] | Table] = []
    panels = []
    for pipeline_id in pipelines:
        at = resolution or largest_resolution(report, pipeline_id)
        parts = components(report, pipeline_id)
        named = "; ".join(f"{role} {model}" for role, model in parts)
        blocks.append(f"Pipeline {pipeline_id} ({named}). {_fits_sentence(report, pipeline_id, at)}")
        rows, bars = [], []
        stages = stage_activations(report, pipeline_id, at)
        for fmt in FIT_FORMATS:
            peak = pipeline_peak(report, pipeline_id, fmt, at)
            rows.append([fmt, gib(pipeline_weights(report, pipeline_id, fmt)), gib(peak), *("yes" if peak <= c * GIB else "no" for c in CARDS_GIB)])
            sizes = {role: 0.0 for role in ("denoiser", "text encoder", "VAE")}
            for role, model in parts:
                sizes[role] += _model(report, model).bytes[fmt] / GIB
            bars.append((fmt, (sizes["denoiser"], sizes["text encoder"], sizes["VAE"], max(stages.values()) / GIB)))
        blocks.append(Table(["format", "weights, all components", f"peak at {at}", *(f"fits {c} GiB" for c in CARDS_GIB)], rows))
        panels.append((f"{pipeline_id} at {at}, batch 1", bars))
    blocks.append(
        "What a total includes: every component's weights in the row's format, all on the GPU at once; the peak adds the live "
        "activations of the largest single forward at that size, batch 1 (the denoiser's holds both halves of classifier-free "
        "guidance; the VAE decode is usually the largest). Counted on torch's meta device: the CUDA context, the allocator's reserve "
        "and the kernels' own workspace are not in it, and an H200 measured up to 1.6× the counted peak for a VAE decode "
        "(reports/cost-cuda.json). 'yes' means the peak is at most the card's size."
    )
    models = list(dict.fromkeys(model for p in pipelines for _, model in components(report, p)))
    blocks += ["What each format assumes:", format_notes(report, TABLE_FORMATS, models)]
    alt = f"Pipeline totals of {', '.join(pipelines)} per storage format against {', '.join(str(c) for c in CARDS_GIB)} GiB cards"
    return View(blocks, figures.fit_svg(panels, CARDS_GIB), alt)


def offload_view(report: CostReport, pipeline_id: str) -> View:
    record = next(o for o in report.offload if o.pipeline == pipeline_id)
    images = {m.mode: m for m in offload_images(report, pipeline_id)}
    step_rows = [[m.mode, gib(m.h2d_per_step), gib(m.d2h_per_step), str(m.transfers_per_step), gib(m.peak_resident_bytes)] for m in record.modes]
    image_rows = [
        [m.mode, gib(images[m.mode].h2d_per_image), gib(images[m.mode].d2h_per_image), *(f"{images[m.mode].seconds(link):.2f} s" for link in LINKS)]
        for m in record.modes
    ]
    links = "; ".join(f"{link.name}: {link.gb_per_s:g} GB/s assumed ({link.source})" for link in LINKS)
    blocks: list[str | list[str] | Table] = [
        Table(["mode", "host → GPU per step", "GPU → host per step", "copies per step", "weights resident at peak"], step_rows),
        f"Per image ({pipeline_id}: {next(p.steps for p in report.pipelines if p.id == pipeline_id)} steps). Model offload moves every component "
        "in once and back once; the other modes are applied to the denoiser and move it every step (the text encoders and the VAE "
        "add their own bytes once if they are offloaded too). The time is both directions one after the other, as the hooks copy "
        "them: what a blocking copy adds to the image, and what a stream has to hide behind compute.",
        Table(["mode", "host → GPU per image", "GPU → host per image", *(f"bus time at {link.name}" for link in LINKS)], image_rows),
        f"Link rates (GB = 10⁹ bytes; the tables give GiB = 2³⁰ bytes): {links}. Copies from pageable host memory are slower.",
    ]
    modes = [
        (
            m.mode,
            m.h2d_per_step / GIB,
            m.d2h_per_step / GIB,
            images[m.mode].h2d_per_image / GIB,
            images[m.mode].d2h_per_image / GIB,
            images[m.mode].seconds(LINKS[0]),
        )
        for m in record.modes
    ]
    title = f"{pipeline_id}: {record.denoiser} in {record.weight_format}"
    return View(blocks, figures.offload_svg(title, modes, LINKS[0].name), f"Bytes moved per denoising step and per image of {pipeline_id} by offload mode")


def flops_view(report: CostReport, model_id: str) -> View:
    record = _model(report, model_id)
    attention, acts = record.attention_flops, record.activations
    rows = [[k, tflop(v), tflop(attention[k]), f"{attention[k] / v:.0%}", gib(acts[k])] for k, v in record.flops.items()]
    table = Table(["at", "one forward", "attention", "attention share", "peak activations"], rows)
    return View([table], figures.flops_svg(report, model_id), f"FLOPs of one {model_id} forward by resolution, attention share on top")


def vae_view(report: CostReport, model_id: str) -> View:
    record = _model(report, model_id)
    acts = record.activations
    rows = [[k, tflop(v), gib(acts[k]), gib(acts[f"{k} sliced"]), gib(acts[f"{k} tiled"])] for k, v in record.flops.items()]
    table = Table(["image", "decode", "peak activations", "enable_slicing()", "enable_tiling()"], rows)
    return View([table], figures.vae_svg(report, model_id), f"Peak activations of one {model_id} decode, plain and tiled")


def fbc_view(report: CostReport, pipeline_id: str) -> View:
    caches = [c for c in report.first_block_cache if c.pipeline == pipeline_id]
    if not caches:
        raise KeyError(pipeline_id)
    fractions = list(caches[0].saved_fraction)
    rows = [[c.resolution, tflop(c.always_flops), tflop(c.skippable_flops), *(f"{v:.0%}" for v in c.saved_fraction.values())] for c in caches]
    table = Table(["at", "always runs", "skippable", *(f"saved at {f}" for f in fractions)], rows)
    return View([table], figures.fbc_svg(report, pipeline_id), f"What First Block Cache saves on {pipeline_id} by the fraction of steps skipped")


def generation_view(report: CostReport, pipelines: list[str]) -> View:
    rows = []
    for pipeline_id in pipelines:
        record = report.pipeline(pipeline_id)
        if record is None:
            raise KeyError(pipeline_id)
        for r in record.resolutions:
            rows.append(
                [
                    pipeline_id,
                    r.resolution,
                    str(record.steps),
                    str(r.passes),
                    tflop(r.step_flops),
                    tflop(r.generation_flops),
                    tflop(r.generation_flops_one_pass),
                ]
            )
    table = Table(["pipeline", "at", "steps", "passes a step", "one forward", "one image", "one image, one pass a step"], rows)
    return View([table], figures.generation_svg(report, pipelines), f"FLOPs of one image for {', '.join(pipelines)} (log scale)")


# Decoder-only language models (``models[id].decoder``): the KV cache and a decode step.


def _decoder(report: CostReport, model_id: str) -> tuple[ModelCostRecord, DecoderCostRecord]:
    """The model and its decoder record; a clear KeyError when the report predates the decoder figures."""
    record = _model(report, model_id)
    if record.decoder is None or record.kv_bytes_per_token is None:
        raise KeyError(f"{model_id} has no decoder figures in the report")
    return record, record.decoder


def _union(keys: list[list[str]]) -> list[str]:
    """Keys in the order first met, sorted numerically (contexts and prompt lengths are written as numbers)."""
    return sorted(dict.fromkeys(k for group in keys for k in group), key=int)


def kib(value: float) -> str:
    return f"{value / 1024:g} KiB"


def thousands(tokens: int) -> str:
    return f"{tokens / 1000:,.1f}k" if tokens else "0 (weights do not fit)"


def _window(decoder: DecoderCostRecord) -> str:
    return f"{decoder.sliding_window} tokens on {decoder.sliding_layers} of {decoder.layers} layers" if decoder.sliding_layers else "none"


def kv_view(report: CostReport, models: list[str]) -> View:
    """Per model: the KV cache per token and per request (bf16), then the tokens of cache that fit after the weights."""
    records = [_decoder(report, m) for m in models]
    contexts = _union([list(d.kv_bytes_per_request) for _, d in records])
    rows = [
        [
            m.id,
            f"{d.layers} × {d.kv_heads} × {d.head_dim}",
            f"{m.kv_bytes_per_token or 0:,} B ({kib(m.kv_bytes_per_token or 0)})",  # set: _decoder refuses a record without it
            _window(d),
            *(gib(d.kv_bytes_per_request[c]) if c in d.kv_bytes_per_request else "beyond its context" for c in contexts),
        ]
        for m, d in records
    ]
    shape = Table(
        ["model", "layers × KV heads × head dim", "KV per token (bf16)", "sliding window", *(f"one request at {int(c):,} tokens" for c in contexts)], rows
    )
    cards = sorted({f.card_gib for _, d in records for f in d.fits})
    fit_rows = []
    for m, d in records:
        by_format: dict[str, dict[int, int]] = {}
        for fit in d.fits:
            by_format.setdefault(fit.weight_format, {})[fit.card_gib] = fit.tokens
        for fmt, tokens in by_format.items():
            fit_rows.append([m.id, fmt, gib(m.bytes[fmt]), *(thousands(tokens[c]) if c in tokens else "—" for c in cards)])
    fits = Table(["model", "weights", "weight bytes", *(f"{c} GiB card" for c in cards)], fit_rows)
    blocks: list[str | list[str] | Table] = [
        "Bytes of KV cache per token = 2 (a key and a value) × layers × KV heads × head dim × 2 bytes (bf16), read off each "
        "model's k_proj and v_proj; a request holds that much per token of its context (a sliding-window layer at most its window).",
        shape,
        "Tokens of KV cache (bf16, all requests together) that fit on a card after the weights in each format: (card − weights) ÷ "
        "KV bytes per token, rounded down. Nothing else is subtracted: the CUDA context, activations and the allocator's slack "
        "take some of it on a real server.",
        fits,
    ]
    bf16 = [(m.id, {f.card_gib: f.tokens for f in d.fits if f.weight_format == "bf16"}) for m, d in records]
    per_request = [(m.id, {int(c): v / GIB for c, v in d.kv_bytes_per_request.items()}) for m, d in records]
    on = ", ".join(str(c) for c in cards)
    alt = f"KV cache per request by context, and tokens of cache that fit after bf16 weights on {on} GiB cards, for {', '.join(models)}"
    return View(blocks, figures.kv_svg(per_request, bf16, cards), alt)


def _stated_bandwidths(report: CostReport) -> str:
    """The report's HBM bandwidths with where each figure comes from (the cost lens's stated sources)."""
    from infralens.cost import HBM

    if not report.hbm:
        raise KeyError("the report states no HBM bandwidths (cost.hbm)")
    sources = {memory.name: memory.source for memory in HBM}
    named = "; ".join(f"{name}: {rate / TERA:g} TB/s" + (f" ({sources[name]})" if name in sources else "") for name, rate in report.hbm.items())
    return f"Stated HBM bandwidths (TB = 10¹² bytes): {named}."


def decode_view(report: CostReport, models: list[str]) -> View:
    """Per model: prefill and decode FLOPs, then per decode step the bytes read and the bandwidth bound on tokens a second."""
    records = [_decoder(report, m) for m in models]
    prompts = _union([list(d.prefill_flops) for _, d in records])
    contexts = _union([list(d.decode_flops_per_token) for _, d in records])
    flop_rows = [
        [
            m.id,
            *(tflop(d.prefill_flops[p]) if p in d.prefill_flops else "—" for p in prompts),
            *(f"{d.decode_flops_per_token[c] / 1e9:.1f} GFLOP" if c in d.decode_flops_per_token else "—" for c in contexts),
        ]
        for m, d in records
    ]
    flops = Table(["model", *(f"prefill {int(p):,} tokens" for p in prompts), *(f"decode 1 token at {int(c):,}" for c in contexts)], flop_rows)
    memories = list(report.hbm)
    step_rows = []
    for m, d in records:
        for step in d.decode:
            missing = [name for name in memories if name not in step.bound_tokens_per_s]
            if missing:
                raise KeyError(f"{m.id} {step.batch}x{step.context} has no bound for {', '.join(missing)}")
            step_rows.append(
                [
                    m.id,
                    f"{step.batch} × {step.context:,}",
                    gib(step.bytes_read - step.kv_bytes),
                    gib(step.kv_bytes),
                    gib(step.bytes_read),
                    f"{step.flops / step.bytes_read:.2f}",
                    *(f"≤ {step.bound_tokens_per_s[name]:,.0f}" for name in memories),
                ]
            )
    steps = Table(
        ["model", "batch × context", "weights read", "KV read", "bytes read a step", "FLOPs per byte", *(f"tokens/s bound, {name}" for name in memories)],
        step_rows,
    )
    blocks: list[str | list[str] | Table] = [
        "FLOPs (a multiply-add is 2): a prefill runs every projection for each prompt token and causal attention over the prompt, "
        "with the output head on the last position only; a decode step runs the projections and the head for one token, plus "
        "attention over every cached key.",
        flops,
        "A decode step of a batch reads every weight once (bf16; of the input embedding table only the rows looked up) and each "
        "sequence's whole KV cache. Batch × bandwidth ÷ those bytes is an upper bound on decode tokens a second: no kernel "
        "can read faster than the memory delivers, real ones reach a fraction of it, and compute, launch overheads and the "
        "prefills sharing the GPU are not in it. Where the bytes exceed one card's memory the step is spread over several "
        "cards, and the bound grows with their combined bandwidth. FLOPs per byte read show how far a step is from being "
        "limited by compute.",
        steps,
        _stated_bandwidths(report),
    ]
    panels = [
        (m.id, [(f"{s.batch} × {s.context:,}", (s.bytes_read - s.kv_bytes) / GIB, s.kv_bytes / GIB, s.bound_tokens_per_s) for s in d.decode])
        for m, d in records
    ]
    alt = f"Bytes one decode step reads (weights and KV cache) and the bandwidth bound on tokens a second for {', '.join(models)}"
    return View(blocks, figures.decode_svg(panels, memories), alt)
