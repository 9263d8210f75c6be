"""The "What it costs" figures, drawn with matplotlib (Agg, offline) into SVG text from the cost report.

Text stays text (``svg.fonttype: none``, in DejaVu Sans, which matplotlib ships and a fresh Debian has), so a
reader can select and find every label; matplotlib escapes it. Small values stay readable: every bar carries its
figure, weights use a log axis, and the pipeline chart gives each pipeline its own panel and scale. The same
report gives the same bytes, build after build (a fixed ``svg.hashsalt``, no date).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from infralens.reports import CostReport

GIB = 2**30
TERA = 1e12
WEIGHT_FORMATS = ("fp32", "bf16", "fp8-layerwise", "int8-torchao", "nf4-bnb", "nf4-bnb-dq", "gguf-q8_0", "gguf-q4_k")
FIGURES = ("weights", "fit", "flops", "offload", "fbc", "vae", "generation", "kv", "decode")
FONT = "DejaVu Sans"
PARTS = ("denoiser", "text encoders", "VAE", "activations")


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    import matplotlib.pyplot as plt

    plt.close(figure)
    return buffer.getvalue()


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "infralens-cost"  # the same figure gives the same file, build after build
    plt.rcParams["svg.fonttype"] = "none"  # labels as <text>: selectable and searchable
    plt.rcParams["font.family"] = [FONT]
    return plt


def _plain_log(axis: Any) -> None:
    """A log axis whose ticks read 0.1, 1, 10 (plain text, not mathtext superscripts)."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))


def _label_bars(axes: Any, bars: Any, texts: list[str], horizontal: bool = True) -> None:
    for bar, text in zip(bars, texts, strict=True):
        if horizontal:
            axes.text(bar.get_x() + bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {text}", va="center", ha="left", fontsize=7)
        else:
            axes.text(bar.get_x() + bar.get_width() / 2, bar.get_y() + bar.get_height(), text, va="bottom", ha="center", fontsize=7)


def _cards(axes: Any, cards: tuple[int, ...], top: float) -> None:
    """Dashed lines at the card sizes that fall inside the axis (up to *top* GiB), labelled above the plot."""
    for card in cards:
        if card <= top:
            axes.axvline(card, color="0.35", linestyle="--", linewidth=0.8)
            axes.text(card, 1.0, f"{card} GiB", transform=axes.get_xaxis_transform(), ha="center", va="bottom", fontsize=7, color="0.25")


def weights_svg(report: CostReport, models: list[str], cards: tuple[int, ...]) -> str:
    """GiB of each model's weights per storage format on a log axis (so a 0.1 GiB VAE shows beside a 44 GiB transformer)."""
    plt = _pyplot()
    records = [r for r in (report.model(m) for m in models) if r is not None]
    count = max(1, len(records))
    figure, axes = plt.subplots(figsize=(7.5, 0.8 + 0.17 * len(WEIGHT_FORMATS) * count))
    height = 0.8 / count
    smallest = min((r.bytes[f] for r in records for f in WEIGHT_FORMATS if r.bytes.get(f)), default=GIB) / GIB
    for index, record in enumerate(records):
        ys = [position + index * height for position in range(len(WEIGHT_FORMATS))]
        values = [record.bytes.get(f, 0) / GIB for f in WEIGHT_FORMATS]
        bars = axes.barh(ys, values, height=height, label=record.id)
        _label_bars(axes, bars, [f"{v:.2f}" for v in values])
    axes.set_xscale("log")
    axes.set_xlim(smallest / 2, max(cards) * 1.6)
    _plain_log(axes.xaxis)
    axes.set_yticks([p + 0.4 - height / 2 for p in range(len(WEIGHT_FORMATS))], WEIGHT_FORMATS)
    axes.invert_yaxis()
    _cards(axes, cards, max(cards))
    axes.set_xlabel("weights (GiB, log scale)")
    axes.legend(fontsize=7, loc="lower right")
    return _svg(figure)


def fit_svg(panels: list[tuple[str, list[tuple[str, tuple[float, float, float, float]]]]], cards: tuple[int, ...]) -> str:
    """One panel per pipeline, each on its own scale: per format the weights of each part and the activation peak, stacked,
    against the card sizes. *panels*: (title, [(format, (denoiser, text encoders, VAE, activations) in GiB)])."""
    plt = _pyplot()
    rows = sum(len(bars) for _, bars in panels)
    figure, all_axes = plt.subplots(len(panels), 1, figsize=(7.5, 0.9 * len(panels) + 0.24 * rows), squeeze=False)
    colours = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d3d3d3")
    for axes, (title, bars) in zip((row[0] for row in all_axes), panels, strict=True):
        names = [name for name, _ in bars]
        left = [0.0] * len(bars)
        for part, colour in zip(range(4), colours, strict=True):
            widths = [parts[part] for _, parts in bars]
            axes.barh(names, widths, left=left, color=colour, label=PARTS[part], hatch="//" if part == 3 else None, edgecolor="0.5" if part == 3 else None)
            left = [a + b for a, b in zip(left, widths, strict=True)]
        for y, total in enumerate(left):
            axes.text(total, y, f" {total:.2f}", va="center", ha="left", fontsize=7)
        peak = max(left, default=1.0)
        top = max(peak, next((c for c in sorted(cards) if c >= peak), peak)) * 1.15
        axes.set_xlim(0, top)
        _cards(axes, cards, top)
        axes.invert_yaxis()
        axes.set_title(title, fontsize=9, loc="left", pad=12)
        axes.set_xlabel("GiB on the GPU (this panel's own scale)", fontsize=8)
        axes.tick_params(labelsize=8)
    all_axes[0][0].legend(fontsize=7, loc="lower right")
    figure.tight_layout()
    return _svg(figure)


def flops_svg(report: CostReport, model_id: str) -> str:
    """TFLOP of one forward at each resolution, attention stacked on the rest."""
    plt = _pyplot()
    record = report.model(model_id)
    keys = list(record.flops) if record else []
    total = record.flops if record else {}
    attention = record.attention_flops if record else {}
    rest = [(total[k] - attention.get(k, 0)) / TERA for k in keys]
    attn = [attention.get(k, 0) / TERA for k in keys]
    figure, axes = plt.subplots(figsize=(6, 3.2))
    axes.bar(keys, rest, label="linear, convolution and the rest")
    axes.bar(keys, attn, bottom=rest, label="attention")
    for index, key in enumerate(keys):
        share = attention.get(key, 0) / total[key] if total[key] else 0
        axes.text(index, total[key] / TERA, f"{total[key] / TERA:.2f}, {share:.0%} attn", ha="center", va="bottom", fontsize=7)
    axes.set_ylabel("TFLOP per forward (batch 1)")
    axes.set_title(model_id, fontsize=10)
    axes.legend(fontsize=7)
    return _svg(figure)


def offload_svg(title: str, modes: list[tuple[str, float, float, float, float, float]], link: str) -> str:
    """Two panels per offload mode: GiB per denoising step and GiB per image (each way), the image's bus time beside it.

    *modes*: (mode, host→GPU per step, GPU→host per step, host→GPU per image, GPU→host per image in GiB, seconds of the
    image's traffic at *link*)."""
    plt = _pyplot()
    figure, (step_axes, image_axes) = plt.subplots(1, 2, figsize=(8.5, 1.1 + 0.36 * len(modes)), sharey=True)
    names = [m[0] for m in modes]
    panels = ((step_axes, [m[1] for m in modes], [m[2] for m in modes], "step"), (image_axes, [m[3] for m in modes], [m[4] for m in modes], "image"))
    for axes, there, back, unit in panels:
        axes.barh(names, there, label="host → GPU")
        bars = axes.barh(names, back, left=there, label="GPU → host")
        totals = [a + b for a, b in zip(there, back, strict=True)]
        texts = [f"{t:.2f}" for t in totals] if unit == "step" else [f"{t:.1f} GiB, {m[5]:.2f} s" for t, m in zip(totals, modes, strict=True)]
        _label_bars(axes, bars, texts)
        axes.set_xlim(0, max(max(totals, default=0.0) * (1.3 if unit == "step" else 1.7), 1.0))
        axes.set_xlabel(f"GiB per {unit}" + (f" (seconds at {link})" if unit == "image" else ""), fontsize=8)
        axes.tick_params(labelsize=8)
    step_axes.invert_yaxis()
    step_axes.legend(fontsize=7, loc="lower right")
    figure.suptitle(title, fontsize=9)
    figure.tight_layout()
    return _svg(figure)


def fbc_svg(report: CostReport, pipeline: str) -> str:
    """Share of the denoiser's FLOPs First Block Cache saves against the fraction of steps it skips."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(5.5, 3.2))
    for cache in report.first_block_cache:
        if cache.pipeline != pipeline:
            continue
        xs = [float(k) for k in cache.saved_fraction]
        axes.plot(xs, list(cache.saved_fraction.values()), marker="o", label=cache.resolution)
    axes.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=0.8, label="every FLOP skippable")
    axes.set_xlabel("fraction of steps that hit the cache")
    axes.set_ylabel("fraction of FLOPs saved")
    axes.legend(fontsize=7)
    return _svg(figure)


def vae_svg(report: CostReport, model_id: str) -> str:
    """Peak activations of one VAE decode by image size, plain against tiled, each bar labelled."""
    plt = _pyplot()
    record = report.model(model_id)
    acts = record.activations if record else {}
    keys = [k for k in acts if " " not in k]
    figure, axes = plt.subplots(figsize=(6, 3.2))
    width = 0.4
    plain = [acts[k] / GIB for k in keys]
    tiled = [acts.get(f"{k} tiled", 0) / GIB for k in keys]
    _label_bars(axes, axes.bar([i - width / 2 for i in range(len(keys))], plain, width=width, label="decode"), [f"{v:.2f}" for v in plain], False)
    _label_bars(axes, axes.bar([i + width / 2 for i in range(len(keys))], tiled, width=width, label="enable_tiling()"), [f"{v:.2f}" for v in tiled], False)
    axes.set_xticks(range(len(keys)), keys)
    axes.set_ylabel("peak activations (GiB, bf16)")
    axes.set_title(model_id, fontsize=10)
    axes.legend(fontsize=7)
    return _svg(figure)


def generation_svg(report: CostReport, pipelines: list[str]) -> str:
    """TFLOP of a whole generation per pipeline and resolution on a log axis: as configured, and with one pass a step."""
    plt = _pyplot()
    labels, configured, one_pass = [], [], []
    for pipeline in pipelines:
        record = report.pipeline(pipeline)
        for row in record.resolutions if record else ():
            labels.append(f"{pipeline}\n{row.resolution}")
            configured.append(row.generation_flops / TERA)
            one_pass.append(row.generation_flops_one_pass / TERA)
    figure, axes = plt.subplots(figsize=(7, 3.4))
    width = 0.4
    _label_bars(
        axes,
        axes.bar([i - width / 2 for i in range(len(labels))], configured, width=width, label="as configured (CFG: 2 passes a step)"),
        [f"{v:.0f}" for v in configured],
        False,
    )
    _label_bars(
        axes, axes.bar([i + width / 2 for i in range(len(labels))], one_pass, width=width, label="one pass a step"), [f"{v:.0f}" for v in one_pass], False
    )
    axes.set_xticks(range(len(labels)), labels, fontsize=7)
    axes.set_yscale("log")
    _plain_log(axes.yaxis)
    axes.set_ylabel("TFLOP per image (log scale)")
    axes.legend(fontsize=7, loc="upper left")
    return _svg(figure)


def kv_svg(per_request: list[tuple[str, dict[int, float]]], fits: list[tuple[str, dict[int, int]]], cards: list[int]) -> str:
    """Two panels: each model's KV cache for one request by context (GiB, log axis), and the tokens of cache that fit
    after its bf16 weights on each card (log axis; a card its weights alone overflow is labelled, not drawn).

    *per_request*: (model, {context: GiB}); *fits*: (model, {card GiB: tokens})."""
    plt = _pyplot()
    figure, (request_axes, fit_axes) = plt.subplots(1, 2, figsize=(9, 1.4 + 0.3 * max(len(per_request), 1) * max(len(cards), 3) / 2))
    count = max(1, len(per_request))
    height = 0.8 / count
    contexts = sorted({c for _, sizes in per_request for c in sizes})
    for index, (model, sizes) in enumerate(per_request):
        ys = [position + index * height for position in range(len(contexts))]
        values = [sizes.get(c, 0.0) for c in contexts]
        bars = request_axes.barh(ys, values, height=height, label=model)
        _label_bars(request_axes, bars, [f"{v:.2f}" if v else "" for v in values])
    request_axes.set_yticks([p + 0.4 - height / 2 for p in range(len(contexts))], [f"{c:,} tokens" for c in contexts])
    request_axes.set_xscale("log")
    _plain_log(request_axes.xaxis)
    smallest = min((v for _, sizes in per_request for v in sizes.values() if v), default=1.0)
    largest = max((v for _, sizes in per_request for v in sizes.values()), default=1.0)
    request_axes.set_xlim(smallest / 2, largest * 4)
    request_axes.invert_yaxis()
    request_axes.set_xlabel("KV cache of one request (GiB, bf16, log scale)", fontsize=8)
    request_axes.legend(fontsize=7, loc="upper right")
    fewest = min((t for _, tokens in fits for t in tokens.values() if t), default=1000) / 1000
    for index, (model, tokens) in enumerate(fits):
        ys = [position + index * height for position in range(len(cards))]
        values = [tokens.get(c, 0) / 1000 for c in cards]
        bars = fit_axes.barh(ys, values, height=height, label=model)
        for bar, value in zip(bars, values, strict=True):
            text = f" {value:,.1f}k" if value else " weights do not fit"
            fit_axes.text(max(bar.get_width(), fewest / 2), bar.get_y() + bar.get_height() / 2, text, va="center", ha="left", fontsize=7)
    fit_axes.set_yticks([p + 0.4 - height / 2 for p in range(len(cards))], [f"{c} GiB" for c in cards])
    fit_axes.set_xscale("log")
    _plain_log(fit_axes.xaxis)
    most = max((t for _, tokens in fits for t in tokens.values()), default=1000) / 1000
    fit_axes.set_xlim(fewest / 2, most * 8)
    fit_axes.invert_yaxis()
    fit_axes.set_xlabel("thousand tokens of KV cache after bf16 weights (log scale)", fontsize=8)
    for axes in (request_axes, fit_axes):
        axes.tick_params(labelsize=8)
    figure.tight_layout()
    return _svg(figure)


def decode_svg(panels: list[tuple[str, list[tuple[str, float, float, dict[str, float]]]]], memories: list[str]) -> str:
    """One row per model: the GiB a decode step reads (weights, then KV cache, stacked) per batch × context, and beside
    it the bandwidth bound on tokens a second at each stated HBM bandwidth (log axis, each bar labelled).

    *panels*: (model, [(batch × context, weights GiB, KV GiB, {memory: tokens a second})])."""
    plt = _pyplot()
    rows = max(len(steps) for _, steps in panels) if panels else 1
    figure, all_axes = plt.subplots(len(panels) or 1, 2, figsize=(9.5, (0.9 + 0.32 * rows * max(len(memories), 2) / 2) * max(len(panels), 1)), squeeze=False)
    height = 0.8 / max(len(memories), 1)
    for (bytes_axes, bound_axes), (model, steps) in zip(all_axes, panels, strict=False):
        names = [name for name, *_ in steps]
        weights = [w for _, w, _, _ in steps]
        kv = [k for _, _, k, _ in steps]
        bytes_axes.barh(names, weights, label="weights")
        bars = bytes_axes.barh(names, kv, left=weights, label="KV cache", hatch="//", edgecolor="0.5")
        _label_bars(bytes_axes, bars, [f"{w + k:.1f}" for w, k in zip(weights, kv, strict=True)])
        bytes_axes.set_xlim(0, max(w + k for w, k in zip(weights, kv, strict=True)) * 1.25)
        bytes_axes.invert_yaxis()
        bytes_axes.set_title(f"{model}: bytes read per decode step", fontsize=9, loc="left")
        bytes_axes.set_xlabel("GiB (batch × context)", fontsize=8)
        bytes_axes.legend(fontsize=7, loc="lower right")
        for index, memory in enumerate(memories):
            ys = [position + index * height for position in range(len(steps))]
            values = [bounds.get(memory, 0.0) for *_, bounds in steps]
            bars = bound_axes.barh(ys, values, height=height, label=memory)
            _label_bars(bound_axes, bars, [f"{v:,.0f}" for v in values])
        bound_axes.set_yticks([p + 0.4 - height / 2 for p in range(len(steps))], names)
        bound_axes.set_xscale("log")
        _plain_log(bound_axes.xaxis)
        values = [v for *_, bounds in steps for v in bounds.values() if v]
        bound_axes.set_xlim(min(values, default=1.0) / 2, max(values, default=1.0) * 6)
        bound_axes.invert_yaxis()
        bound_axes.set_title("upper bound: batch × bandwidth ÷ bytes read", fontsize=9, loc="left")
        bound_axes.set_xlabel("decode tokens a second, at most (log scale)", fontsize=8)
        bound_axes.legend(fontsize=7, loc="upper right")
        for axes in (bytes_axes, bound_axes):
            axes.tick_params(labelsize=8)
    figure.tight_layout()
    return _svg(figure)
