"""The cost report (``reports/cost.json``, written by ``infralens cost --format json``) as typed, frozen records.

Each record is its own definition (:mod:`infralens.records`), like the other reports': ``to_json`` gives the document
key for key as it is written, ``from_json`` reads a document the schema accepted, and the ``costReport``
part of the schema is generated from the same fields. A JSON object of named numbers is a ``dict`` in the
JSON's order; an object of models, pipelines, resolutions or offload modes is a ``tuple`` of records keyed
by their id (:attr:`~.records.Record.json_key`). :func:`cost_report_from_json` validates against
``$defs/costReport`` in the shipped schema.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, ClassVar

from infralens.bounds import VERSION_PATTERN  # every version field of a report follows it
from infralens.errors import InfralensError
from infralens.records import Record, record, spec

LIBRARIES = ("diffusers", "transformers", "diffsynth")


class CostReportError(InfralensError):
    """A cost report is missing, not JSON, or does not follow the schema."""


def _fit_key(fit: DecoderFitRecord) -> str:
    return f"{fit.weight_format}@{fit.card_gib}"


@record
class DecoderFitRecord(Record):
    """Tokens of KV cache (bf16) that fit on a card after a decoder's weights in one format (``fits[format@GiB]``)."""

    json_name: ClassVar[str] = "costDecoderFit"
    json_key = _fit_key
    weight_format: str
    card_gib: int = spec(minimum=1)
    weight_bytes: int = spec(minimum=0)
    tokens: int = spec(minimum=0, doc="(card − weights) ÷ KV bytes per token, rounded down; 0 when the weights alone do not fit.")


def _step_key(step: DecodeStepRecord) -> str:
    return f"{step.batch}x{step.context}"


@record
class DecodeStepRecord(Record):
    """One decode step of a batch of sequences at one context (``decode[BATCHxCONTEXT]``), bf16 weights and cache."""

    json_name: ClassVar[str] = "costDecodeStep"
    json_key = _step_key
    batch: int = spec(minimum=1)
    context: int = spec(minimum=1, doc="Keys each new token attends to (the prompt and the tokens made so far).")
    flops: int = spec(minimum=0, doc="batch × decode FLOPs per token at this context.")
    kv_bytes: int = spec(minimum=0, doc="batch × one sequence's KV cache at this context.")
    bytes_read: int = spec(minimum=0, doc="Weights read once (the embedding table's looked-up rows only) plus every sequence's cache.")
    bound_tokens_per_s: dict[str, float] = spec(
        item_minimum=0, doc="Per accelerator: batch × HBM bandwidth ÷ bytes read, an upper bound on decode tokens a second."
    )


@record
class DecoderCostRecord(Record):
    """What a decoder-only language model costs to serve (``models[id].decoder``), read off its modules' shapes."""

    json_name: ClassVar[str] = "costDecoder"
    layers: int = spec(minimum=1)
    attention_heads: int = spec(minimum=1)
    kv_heads: int = spec(minimum=1)
    head_dim: int = spec(minimum=1)
    hidden_size: int = spec(minimum=1)
    vocab_size: int = spec(minimum=1)
    kv_bytes_per_request: dict[str, int] = spec(item_minimum=0, doc="One sequence's KV cache (bf16) by context length in tokens.")
    matmul_flops_per_token: int = spec(minimum=0, doc="2 × Σ in × out over every linear projection, the output head included.")
    attention_flops_per_key: int = spec(minimum=0, doc="4 × Σ q_proj output features: QKᵀ and AV for one more attended key.")
    prefill_flops: dict[str, int] = spec(item_minimum=0, doc="One causal prompt by its length in tokens, logits for the last position only.")
    decode_flops_per_token: dict[str, int] = spec(item_minimum=0, doc="One new token by the context it attends to.")
    fits: tuple[DecoderFitRecord, ...]
    decode: tuple[DecodeStepRecord, ...]
    sliding_layers: int = spec(default=0, minimum=0, doc="Layers whose cache keeps only the last sliding_window tokens.")
    sliding_window: int | None = spec(default=None, omit="none", minimum=1, doc="The window of those layers.")


@record
class ModelCostRecord(Record):
    """One model at its published config (``models[id]``): parameters, weight bytes per storage format, FLOPs and peak activations."""

    json_name: ClassVar[str] = "costModel"
    json_key = "id"
    id: str
    library: str = spec(choices=LIBRARIES)
    class_name: str = spec(key="class")
    source: str
    params: int = spec(minimum=0)
    published_params: int | None = spec(omit="none", minimum=0, doc="The parameter count the model's authors publish.")
    params_by_kind: dict[str, int] = spec(item_minimum=0)
    params_by_child: dict[str, int] = spec(item_minimum=0)
    bytes: dict[str, int] = spec(item_minimum=0, doc="Weight bytes per storage format.")
    flops: dict[str, int] = spec(factory=dict, item_minimum=0, doc="FLOPs of one forward, by resolution or input.")
    attention_flops: dict[str, int] = spec(factory=dict, item_minimum=0, doc="The attention share of those FLOPs.")
    activations: dict[str, int] = spec(factory=dict, item_minimum=0, doc="Peak bytes of live activations during one forward (bf16).")
    kv_bytes_per_token: int | None = spec(default=None, omit="none", minimum=0, doc="A decoder's KV cache per token of one sequence, in bf16.")
    decoder: DecoderCostRecord | None = spec(default=None, omit="none", doc="A decoder's serving costs.")


@record
class ResolutionCostRecord(Record):
    """One pipeline at one resolution (``resolutions[WIDTHxHEIGHT]``): FLOPs of a step and of a whole generation."""

    json_name: ClassVar[str] = "costResolution"
    json_key = "resolution"
    resolution: str
    step_flops: int = spec(minimum=0, doc="One forward of the denoiser for one image.")
    attention_flops: int = spec(minimum=0)
    passes: int = spec(minimum=0, doc="Forwards per step: 2 under classifier-free guidance, 1 for a guidance-distilled model.")
    text_flops: int = spec(minimum=0)
    vae_flops: int = spec(minimum=0)
    generation_flops: int = spec(minimum=0, doc="steps × passes × step + text encoders + VAE decode.")
    generation_flops_one_pass: int = spec(minimum=0, doc="The same with one pass a step (no CFG, or guidance distilled).")


@record
class PipelineCostRecord(Record):
    """One pipeline (``pipelines[id]``): its models, steps and guidance, and its FLOPs per resolution."""

    json_name: ClassVar[str] = "costPipeline"
    json_key = "id"
    id: str
    denoiser: str
    text_encoders: tuple[str, ...]
    vae: str
    steps: int = spec(minimum=1)
    cfg: bool
    source: str
    resolutions: tuple[ResolutionCostRecord, ...]


@record
class OffloadModeRecord(Record):
    """What one offload mode moves per denoising step (``modes[mode]``)."""

    json_name: ClassVar[str] = "costOffloadMode"
    json_key = "mode"
    mode: str
    h2d_per_step: int = spec(minimum=0)
    d2h_per_step: int = spec(minimum=0)
    transfers_per_step: int = spec(minimum=0)
    peak_resident_bytes: int = spec(minimum=0)
    h2d_per_generation: int = spec(minimum=0)


@record
class OffloadRecord(Record):
    """Offload traffic of one pipeline's denoiser (``offload[pipeline]``), per offload mode."""

    json_name: ClassVar[str] = "costOffload"
    json_key = "pipeline"
    pipeline: str
    denoiser: str
    weight_format: str
    weight_bytes: int = spec(minimum=0)
    modes: tuple[OffloadModeRecord, ...]


def _cache_key(cache: CacheRecord) -> str:
    return f"{cache.pipeline}@{cache.resolution}"


@record
class CacheRecord(Record):
    """First Block Cache on one pipeline's denoiser at one resolution (``first_block_cache[pipeline@resolution]``)."""

    json_name: ClassVar[str] = "costFirstBlockCache"
    json_key = _cache_key
    pipeline: str
    resolution: str
    always_flops: int = spec(minimum=0)
    skippable_flops: int = spec(minimum=0)
    steps: int = spec(minimum=1)
    saved_fraction: dict[str, float] = spec(
        item_minimum=0, item_maximum=1, doc="Skipped fraction of steps → fraction of the generation's denoiser FLOPs saved."
    )


def _measured_key(measured: MeasuredRecord) -> str:
    return f"{measured.model}@{measured.resolution}"


@record
class MeasuredRecord(Record):
    """One model at one size built on a GPU (``infralens cost --measure cuda``), its prediction beside each figure."""

    json_name: ClassVar[str] = "costMeasured"
    json_key = _measured_key
    model: str
    resolution: str = spec(doc="A W×H key of the model's activations, or 'prompt' for a text encoder.")
    predicted_weight_bytes: int = spec(minimum=0, doc="The report's bf16 bytes.")
    weight_bytes: int = spec(minimum=0, doc="GPU memory allocated by building the model in bf16.")
    predicted_activation_bytes: int = spec(minimum=0, doc="The report's activation peak at this size.")
    activation_bytes: int = spec(minimum=0, doc="Peak GPU memory allocated during one forward, above the model and its inputs.")


@record
class CostReport(Record):
    """reports/cost.json, written by `infralens cost --format json`: parameters, bytes per storage format, FLOPs,
    activation peaks, offload traffic and First Block Cache savings of models at their published configs
    (costs/models.yaml), counted on torch's meta device."""

    json_name: ClassVar[str] = "costReport"
    json_title: ClassVar[str | None] = "Cost report (infralens cost --format json; reports/cost.json)"
    batch: int = spec(key="cost.batch", minimum=1)
    fingerprint: str = spec(key="cost.fingerprint", doc="Hash of what the numbers depend on: the catalog, the installed versions and the request.")
    versions: dict[str, str] = spec(key="cost.versions", item_pattern=VERSION_PATTERN)
    cuda: str = spec(key="cost.cuda", doc="What was measured on CUDA, or why nothing was.")
    seconds: float = spec(key="cost.seconds", minimum=0, doc="Time the counting took (written to a tenth of a second).")
    models: tuple[ModelCostRecord, ...]
    pipelines: tuple[PipelineCostRecord, ...] = ()
    offload: tuple[OffloadRecord, ...] = ()
    first_block_cache: tuple[CacheRecord, ...] = ()
    measured: tuple[MeasuredRecord, ...] = spec(default=(), required=False)
    hbm: dict[str, float] = spec(
        factory=dict, key="cost.hbm", required=False, item_minimum=0, doc="The stated HBM bandwidths (bytes a second) decode bounds divide by."
    )
    notes: tuple[str, ...] = spec(default=(), key="cost.notes", required=False)

    def before_dump(self) -> CostReport:
        """Seconds are written rounded to a tenth."""
        return replace(self, seconds=round(self.seconds, 1))

    def model(self, model_id: str) -> ModelCostRecord | None:
        return next((m for m in self.models if m.id == model_id), None)

    def pipeline(self, pipeline_id: str) -> PipelineCostRecord | None:
        return next((p for p in self.pipelines if p.id == pipeline_id), None)


def cost_report_to_json(report: CostReport) -> dict[str, Any]:
    """The JSON document of *report* (the ``costReport`` definition of the schema)."""
    return report.to_json()


def dumps_cost_report(report: CostReport) -> str:
    return json.dumps(cost_report_to_json(report), indent=2) + "\n"
