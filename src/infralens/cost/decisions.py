"""Costs as decisions: what a whole pipeline needs on a card, and what offload costs in seconds of bus traffic.

Read from a :class:`~infralens.reports.CostReport` only (nothing is built or counted here). Which models form a
pipeline is the catalog's content (``costs/models.yaml``, ``pipelines:``); this module only adds them up.

- **Weights of a pipeline in a format**: every component (denoiser, text encoders, VAE) stored in that format,
  each by the format's own rule (what the format does not quantize stays bf16; :mod:`.formats`).
- **Peak of a pipeline**: those weights all resident at once, plus the live activations of its largest single
  forward at a resolution: the denoiser (× passes a step under classifier-free guidance, × batch), the VAE
  decode (× batch, or one image at a time with ``enable_slicing()``), a text encoder (one prompt; its embeddings
  are repeated for the batch). Activations grow linearly with the batch in this estimate. Not included: the CUDA
  context and allocator reserve, the latents and the scheduler's state (small), and whatever the kernels
  allocate for themselves (the H200 measurement in ``reports/cost-cuda.json`` found up to 1.6× the counted
  activation peak for the VAE decode).
- **Card sizes**: :data:`CARDS_GIB`. A configuration *fits* a card when its peak is at most the card's size.
- **Offload per image**: the report's host→GPU bytes per generation, and per step × steps for the rest; the time
  is those bytes over a stated link rate (:data:`LINKS`): the time the bus is busy, which a stream can overlap
  with compute but which a blocking copy adds to the image.
"""

from __future__ import annotations

from dataclasses import dataclass

from infralens.reports import CostReport, ModelCostRecord, OffloadModeRecord, PipelineCostRecord

GIB = 2**30
GB = 10**9
CARDS_GIB = (16, 24, 48, 80)
"""Common card sizes in GiB (consumer 16 and 24 GiB cards; 48 GiB workstation cards; 80 GiB data-centre cards)."""


@dataclass(frozen=True)
class Link:
    """A host↔GPU link at an assumed effective rate, with where the figure comes from."""

    name: str
    gb_per_s: float
    """Effective rate in GB/s (10⁹ bytes a second), one direction."""
    raw_gb_per_s: float
    """What the link carries per direction before protocol overhead."""
    source: str


LINKS = (
    Link(
        "PCIe 4.0 x16",
        25.0,
        31.5,
        "PCI-SIG: 16 GT/s a lane with 128b/130b encoding, 16 lanes = 31.5 GB/s a direction; about 80% of that reaches a "
        "copy from pinned host memory after packet headers and flow control, as CUDA's bandwidthTest shows on such cards",
    ),
    Link(
        "PCIe 5.0 x16",
        50.0,
        63.0,
        "PCI-SIG: 32 GT/s a lane with 128b/130b encoding, 16 lanes = 63.0 GB/s a direction; about 80% of it, as for PCIe 4.0",
    ),
)
"""Assumed link rates. Copies from pageable (not pinned) host memory are slower, often by half."""


class DecisionError(KeyError):
    """The report lacks a model, pipeline, format or resolution a decision needs (run ``make cost``)."""


def _model(report: CostReport, model_id: str) -> ModelCostRecord:
    found = report.model(model_id)
    if found is None:
        raise DecisionError(f"reports/cost.json has no model {model_id!r}")
    return found


def pipeline(report: CostReport, pipeline_id: str) -> PipelineCostRecord:
    found = report.pipeline(pipeline_id)
    if found is None:
        raise DecisionError(f"reports/cost.json has no pipeline {pipeline_id!r}")
    return found


def components(report: CostReport, pipeline_id: str) -> tuple[tuple[str, str], ...]:
    """(role, model id) of each component of the pipeline: the denoiser, each text encoder, the VAE."""
    pipe = pipeline(report, pipeline_id)
    return (("denoiser", pipe.denoiser), *(("text encoder", t) for t in pipe.text_encoders), ("VAE", pipe.vae))


def weight_bytes(report: CostReport, model_id: str, fmt: str) -> int:
    sizes = _model(report, model_id).bytes
    if fmt not in sizes:
        raise DecisionError(f"reports/cost.json has no {fmt!r} bytes for {model_id!r}")
    return sizes[fmt]


def pipeline_weights(report: CostReport, pipeline_id: str, fmt: str | dict[str, str]) -> int:
    """Bytes of every component's weights: all in *fmt*, or per model id as *fmt* maps it (``bf16`` for the rest)."""
    return sum(weight_bytes(report, model_id, fmt if isinstance(fmt, str) else fmt.get(model_id, "bf16")) for _, model_id in components(report, pipeline_id))


def _activation(report: CostReport, model_id: str, key: str) -> int:
    acts = _model(report, model_id).activations
    if key not in acts:
        raise DecisionError(f"reports/cost.json has no activation peak of {model_id!r} at {key!r}")
    return acts[key]


def stage_activations(report: CostReport, pipeline_id: str, resolution: str, batch: int = 1, *, sliced: bool = False) -> dict[str, int]:
    """Live activation bytes of each stage's largest forward: ``{model id: bytes}`` (see the module's rules)."""
    pipe = pipeline(report, pipeline_id)
    passes = 2 if pipe.cfg else 1
    found = {pipe.denoiser: _activation(report, pipe.denoiser, resolution) * batch * passes}
    found.update({text: _activation(report, text, "prompt") for text in pipe.text_encoders})
    found[pipe.vae] = _activation(report, pipe.vae, resolution) * (1 if sliced else batch)
    return found


def pipeline_peak(
    report: CostReport, pipeline_id: str, fmt: str | dict[str, str], resolution: str, batch: int = 1, *, sliced: bool = False, vae_bytes_scale: int = 1
) -> int:
    """Every component's weights resident plus the largest stage's activations (*vae_bytes_scale* 2: a float32 decode)."""
    stages = stage_activations(report, pipeline_id, resolution, batch, sliced=sliced)
    stages[pipeline(report, pipeline_id).vae] *= vae_bytes_scale
    return pipeline_weights(report, pipeline_id, fmt) + max(stages.values())


def one_at_a_time_peak(report: CostReport, pipeline_id: str, fmt: str, resolution: str) -> int:
    """Model CPU offload keeps one component on the GPU: the largest of each component's weights plus its own activations."""
    stages = stage_activations(report, pipeline_id, resolution)
    return max(weight_bytes(report, model_id, fmt) + stages[model_id] for _, model_id in components(report, pipeline_id))


def fits(peak_bytes: int, card_gib: int) -> bool:
    return peak_bytes <= card_gib * GIB


def smallest_card(peak_bytes: int, cards: tuple[int, ...] = CARDS_GIB) -> int | None:
    """The smallest of *cards* (GiB) the peak fits, or None."""
    return next((card for card in sorted(cards) if fits(peak_bytes, card)), None)


def largest_resolution(report: CostReport, pipeline_id: str) -> str:
    """The pipeline's largest counted resolution (by pixels), e.g. ``1024x1024``."""
    rows = pipeline(report, pipeline_id).resolutions
    if not rows:
        raise DecisionError(f"reports/cost.json has no resolution for pipeline {pipeline_id!r}")
    return max((r.resolution for r in rows), key=_pixels)


def _pixels(key: str) -> int:
    width, _, height = key.partition("x")
    return int(width) * int(height) if width.isdigit() and height.isdigit() else 0


def seconds(byte_count: int | float, link: Link) -> float:
    """Seconds *byte_count* bytes keep *link* busy at its effective rate."""
    return byte_count / (link.gb_per_s * GB)


@dataclass(frozen=True)
class OffloadImage:
    """One offload mode over a whole image: the bytes each way and the bus time at each of :data:`LINKS`."""

    mode: str
    h2d_per_step: int
    h2d_per_image: int
    d2h_per_image: int

    def seconds(self, link: Link) -> float:
        return seconds(self.h2d_per_image + self.d2h_per_image, link)


def offload_images(report: CostReport, pipeline_id: str) -> tuple[OffloadImage, ...]:
    """Each offload mode of the pipeline over one image (``d2h``: per step × steps; model offload: every component once back)."""
    record = next((o for o in report.offload if o.pipeline == pipeline_id), None)
    if record is None:
        raise DecisionError(f"reports/cost.json has no offload record for pipeline {pipeline_id!r}")
    steps = pipeline(report, pipeline_id).steps
    return tuple(_image(mode, steps) for mode in record.modes)


def _image(mode: OffloadModeRecord, steps: int) -> OffloadImage:
    back = mode.h2d_per_generation if mode.mode == "model" else mode.d2h_per_step * steps
    return OffloadImage(mode.mode, mode.h2d_per_step, mode.h2d_per_generation, back)
