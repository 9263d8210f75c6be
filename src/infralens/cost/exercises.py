"""The "What it costs" exercises of the lab pages: each answer worked out from ``reports/cost.json``, never printed above it.

A page's cost tables give per-model and per-format figures; each exercise asks for what they do not say (the
pipeline at another resolution, batch or mix of formats, the first card a configuration fits, the seconds of
bus traffic an offload mode costs; for the decoders of labs 19 and 20, the bandwidth bound at another batch and
context, or the requests that fit on cards the table does not list) and is answered here from the report with
:mod:`.decisions`. Every exercise
carries the precision its question states (a :data:`infralens.tiny.Precision`, ``None`` for whole numbers and
yes/no, compared exactly) and its *traps*: the tempting wrong values the question exists to tell apart from the
answer, which ``--check`` must reject (the lab tests hold both).

A starter calls :func:`show_cost_exercises` with its lab number (it prints the values, hidden by ``reveal`` until
``--reveal``, and returns the answers) and passes :func:`cost_tolerances` to ``finish``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from infralens.cost import decisions as d
from infralens.reports import CostReport, CostReportError, DecoderCostRecord, ModelCostRecord, load_cost_report
from infralens.tiny import Decimals, Precision, Significant

GIB = 2**30
TERA = 10**12
PCIE4 = d.LINKS[0]


@dataclass(frozen=True)
class CostExercise:
    """One cost exercise: its answer, the precision its question states, and the wrong values it must reject."""

    key: str
    value: Any
    precision: Precision | None
    traps: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not self.traps:
            raise ValueError(f"{self.key}: a cost exercise names the wrong value it tells apart from the answer")


def _rounded(exercise: str, places: int, value: float, *traps: float, share: bool = False) -> CostExercise:
    """An answer asked to *places* decimals: kept to two more places (so a value written from rounded table figures
    is compared with the figure itself, not with its rounding), each trap written as a learner would write it."""
    return CostExercise(exercise, round(value, places + 2), Decimals(places, share=share), tuple(round(t, places) for t in traps))


def _significant(exercise: str, digits: int, value: float, *traps: float) -> CostExercise:
    """An answer asked to *digits* significant figures (kept to two more), each trap written to as many."""

    def to(figures: int, number: float) -> float:
        return round(number, figures - 1 - math.floor(math.log10(abs(number)))) if number else 0.0

    return CostExercise(exercise, to(digits + 2, value), Significant(digits), tuple(to(digits, t) for t in traps))


def _gib(exercise: str, value: float, *traps: float) -> CostExercise:
    """A GiB figure to one decimal (bytes in): sums of rounded table figures stay within half a unit of it."""
    return _rounded(exercise, 1, value / GIB, *(t / GIB for t in traps))


def _row(report: CostReport, pipeline_id: str, resolution: str):
    found = next((r for r in d.pipeline(report, pipeline_id).resolutions if r.resolution == resolution), None)
    if found is None:
        raise d.DecisionError(f"reports/cost.json has no {resolution} row for pipeline {pipeline_id!r}")
    return found


def _image_flops(report: CostReport, pipeline_id: str, resolution: str, steps: int) -> int:
    """FLOPs of one image at *steps* steps: steps × passes × one forward, the text encoders (once a pass) and one decode."""
    row = _row(report, pipeline_id, resolution)
    return steps * row.passes * row.step_flops + row.text_flops + row.vae_flops


def _lab07(r: CostReport) -> tuple[CostExercise, ...]:
    flux, sd15 = "flux1-dev", d.pipeline(r, "sd15")
    at = d.largest_resolution(r, flux)
    return (
        _gib(
            "cost_flux_model_offload_peak_gib",
            d.one_at_a_time_peak(r, flux, "bf16", at),
            d.pipeline_peak(r, flux, "bf16", at),  # everything resident: the pipeline table's figure
            d.weight_bytes(r, d.pipeline(r, flux).denoiser, "bf16"),  # the largest component without its activations
        ),
        _gib(
            "cost_sd15_unet_fp8_rest_bf16_gib",
            d.pipeline_weights(r, sd15.id, {sd15.denoiser: "fp8-layerwise"}),
            d.pipeline_weights(r, sd15.id, "fp8-layerwise"),  # every component cast, as the table's fp8 row
            d.weight_bytes(r, sd15.denoiser, "fp8-layerwise"),  # the UNet alone
        ),
    )


def _lab11(r: CostReport) -> tuple[CostExercise, ...]:
    step = next(m for m in d.offload_images(r, "sd15") if m.mode == "sequential").h2d_per_step
    return (
        _gib(
            "cost_sd15_batch5_decode_peak_gib",
            d.pipeline_peak(r, "sd15", "bf16", "512x512", batch=5),
            d.pipeline_peak(r, "sd15", "bf16", "512x512", batch=5, sliced=True),  # what enable_slicing() leaves
            d.pipeline_peak(r, "sd15", "bf16", "512x512"),  # one image
        ),
        _rounded(
            "cost_sd15_sequential_offload_s_20_steps",
            1,
            d.seconds(20 * step, PCIE4),
            20 * step / GIB / PCIE4.gb_per_s,  # GiB read as GB
            d.seconds(d.pipeline(r, "sd15").steps * step, PCIE4),  # the table's 50 steps
        ),
    )


def _lab12(r: CostReport) -> tuple[CostExercise, ...]:
    at, steps = "512x512", d.pipeline(r, "sd15").steps
    row = _row(r, "sd15", at)
    twenty = _image_flops(r, "sd15", at, 20)
    return (
        _significant(
            "cost_sd15_image_tflop_20_steps",
            2,
            twenty / TERA,
            row.generation_flops * 20 / steps / TERA,  # the 50-step image scaled, text and decode included
            (20 * row.step_flops + row.text_flops // row.passes + row.vae_flops) / TERA,  # one pass a step
        ),
        _rounded("cost_sd15_decode_share_20_steps", 2, row.vae_flops / twenty, row.vae_flops / row.generation_flops, share=True),
    )


def _lab13(r: CostReport) -> tuple[CostExercise, ...]:
    flux = d.pipeline(r, "flux1-dev")
    big = d.largest_resolution(r, flux.id)
    row = _row(r, flux.id, big)
    true_cfg = row.generation_flops + flux.steps * row.step_flops + row.text_flops  # a second pass each step, a second prompt
    return (
        _gib(
            "cost_flux_pipeline_peak_512_gib",
            d.pipeline_peak(r, flux.id, "bf16", "512x512"),
            d.pipeline_peak(r, flux.id, "bf16", big),  # the table's resolution
            d.pipeline_weights(r, flux.id, "bf16"),  # weights without activations
        ),
        _significant(
            "cost_flux_true_cfg_image_tflop",
            4,
            true_cfg / TERA,
            2 * row.generation_flops / TERA,  # the decode doubled too
            (row.generation_flops + flux.steps * row.step_flops) / TERA,  # the negative prompt's encoding forgotten
        ),
    )


def _lab14(r: CostReport) -> tuple[CostExercise, ...]:
    sdxl = d.pipeline(r, "sdxl")
    at = d.largest_resolution(r, sdxl.id)
    upcast = {sdxl.denoiser: "fp16", **dict.fromkeys(sdxl.text_encoders, "fp16"), sdxl.vae: "fp32"}
    card = 16 * GIB
    largest = max((b for b in range(1, 65) if d.pipeline_peak(r, sdxl.id, "bf16", at, batch=b) <= card), default=0)
    decode = d.stage_activations(r, sdxl.id, at)[sdxl.vae]
    return (
        _gib(
            "cost_sdxl_upcast_vae_peak_gib",
            d.pipeline_peak(r, sdxl.id, upcast, at, vae_bytes_scale=2),
            d.pipeline_peak(r, sdxl.id, "bf16", at),  # the table's bf16 row
            d.pipeline_peak(r, sdxl.id, upcast, at),  # float32 weights, bf16-sized activations
        ),
        CostExercise("cost_sdxl_largest_batch_16gib", largest, None, (card // decode, largest + 1)),  # forgetting the weights
    )


FLUX_PATCH = 16
"""Pixels a side of one Flux image token: the VAE's 8× and the 2×2 packing of lab 13."""


def _image_tokens(side: int) -> int:
    return (side // FLUX_PATCH) ** 2


def _flux_attention(r: CostReport, side: int) -> tuple[float, float, float]:
    """(attention, the rest, text tokens) of one Flux forward at side×side, extrapolated from the 512² and 1024² counts.

    Attention grows with the square of the sequence (the image tokens plus the text tokens), everything else with
    its length; the text tokens are what makes the counted growth from 512² to 1024² fall short of the area's square."""
    model = r.model(d.pipeline(r, "flux1-dev").denoiser)
    if model is None:
        raise d.DecisionError("reports/cost.json has no Flux transformer")
    small, big = model.attention_flops["512x512"], model.attention_flops["1024x1024"]
    growth = math.sqrt(big / small)  # (image tokens at 1024² + text) / (image tokens at 512² + text)
    text = (_image_tokens(1024) - growth * _image_tokens(512)) / (growth - 1)
    scale = (_image_tokens(side) + text) / (_image_tokens(1024) + text)
    return big * scale**2, (model.flops["1024x1024"] - big) * scale, text


def _lab15(r: CostReport) -> tuple[CostExercise, ...]:
    attention, rest, _ = _flux_attention(r, 2048)
    model = r.model(d.pipeline(r, "flux1-dev").denoiser)
    assert model is not None
    big = model.attention_flops["1024x1024"]
    return (
        _significant("cost_flux_attention_tflop_2048", 3, attention / TERA, (2048 / 1024) ** 4 * big / TERA),  # the area squared, text forgotten
        _rounded("cost_flux_attention_share_2048", 2, attention / (attention + rest), big / model.flops["1024x1024"], share=True),
    )


def _lab16(r: CostReport) -> tuple[CostExercise, ...]:
    flux = d.pipeline(r, "flux1-dev")
    at = d.largest_resolution(r, flux.id)
    mixed = {flux.denoiser: "fp8-layerwise"}
    model = r.model(flux.denoiser)
    assert model is not None
    return (
        _gib("cost_flux_fp8_t5_bf16_peak_gib", d.pipeline_peak(r, flux.id, mixed, at), d.pipeline_weights(r, flux.id, mixed)),
        _rounded("cost_flux_fp8_layerwise_bits_per_param", 2, 8 * model.bytes["fp8-layerwise"] / model.params, 8.0),
    )


def _lab17(r: CostReport) -> tuple[CostExercise, ...]:
    model = next(m for m in d.offload_images(r, "flux1-dev") if m.mode == "model")
    cache = next(c for c in r.first_block_cache if c.pipeline == "flux1-dev" and c.resolution == d.largest_resolution(r, "flux1-dev"))
    saved = 0.6 * cache.skippable_flops / (cache.always_flops + cache.skippable_flops)
    return (
        _rounded("cost_flux_model_offload_s_per_image_batch4", 1, model.seconds(PCIE4) / 4, model.seconds(PCIE4), d.seconds(model.h2d_per_image, PCIE4) / 4),
        _rounded("cost_flux_fbc_speedup_60pct", 1, 1 / (1 - saved), 1 / (1 - 0.6)),  # every FLOP skippable
    )


def _decoder(r: CostReport, model_id: str) -> tuple[ModelCostRecord, DecoderCostRecord, int]:
    """A decoder model, its serving figures and its KV bytes per token; a clear error when the report predates them."""
    model = r.model(model_id)
    if model is None or model.decoder is None or model.kv_bytes_per_token is None:
        raise d.DecisionError(f"reports/cost.json has no decoder figures for {model_id!r}")
    if model.decoder.sliding_layers:
        raise d.DecisionError(f"{model_id} has sliding-window layers: its cache is not KV bytes per token × context")
    return model, model.decoder, model.kv_bytes_per_token


def _weights_read(decoder: DecoderCostRecord, batch: int) -> int:
    """Weight bytes one decode step of *batch* sequences reads: a batch-1 step's bytes less its cache, plus one more
    looked-up embedding row (hidden × 2 bytes) per extra sequence."""
    one = next((s for s in decoder.decode if s.batch == 1), None)
    if one is None:
        raise d.DecisionError("reports/cost.json has no batch-1 decode step")
    return one.bytes_read - one.kv_bytes + (batch - 1) * decoder.hidden_size * 2


def _lab19(r: CostReport) -> tuple[CostExercise, ...]:
    _, llama, per_token = _decoder(r, "llama-3.1-8b")
    if "H100 SXM" not in r.hbm or "4096" not in llama.kv_bytes_per_request:
        raise d.DecisionError("reports/cost.json has no H100 SXM bandwidth or no 4096-token figures for llama-3.1-8b")
    bandwidth, batch, context = r.hbm["H100 SXM"], 8, 8192
    weights = _weights_read(llama, batch)
    one_kv = context * per_token
    large_batch = llama.decode_flops_per_token["4096"] / llama.kv_bytes_per_request["4096"]
    sixteen = next(s for s in llama.decode if (s.batch, s.context) == (16, 4096))
    return (
        _significant(
            "cost_llama8b_bound_tokens_s_batch8_8k",
            3,
            batch * bandwidth / (weights + batch * one_kv),
            batch * bandwidth / weights,  # the weights alone, the cache forgotten
            batch * bandwidth / (weights + one_kv),  # one sequence's cache for the whole batch
            bandwidth / (weights + batch * one_kv),  # a step's rate, not the batch's tokens
        ),
        _rounded(
            "cost_llama8b_flops_per_byte_large_batch_4k",
            1,
            large_batch,
            sixteen.flops / sixteen.bytes_read,  # the table's batch-16 row
            llama.attention_flops_per_key / per_token,  # attention's own ratio, the projections forgotten
        ),
    )


def _lab20(r: CostReport) -> tuple[CostExercise, ...]:
    small, small_decoder, small_kv = _decoder(r, "llama-3.1-8b")
    large, large_decoder, large_kv = _decoder(r, "llama-3.1-70b")
    request, shorter = 8192, 4096
    on_80 = next((f for f in small_decoder.fits if (f.weight_format, f.card_gib) == ("bf16", 80)), None)
    if on_80 is None:
        raise d.DecisionError("reports/cost.json has no bf16 fit on an 80 GiB card for llama-3.1-8b")
    two_cards = 2 * 80 * GIB
    on_141 = next((f.tokens for f in large_decoder.fits if (f.weight_format, f.card_gib) == ("bf16", 141)), 0)
    return (
        CostExercise(
            "cost_llama8b_requests_8k_80gib",
            on_80.tokens // request,
            None,
            (80 * GIB // (request * small_kv), (80 * 10**9 - small.bytes["bf16"]) // small_kv // request),  # weights forgotten; GB read as GiB
        ),
        CostExercise(
            "cost_llama70b_requests_4k_two_80gib",
            max(two_cards - large.bytes["bf16"], 0) // (shorter * large_kv),
            None,
            (on_141 // shorter, two_cards // (shorter * large_kv)),  # one 141 GiB card instead; the weights forgotten
        ),
    )


EXERCISES: dict[str, Callable[[CostReport], tuple[CostExercise, ...]]] = {
    "07": _lab07,
    "11": _lab11,
    "12": _lab12,
    "13": _lab13,
    "14": _lab14,
    "15": _lab15,
    "16": _lab16,
    "17": _lab17,
    "19": _lab19,
    "20": _lab20,
}
"""Lab number → its cost exercises, worked out from the report."""


def default_report_path() -> Path:
    """``reports/cost.json`` of the checkout this package runs from, else of the working directory's project."""
    for start in (Path(__file__).resolve(), Path.cwd().resolve()):
        for folder in start.parents if start.is_file() else (start, *start.parents):
            if (folder / "reports" / "cost.json").is_file():
                return folder / "reports" / "cost.json"
    return Path("reports/cost.json")


@lru_cache(maxsize=4)
def _load(path: Path) -> CostReport:
    return load_cost_report(path)


def cost_exercises(lab: str, report_path: Path | None = None) -> tuple[CostExercise, ...]:
    """Lab *lab*'s cost exercises from the report (default: this checkout's ``reports/cost.json``)."""
    if lab not in EXERCISES:
        raise KeyError(f"lab {lab!r} has no cost exercises (labs with them: {', '.join(EXERCISES)})")
    return EXERCISES[lab](_load((report_path or default_report_path()).resolve()))


def cost_tolerances(lab: str, report_path: Path | None = None) -> dict[str, Precision]:
    """The precision each of lab *lab*'s cost questions states, for the starter's ``finish(..., tolerances=...)``."""
    return {e.key: e.precision for e in cost_exercises(lab, report_path) if e.precision is not None}


def show_cost_exercises(lab: str, reveal: Callable[[Any], str] = str, report_path: Path | None = None) -> dict:
    """Print lab *lab*'s cost answers through the starter's *reveal* (hidden until ``--reveal``) and return them."""
    try:
        exercises = cost_exercises(lab, report_path)
    except (CostReportError, d.DecisionError) as error:  # a missing or older report: one line, no traceback
        raise SystemExit(f"cost exercises of lab {lab}: {error} — run `make cost` to write reports/cost.json") from None
    print("== What it costs (worked out from reports/cost.json; `infralens cost` recomputes it)")
    for exercise in exercises:
        print(f"  {exercise.key}: {reveal(exercise.value)}")
    return {e.key: e.value for e in exercises}
