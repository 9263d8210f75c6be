"""The cost report (``reports/cost.json``, written by ``infralens cost --format json``) as typed, frozen records.

Every mapping of the JSON is a tuple of ``(key, value)`` pairs here, in the JSON's order, so records compare
and hash by value. :func:`cost_report_from_json` validates against ``$defs/costReport`` in the shipped schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infralens.errors import InfralensError

Pairs = tuple[tuple[str, int], ...]
FloatPairs = tuple[tuple[str, float], ...]


class CostReportError(InfralensError):
    """A cost report is missing, not JSON, or does not follow the schema."""


@dataclass(frozen=True)
class ModelCostRecord:
    id: str
    library: str
    class_name: str
    source: str
    params: int
    published_params: int | None
    params_by_kind: Pairs
    params_by_child: Pairs
    bytes: Pairs
    flops: Pairs = ()
    attention_flops: Pairs = ()
    activations: Pairs = ()


@dataclass(frozen=True)
class ResolutionCostRecord:
    resolution: str
    step_flops: int
    """One forward of the denoiser for one image."""
    attention_flops: int
    passes: int
    """Forwards per step: 2 under classifier-free guidance, 1 for a guidance-distilled model."""
    text_flops: int
    vae_flops: int
    generation_flops: int
    """steps × passes × step + text encoders + VAE decode."""
    generation_flops_one_pass: int
    """The same with one pass a step (no CFG, or guidance distilled)."""


@dataclass(frozen=True)
class PipelineCostRecord:
    id: str
    denoiser: str
    text_encoders: tuple[str, ...]
    vae: str
    steps: int
    cfg: bool
    source: str
    resolutions: tuple[ResolutionCostRecord, ...]


@dataclass(frozen=True)
class OffloadModeRecord:
    mode: str
    h2d_per_step: int
    d2h_per_step: int
    transfers_per_step: int
    peak_resident_bytes: int
    h2d_per_generation: int


@dataclass(frozen=True)
class OffloadRecord:
    pipeline: str
    denoiser: str
    weight_format: str
    weight_bytes: int
    modes: tuple[OffloadModeRecord, ...]


@dataclass(frozen=True)
class CacheRecord:
    pipeline: str
    resolution: str
    always_flops: int
    skippable_flops: int
    steps: int
    saved_fraction: FloatPairs
    """Skipped fraction of steps → fraction of the generation's denoiser FLOPs saved."""


@dataclass(frozen=True)
class CostReport:
    batch: int
    fingerprint: str
    versions: tuple[tuple[str, str], ...]
    cuda: str
    """What was measured on CUDA, or why nothing was."""
    seconds: float
    models: tuple[ModelCostRecord, ...]
    pipelines: tuple[PipelineCostRecord, ...] = ()
    offload: tuple[OffloadRecord, ...] = ()
    first_block_cache: tuple[CacheRecord, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def model(self, model_id: str) -> ModelCostRecord | None:
        return next((m for m in self.models if m.id == model_id), None)

    def pipeline(self, pipeline_id: str) -> PipelineCostRecord | None:
        return next((p for p in self.pipelines if p.id == pipeline_id), None)


def _obj(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    return dict(pairs)


def cost_report_to_json(report: CostReport) -> dict[str, Any]:
    """The JSON document of *report* (the ``costReport`` definition of the schema)."""
    return {
        "cost": {
            "batch": report.batch,
            "fingerprint": report.fingerprint,
            "versions": _obj(report.versions),
            "cuda": report.cuda,
            "seconds": round(report.seconds, 1),
            "notes": list(report.notes),
        },
        "models": {
            m.id: {
                "library": m.library,
                "class": m.class_name,
                "source": m.source,
                "params": m.params,
                **({"published_params": m.published_params} if m.published_params else {}),
                "params_by_kind": _obj(m.params_by_kind),
                "params_by_child": _obj(m.params_by_child),
                "bytes": _obj(m.bytes),
                "flops": _obj(m.flops),
                "attention_flops": _obj(m.attention_flops),
                "activations": _obj(m.activations),
            }
            for m in report.models
        },
        "pipelines": {
            p.id: {
                "denoiser": p.denoiser,
                "text_encoders": list(p.text_encoders),
                "vae": p.vae,
                "steps": p.steps,
                "cfg": p.cfg,
                "source": p.source,
                "resolutions": {r.resolution: {k: v for k, v in vars(r).items() if k != "resolution"} for r in p.resolutions},
            }
            for p in report.pipelines
        },
        "offload": {
            o.pipeline: {
                "denoiser": o.denoiser,
                "weight_format": o.weight_format,
                "weight_bytes": o.weight_bytes,
                "modes": {row.mode: {k: v for k, v in vars(row).items() if k != "mode"} for row in o.modes},
            }
            for o in report.offload
        },
        "first_block_cache": {
            f"{c.pipeline}@{c.resolution}": {
                "pipeline": c.pipeline,
                "resolution": c.resolution,
                "always_flops": c.always_flops,
                "skippable_flops": c.skippable_flops,
                "steps": c.steps,
                "saved_fraction": _obj(c.saved_fraction),
            }
            for c in report.first_block_cache
        },
    }


def _pairs(value: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(value.items())


def cost_report_from_json(data: Any, where: str = "cost report") -> CostReport:
    """Validate *data* against the schema and type it."""
    problem = validate_cost_report(data)
    if problem:
        raise CostReportError(f"{where}: not a valid cost report: {problem}")
    head = data["cost"]
    return CostReport(
        batch=head["batch"],
        fingerprint=head["fingerprint"],
        versions=_pairs(head["versions"]),
        cuda=head["cuda"],
        seconds=float(head["seconds"]),
        notes=tuple(head.get("notes", [])),
        models=tuple(
            ModelCostRecord(
                id=key,
                library=m["library"],
                class_name=m["class"],
                source=m["source"],
                params=m["params"],
                published_params=m.get("published_params"),
                params_by_kind=_pairs(m["params_by_kind"]),
                params_by_child=_pairs(m["params_by_child"]),
                bytes=_pairs(m["bytes"]),
                flops=_pairs(m["flops"]),
                attention_flops=_pairs(m["attention_flops"]),
                activations=_pairs(m["activations"]),
            )
            for key, m in data["models"].items()
        ),
        pipelines=tuple(
            PipelineCostRecord(
                id=key,
                denoiser=p["denoiser"],
                text_encoders=tuple(p["text_encoders"]),
                vae=p["vae"],
                steps=p["steps"],
                cfg=p["cfg"],
                source=p["source"],
                resolutions=tuple(ResolutionCostRecord(resolution=res, **values) for res, values in p["resolutions"].items()),
            )
            for key, p in data["pipelines"].items()
        ),
        offload=tuple(
            OffloadRecord(
                pipeline=key,
                denoiser=o["denoiser"],
                weight_format=o["weight_format"],
                weight_bytes=o["weight_bytes"],
                modes=tuple(OffloadModeRecord(mode=mode, **values) for mode, values in o["modes"].items()),
            )
            for key, o in data["offload"].items()
        ),
        first_block_cache=tuple(
            CacheRecord(
                pipeline=c["pipeline"],
                resolution=c["resolution"],
                always_flops=c["always_flops"],
                skippable_flops=c["skippable_flops"],
                steps=c["steps"],
                saved_fraction=_pairs(c["saved_fraction"]),
            )
            for c in data["first_block_cache"].values()
        ),
    )


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
