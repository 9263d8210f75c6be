"""The "What it costs" figures, drawn with matplotlib (Agg, offline) into SVG text from the cost report."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from infralens.reports import CostReport

GIB = 2**30
TERA = 1e12
GPUS = ((24, "24 GiB"), (48, "48 GiB"), (80, "80 GiB"))
WEIGHT_FORMATS = ("fp32", "bf16", "fp8-layerwise", "int8-torchao", "nf4-bnb", "gguf-q8_0", "gguf-q4_k")
FIGURES = ("weights", "flops", "offload", "fbc", "vae", "generation")


def _svg(figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    import matplotlib.pyplot as plt

    plt.close(figure)
    return buffer.getvalue()


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "infralens-cost"  # the same figure gives the same file, build after build
    return plt


def weights_svg(report: CostReport, models: list[str]) -> str:
    """GiB of each model's weights per storage format, against 24/48/80 GiB GPUs."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7.5, 0.9 + 0.55 * len(WEIGHT_FORMATS) * max(1, len(models)) / 2))
    height = 0.8 / max(1, len(models))
    for index, model_id in enumerate(models):
        record = report.model(model_id)
        if record is None:
            continue
        sizes = record.bytes
        ys = [position + index * height for position in range(len(WEIGHT_FORMATS))]
        axes.barh(ys, [sizes[f] / GIB for f in WEIGHT_FORMATS], height=height, label=model_id)
    axes.set_yticks([p + 0.4 - height / 2 for p in range(len(WEIGHT_FORMATS))], WEIGHT_FORMATS)
    axes.invert_yaxis()
    for gib, label in GPUS:
        axes.axvline(gib, color="0.4", linestyle="--", linewidth=0.8)
        axes.text(gib, -0.6, label, ha="center", fontsize=8, color="0.3")
    axes.set_xlabel("weights (GiB)")
    axes.legend(fontsize=8, loc="lower right")
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
        axes.text(index, (total[key]) / TERA, f"{share:.0%} attn", ha="center", va="bottom", fontsize=8)
    axes.set_ylabel("TFLOP per forward (batch 1)")
    axes.set_title(model_id, fontsize=10)
    axes.legend(fontsize=8)
    return _svg(figure)


def offload_svg(report: CostReport, pipeline: str) -> str:
    """GiB moved per denoising step by offload mode, each direction."""
    plt = _pyplot()
    record = next((o for o in report.offload if o.pipeline == pipeline), None)
    modes = list(record.modes) if record else []
    figure, axes = plt.subplots(figsize=(6.5, 3.2))
    names = [m.mode for m in modes]
    axes.barh(names, [m.h2d_per_step / GIB for m in modes], label="host → GPU")
    axes.barh(names, [m.d2h_per_step / GIB for m in modes], left=[m.h2d_per_step / GIB for m in modes], label="GPU → host")
    axes.invert_yaxis()
    axes.set_xlabel("GiB per denoising step (bf16 weights)")
    axes.set_title(f"{pipeline}: {record.denoiser if record else ''}", fontsize=10)
    axes.legend(fontsize=8)
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
    axes.legend(fontsize=8)
    return _svg(figure)


def vae_svg(report: CostReport, model_id: str) -> str:
    """Peak activations of one VAE decode by image size, plain against tiled."""
    plt = _pyplot()
    record = report.model(model_id)
    acts = record.activations if record else {}
    keys = [k for k in acts if " " not in k]
    figure, axes = plt.subplots(figsize=(6, 3.2))
    width = 0.4
    axes.bar([i - width / 2 for i in range(len(keys))], [acts[k] / GIB for k in keys], width=width, label="decode")
    axes.bar([i + width / 2 for i in range(len(keys))], [acts.get(f"{k} tiled", 0) / GIB for k in keys], width=width, label="enable_tiling()")
    axes.set_xticks(range(len(keys)), keys)
    axes.set_ylabel("peak activations (GiB, bf16)")
    axes.set_title(model_id, fontsize=10)
    axes.legend(fontsize=8)
    return _svg(figure)


def generation_svg(report: CostReport, pipelines: list[str]) -> str:
    """TFLOP of a whole generation per pipeline and resolution: as configured, and with one pass a step."""
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
    axes.bar([i - width / 2 for i in range(len(labels))], configured, width=width, label="as configured (CFG: 2 passes a step)")
    axes.bar([i + width / 2 for i in range(len(labels))], one_pass, width=width, label="one pass a step")
    axes.set_xticks(range(len(labels)), labels, fontsize=7)
    axes.set_ylabel("TFLOP per image")
    axes.legend(fontsize=8)
    return _svg(figure)
