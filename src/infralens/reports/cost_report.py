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
from pathlib import Path
from typing import Any, ClassVar

from infralens.bounds import VERSION_PATTERN  # every version field of a report follows it
from infralens.errors import InfralensError
from infralens.records import Record, record, spec

LIBRARIES = ("diffusers", "transformers", "diffsynth")


class CostReportError(InfralensError):
    """A cost report is missing, not JSON, or does not follow the schema."""


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
    """reports/cost.json, written by `infralens cost --format json`: parameters, bytes per storage format, FLOPs, activation peaks, offload traffic and First Block Cache savings of models at their published configs (costs/models.yaml), counted on torch's meta device."""

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


def cost_report_from_json(data: Any, where: str = "cost report") -> CostReport:
    """Validate *data* against the schema and type it."""
    problem = validate_cost_report(data)
    if problem:
        raise CostReportError(f"{where}: not a valid cost report: {problem}")
    try:
        report: CostReport = CostReport.from_json(data)
    except (KeyError, ValueError, TypeError) as error:  # only if the schema and the records disagree
        raise CostReportError(f"{where}: not a valid cost report: {error!r}") from error
    return report


def validate_cost_report(data: Any) -> str | None:
    """What is wrong with *data* as a cost report (the most relevant schema error), or None."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    from infralens.reports.load import report_schema

    schema = {key: value for key, value in report_schema().items() if key != "oneOf"}
    schema["$ref"] = "#/$defs/costReport"
    error = best_match(Draft202012Validator(schema).iter_errors(data))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{error.message} (at {where})" if where else error.message


def load_cost_report(path: str | Path) -> CostReport:
    """Read and type ``reports/cost.json``; problems name the file (and the line of a JSON syntax error)."""
    from infralens.reports.load import ReportError, parse_report_json, read_report_text

    path = Path(path)
    try:
        data = parse_report_json(read_report_text(path), path)
    except ReportError as error:
        raise CostReportError(str(error)) from None
    return cost_report_from_json(data, str(path))


def dumps_cost_report(report: CostReport) -> str:
    return json.dumps(cost_report_to_json(report), indent=2) + "\n"
