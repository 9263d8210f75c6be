"""The "What it costs" exercises of the lab pages: each answer read from ``reports/cost.json`` and printed.

A starter calls :func:`show_cost_exercises` with its lab number; the function prints the values (hidden by
``reveal`` until ``--reveal``) and returns the answers its ``--check`` compares. Each answer is a figure the
page's table also shows, so a learner can work it out from the table, the closed forms, or the report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from infralens.reports import CostReport, load_cost_report

GIB = 2**30
TERA = 1e12


def _gib(value: int) -> float:
    return round(value / GIB, 2)


def _tflop(value: float) -> float:
    return round(value / TERA, 2)


def _model(report: CostReport, model_id: str):
    found = report.model(model_id)
    if found is None:
        raise KeyError(f"reports/cost.json has no model {model_id!r}: run `make cost`")
    return found


def _res(report: CostReport, pipeline: str, resolution: str):
    pipe = report.pipeline(pipeline)
    if pipe is None:
        raise KeyError(f"reports/cost.json has no pipeline {pipeline!r}: run `make cost`")
    return next(r for r in pipe.resolutions if r.resolution == resolution)


def _lab07(r: CostReport) -> dict:
    sizes = [_model(r, m).bytes["bf16"] for m in ("sd15-unet", "clip-l-text", "sd-vae")]
    return {"cost_t5_xxl_bf16_gib": _gib(_model(r, "t5-xxl-encoder").bytes["bf16"]), "cost_sd15_pipeline_bf16_gib": _gib(sum(sizes))}


def _lab11(r: CostReport) -> dict:
    acts = _model(r, "sd-vae").activations
    return {"cost_vae_decode_2048_gib": _gib(acts["2048x2048"]), "cost_vae_tiled_decode_2048_gib": _gib(acts["2048x2048 tiled"])}


def _lab12(r: CostReport) -> dict:
    row = _res(r, "sd15", "512x512")
    return {"cost_sd15_generation_tflop": _tflop(row.generation_flops), "cost_sd15_tflop_saved_50_to_20_steps": _tflop(30 * row.passes * row.step_flops)}


def _lab13(r: CostReport) -> dict:
    flux = _model(r, "flux1-dev-transformer")
    flops, attention = flux.flops["1024x1024"], flux.attention_flops["1024x1024"]
    return {"cost_flux_step_tflop_1024": _tflop(flops), "cost_flux_attention_share_1024": round(attention / flops, 2)}


def _lab14(r: CostReport) -> dict:
    return {"cost_sdxl_unet_params": _model(r, "sdxl-unet").params, "cost_sdxl_generation_tflop_1024": _tflop(_res(r, "sdxl", "1024x1024").generation_flops)}


def _lab15(r: CostReport) -> dict:
    attention = _model(r, "flux1-dev-transformer").attention_flops
    return {
        "cost_flux_attention_tflop_512": _tflop(attention["512x512"]),
        "cost_flux_attention_growth_512_to_1024": round(attention["1024x1024"] / attention["512x512"], 2),
    }


def _lab16(r: CostReport) -> dict:
    sizes = _model(r, "flux1-dev-transformer").bytes
    return {"cost_flux_q4_k_gib": _gib(sizes["gguf-q4_k"]), "cost_flux_fp8_layerwise_gib": _gib(sizes["fp8-layerwise"])}


def _lab17(r: CostReport) -> dict:
    offload = next(o for o in r.offload if o.pipeline == "flux1-dev")
    block = next(m for m in offload.modes if m.mode == "group-block")
    cache = next(c for c in r.first_block_cache if c.pipeline == "flux1-dev" and c.resolution == "1024x1024")
    return {"cost_flux_group_block_h2d_gib_per_step": _gib(block.h2d_per_step), "cost_flux_fbc_saved_at_half": cache.saved_fraction["0.5"]}


EXERCISES: dict[str, Callable[[CostReport], dict]] = {
    "07": _lab07,
    "11": _lab11,
    "12": _lab12,
    "13": _lab13,
    "14": _lab14,
    "15": _lab15,
    "16": _lab16,
    "17": _lab17,
}
"""Lab number → the cost answers its starter checks."""


def default_report_path() -> Path:
    """``reports/cost.json`` of the checkout this package runs from, else of the working directory's project."""
    for start in (Path(__file__).resolve(), Path.cwd().resolve()):
        for folder in start.parents if start.is_file() else (start, *start.parents):
            if (folder / "reports" / "cost.json").is_file():
                return folder / "reports" / "cost.json"
    return Path("reports/cost.json")


def show_cost_exercises(lab: str, reveal: Callable[[Any], str] = str, report_path: Path | None = None) -> dict:
    """Print lab *lab*'s cost figures through the starter's *reveal* (hidden until ``--reveal``) and return them as answers."""
    report = load_cost_report(report_path or default_report_path())
    answers = EXERCISES[lab](report)
    print("== What it costs (from reports/cost.json; `infralens cost` recomputes it)")
    for key, value in answers.items():
        print(f"  {key}: {reveal(value)}")
    return answers
