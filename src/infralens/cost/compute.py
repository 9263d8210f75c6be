"""Assemble the cost report: every requested model built on ``meta`` and counted, then pipelines, offload and caching."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from infralens.cost.catalog import Catalog, ModelSpec, PipelineSpec
from infralens.cost.decoder import DecoderShape
from infralens.hashing import sha256_text
from infralens.reports import (
    CacheRecord,
    CostReport,
    ModelCostRecord,
    OffloadModeRecord,
    OffloadRecord,
    PipelineCostRecord,
    ResolutionCostRecord,
)

DISTRIBUTIONS = ("torch", "diffusers", "transformers", "diffsynth")
FBC_FRACTIONS = (0.0, 0.25, 0.5, 0.75, 0.9)
FBC_BLOCKS = {"flux": ("transformer_blocks", "single_transformer_blocks")}
"""Block lists First Block Cache walks, per kind of denoiser (diffusers applies it to transformer blocks only)."""
NOTES = (
    "Counted on torch's meta device: shapes and dtypes only, no weights, no memory. FLOPs: torch.utils.flop_counter, a multiply-add is 2 FLOPs.",
    "Attention runs as one fused kernel (memory-efficient attention); its FLOPs, and any bmm, are the attention share.",
    "Activations: the peak of live tensors created during one forward (bf16), weights and inputs excluded.",
    "nf4-bnb, nf4-bnb-dq: bitsandbytes is CUDA-only here; their bytes follow the format's rule (without and with double quantization) and were not measured.",
)

DECODER_NOTES = (
    ("Decoders: no forward is run. KV bytes per token = Σ layers (k_proj + v_proj outputs) × 2 bytes (bf16); a sliding-window layer holds at most its window."),
    (
        "Decoders: matmul FLOPs per token = 2 × Σ in × out of every linear projection, the output head included; "
        "attention adds 4 × Σ q_proj outputs per attended key."
    ),
    (
        "Decoders: prefill of N tokens = N × projections + the head once (last position's logits) + causal attention; "
        "decode at context c = matmul + attention over c keys."
    ),
    (
        "Decoders: a decode step reads every weight once (embedding rows only) plus each sequence's KV cache; "
        "batch × HBM bandwidth ÷ those bytes bounds tokens a second."
    ),
)


@dataclass(frozen=True)
class Request:
    models: tuple[str, ...] = ()
    """Model ids (default: every model in the catalog)."""
    resolutions: tuple[tuple[int, int], ...] = ()
    """Override the pipelines' resolutions."""
    batch: int = 1
    contexts: tuple[int, ...] = ()
    """Decoders: context lengths for the KV cache per request and the decode figures (default :data:`.decoder.CONTEXTS`)."""

    def decoder_contexts(self) -> tuple[int, ...]:
        from infralens.cost.decoder import CONTEXTS

        return self.contexts or CONTEXTS


def resolution_key(width: int, height: int) -> str:
    return f"{width}x{height}"


def versions() -> tuple[tuple[str, str], ...]:
    found = []
    for name in DISTRIBUTIONS:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, "absent"))
    return tuple(found)


def fingerprint(catalog: Catalog, request: Request) -> str:
    """What the numbers depend on: the catalog, the installed versions, the storage formats counted and the request."""
    from infralens.cost.decoder import inputs_key
    from infralens.cost.formats import FORMATS

    parts = [catalog.text, repr(versions()), repr(FORMATS), repr(sorted(request.models)), repr(request.resolutions), str(request.batch)]
    parts.append(inputs_key(request.decoder_contexts()))
    return sha256_text("\n".join(parts))[:16]


def _resolutions(catalog: Catalog, spec: ModelSpec, request: Request) -> list[tuple[int, int]]:
    if request.resolutions:
        return list(request.resolutions)
    found: list[tuple[int, int]] = []
    for pipe in catalog.pipelines:
        if spec.id in (pipe.denoiser, pipe.vae):
            found += [r for r in pipe.resolutions if r not in found]
    if spec.kind == "vae" and found:
        biggest = max(found)
        found.append((biggest[0] * 2, biggest[1] * 2))  # where tiling starts to matter for every VAE here
    return found or [(512, 512)]


class _Counted:
    """FLOPs, attention FLOPs, activation peaks and per-module FLOPs of one model, keyed by resolution."""

    def __init__(self) -> None:
        self.flops: dict[str, int] = {}
        self.attention: dict[str, int] = {}
        self.activations: dict[str, int] = {}
        self.by_module: dict[str, tuple[tuple[str, int], ...]] = {}


def _count_model(spec: ModelSpec, resolutions: list[tuple[int, int]], batch: int) -> _Counted:
    import torch

    from infralens.cost.build import build_meta
    from infralens.cost.counting import count_forward
    from infralens.cost.inputs import forward_call

    counted = _Counted()
    if spec.kind in ("none", "decoder"):  # a decoder's FLOPs follow from its shapes (.decoder)
        return counted
    if spec.kind == "text":
        model = build_meta(spec, torch.bfloat16)
        result = count_forward(forward_call(spec, model, 0, 0, batch))
        counted.flops["prompt"], counted.attention["prompt"], counted.activations["prompt"] = result.flops, result.attention_flops, result.peak_activation_bytes
        return counted
    for width, height in resolutions:
        key = resolution_key(width, height)
        model = build_meta(spec, torch.bfloat16)
        result = count_forward(forward_call(spec, model, width, height, batch))
        counted.activations[key] = result.peak_activation_bytes
        counted.flops[key], counted.attention[key], counted.by_module[key] = result.flops, result.attention_flops, result.by_module
        if spec.kind == "vae":
            counted.activations[f"{key} sliced"] = _vae_peak(spec, width, height, batch, "sliced") if batch > 1 else result.peak_activation_bytes
            tiles = _tiles_at(model, width, height)
            counted.activations[f"{key} tiled"] = _vae_peak(spec, width, height, batch, "tiled") if tiles else result.peak_activation_bytes
    return counted


def _tiles_at(vae: object, width: int, height: int) -> bool:
    """Whether diffusers' tiled decode splits a *width*×*height* image: only when the latent exceeds one tile (its own test)."""
    tile = int(getattr(vae, "tile_latent_min_size", 0) or 0)
    return bool(tile) and (width // 8 > tile or height // 8 > tile)


def _vae_peak(spec: ModelSpec, width: int, height: int, batch: int, mode: str) -> int:
    """Peak activations of a sliced (one image at a time) or tiled decode, through diffusers' own code paths."""
    import torch

    from infralens.cost.build import build_meta
    from infralens.cost.counting import count_forward, vectorise_blends
    from infralens.cost.inputs import forward_call

    model = build_meta(spec, torch.bfloat16)
    vectorise_blends(model)
    return count_forward(forward_call(spec, model, width, height, batch, vae_mode=mode)).peak_activation_bytes


def _model_record(spec: ModelSpec, counted: _Counted, contexts: tuple[int, ...]) -> ModelCostRecord:
    import torch

    from infralens.cost.build import build_meta
    from infralens.cost.decoder import decoder_record
    from infralens.cost.formats import FORMATS, breakdown, format_bytes

    model = build_meta(spec, torch.bfloat16)
    parts = breakdown(model)
    shape = _decoder_shape(spec, model) if spec.kind == "decoder" else None
    sizes = [(fmt, format_bytes(model if fmt != "fp8-layerwise" else build_meta(spec, torch.bfloat16), fmt)) for fmt in FORMATS]
    return ModelCostRecord(
        id=spec.id,
        library=spec.library,
        class_name=spec.class_name,
        source=spec.source,
        params=parts.total,
        published_params=spec.published_params or None,
        params_by_kind=dict(parts.by_kind),
        params_by_child=dict(parts.by_child),
        bytes=dict(sizes),
        flops=dict(counted.flops),
        attention_flops=dict(counted.attention),
        activations=dict(counted.activations),
        kv_bytes_per_token=shape.kv_bytes_per_token() if shape else None,
        decoder=decoder_record(shape, dict(sizes), contexts) if shape else None,
    )


def _decoder_shape(spec: ModelSpec, model: Any) -> DecoderShape:
    """The decoder shape of *spec*'s built model; a catalog entry whose class is no causal LM is refused at its line."""
    from infralens.cost.catalog import CatalogError
    from infralens.cost.decoder import NotADecoder, shape_of

    try:
        return shape_of(model)
    except NotADecoder as error:
        raise CatalogError(f"{spec.where}: model {spec.id}: {error} — kind 'decoder' is for causal language models (…ForCausalLM)") from None


def _pipeline_record(pipe: PipelineSpec, records: dict[str, ModelCostRecord], resolutions: Sequence[tuple[int, int]]) -> PipelineCostRecord:
    denoiser = records[pipe.denoiser]
    text = sum(records[t].flops.get("prompt", 0) for t in pipe.text_encoders)
    passes = 2 if pipe.cfg else 1
    rows = []
    for width, height in resolutions:
        key = resolution_key(width, height)
        step = denoiser.flops.get(key)
        vae = records[pipe.vae].flops.get(key)
        if step is None or vae is None:
            continue
        rows.append(
            ResolutionCostRecord(
                resolution=key,
                step_flops=step,
                attention_flops=denoiser.attention_flops[key],
                passes=passes,
                text_flops=text * passes,
                vae_flops=vae,
                generation_flops=pipe.steps * passes * step + text * passes + vae,
                generation_flops_one_pass=pipe.steps * step + text + vae,
            )
        )
    return PipelineCostRecord(
        id=pipe.id,
        denoiser=pipe.denoiser,
        text_encoders=pipe.text_encoders,
        vae=pipe.vae,
        steps=pipe.steps,
        cfg=pipe.cfg,
        source=pipe.source,
        resolutions=tuple(rows),
    )


def _offload_record(pipe: PipelineSpec, catalog: Catalog, records: dict[str, ModelCostRecord]) -> OffloadRecord:
    import torch

    from infralens.cost.build import build_meta
    from infralens.cost.offload import offload_rows

    denoiser = build_meta(catalog.model(pipe.denoiser), torch.bfloat16)
    others = sum(records[name].bytes["bf16"] for name in (*pipe.text_encoders, pipe.vae))
    rows = offload_rows(denoiser, others, pipe.steps)
    return OffloadRecord(
        pipeline=pipe.id,
        denoiser=pipe.denoiser,
        weight_format="bf16",
        weight_bytes=records[pipe.denoiser].bytes["bf16"],
        modes=tuple(OffloadModeRecord(**vars(row)) for row in rows),
    )


def _cache_records(pipe: PipelineSpec, spec: ModelSpec, counted: _Counted) -> list[CacheRecord]:
    from infralens.cost.offload import CacheRow, first_block_split

    blocks = FBC_BLOCKS.get(spec.kind)
    if not blocks:
        return []
    found = []
    for key, by_module in counted.by_module.items():
        always, skippable = first_block_split(by_module, counted.flops[key], blocks)
        row = CacheRow(key, always, skippable, pipe.steps)
        found.append(
            CacheRecord(
                pipeline=pipe.id,
                resolution=key,
                always_flops=always,
                skippable_flops=skippable,
                steps=pipe.steps,
                saved_fraction={str(f): round(row.saved_fraction(f), 4) for f in FBC_FRACTIONS},
            )
        )
    return found


def compute_report(catalog: Catalog, request: Request, cuda: str) -> CostReport:
    """Count every requested model (all of them by default) and the pipelines whose models were all counted."""
    from infralens.cost.build import quiet_upstream
    from infralens.cost.decoder import HBM

    quiet_upstream()
    started = time.monotonic()
    ids = request.models or tuple(m.id for m in catalog.models)
    specs = [catalog.model(model_id) for model_id in ids]
    counted = {spec.id: _count_model(spec, _resolutions(catalog, spec, request), request.batch) for spec in specs}
    records = {spec.id: _model_record(spec, counted[spec.id], request.decoder_contexts()) for spec in specs}
    pipelines, offload, caches = [], [], []
    for pipe in catalog.pipelines:
        if not all(name in records for name in (pipe.denoiser, pipe.vae, *pipe.text_encoders)):
            continue
        resolutions = request.resolutions or pipe.resolutions
        pipelines.append(_pipeline_record(pipe, records, resolutions))
        offload.append(_offload_record(pipe, catalog, records))
        caches += _cache_records(pipe, catalog.model(pipe.denoiser), counted[pipe.denoiser])
    return CostReport(
        batch=request.batch,
        fingerprint=fingerprint(catalog, request),
        versions=dict(versions()),
        cuda=cuda,
        seconds=time.monotonic() - started,
        models=tuple(records.values()),
        pipelines=tuple(pipelines),
        offload=tuple(offload),
        first_block_cache=tuple(caches),
        notes=NOTES + (DECODER_NOTES if any(spec.kind == "decoder" for spec in specs) else ()),
        hbm={memory.name: memory.bytes_per_s for memory in HBM} if any(spec.kind == "decoder" for spec in specs) else {},
    )
