"""What it costs: parameters, bytes per storage format, FLOPs, activation peaks and offload traffic.

Models come at their published configurations from ``costs/models.yaml`` (:mod:`.catalog`, data only: what it may
say is :mod:`.rules`, and nothing it names runs until a model is built), built from the
installed diffusers, transformers and DiffSynth classes on torch's ``meta`` device (:mod:`.build`), so no
weights are downloaded and nothing is allocated. :mod:`.formats` holds each storage format's rules,
:mod:`.decisions` adds a catalogued pipeline's
components up against card sizes and link rates, :mod:`.exercises` works the lab pages' cost exercises out of the report,
:mod:`.counting` runs one forward under ``FlopCounterMode`` and a live-tensor tracker (inputs from
:mod:`.inputs`), :mod:`.offload` applies diffusers' offload and First Block Cache rules, :mod:`.decoder` reads a
decoder-only language model's serving costs off its module shapes (KV cache, FLOPs per token, bytes a decode
step reads, the HBM-bandwidth bound), :mod:`.compute`
assembles the report (typed in :mod:`infralens.reports`), :mod:`.text` prints it, :mod:`.fresh` says whether
``reports/cost.json`` is current (never recomputing it), :mod:`.rules` is what a catalog may hold, :mod:`.measure` is
the CUDA measurement and :mod:`.cli` is ``infralens cost``.
Sits at layer 6 beside drift and verify. May import: :mod:`infralens.reports`, :mod:`infralens.tiny`,
:mod:`infralens.userfiles`, :mod:`infralens.commands`, :mod:`infralens.errors`, :mod:`infralens.hashing`,
:mod:`infralens.annotations` (its YAML reader with limits), :mod:`infralens.cachedir`, :mod:`infralens.bounds`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .catalog import (
        Catalog as Catalog,
        CatalogError as CatalogError,
        ModelSpec as ModelSpec,
        default_catalog_path as default_catalog_path,
        load_catalog as load_catalog,
    )
    from .compute import Request as Request, compute_report as compute_report, fingerprint as fingerprint, resolution_key as resolution_key
    from .decisions import (
        CARDS_GIB as CARDS_GIB,
        LINKS as LINKS,
        DecisionError as DecisionError,
        Link as Link,
        components as components,
        largest_resolution as largest_resolution,
        offload_images as offload_images,
        one_at_a_time_peak as one_at_a_time_peak,
        pipeline_peak as pipeline_peak,
        pipeline_weights as pipeline_weights,
        stage_activations as stage_activations,
    )
    from .decoder import (
        HBM as HBM,
        DecoderShape as DecoderShape,
        Memory as Memory,
        NotADecoder as NotADecoder,
        decoder_record as decoder_record,
        shape_of as shape_of,
    )
    from .exercises import (
        EXERCISES as EXERCISES,
        CostExercise as CostExercise,
        cost_exercises as cost_exercises,
        cost_tolerances as cost_tolerances,
        show_cost_exercises as show_cost_exercises,
    )
    from .formats import FORMATS as FORMATS, bits_per_weight as bits_per_weight, format_rule as format_rule
    from .fresh import is_current as is_current
    from .measure import NO_CUDA as NO_CUDA, NoCudaError as NoCudaError, cuda_available as cuda_available, measure_cuda as measure_cuda
    from .text import GIB as GIB, render_text as render_text

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(("Catalog", "CatalogError", "ModelSpec", "default_catalog_path", "load_catalog"), "catalog"),
        **dict.fromkeys(("Request", "compute_report", "fingerprint", "resolution_key"), "compute"),
        **dict.fromkeys(
            (
                "CARDS_GIB",
                "LINKS",
                "DecisionError",
                "Link",
                "components",
                "largest_resolution",
                "offload_images",
                "one_at_a_time_peak",
                "pipeline_peak",
                "pipeline_weights",
                "stage_activations",
            ),
            "decisions",
        ),
        **dict.fromkeys(("HBM", "DecoderShape", "Memory", "NotADecoder", "decoder_record", "shape_of"), "decoder"),
        **dict.fromkeys(("EXERCISES", "CostExercise", "cost_exercises", "cost_tolerances", "show_cost_exercises"), "exercises"),
        **dict.fromkeys(("FORMATS", "bits_per_weight", "format_rule"), "formats"),
        "is_current": "fresh",
        **dict.fromkeys(("NO_CUDA", "NoCudaError", "cuda_available", "measure_cuda"), "measure"),
        **dict.fromkeys(("GIB", "render_text"), "text"),
    },
)
