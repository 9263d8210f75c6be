"""``infralens cost --measure cuda``: build each catalogued model on the GPU and hold its predictions to what it holds.

Every model of the report is made in bf16 with random weights directly on the GPU (nothing is downloaded), then
run once at each of the report's plain sizes on random inputs of the same shapes the meta count used. Two figures
come back per model and size, each beside the report's prediction:

- weights: ``torch.cuda.memory_allocated`` grown by building the model, against the report's bf16 bytes;
- activations: the peak of ``torch.cuda.max_memory_allocated`` over the forward, above what was allocated once the
  model and its inputs were there, against the report's activation peak (live tensors counted on meta).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from infralens.cost.catalog import Catalog, ModelSpec
from infralens.errors import InfralensError
from infralens.reports import CostReport, MeasuredRecord

NO_CUDA = "not measured: CUDA is not available here (only meta-device counts); run `infralens cost --measure cuda` on a CUDA machine"


class NoCudaError(InfralensError):
    """``--measure cuda`` on a machine without CUDA."""


@dataclass(frozen=True)
class CudaMeasurement:
    """What ``--measure cuda`` saw: the device and one record per model and size."""

    device: str
    torch_version: str
    records: tuple[MeasuredRecord, ...]

    def describe(self) -> str:
        """One line for the report's ``cuda`` field: where, and how far the predictions were from the measurements."""
        if not self.records:
            return f"measured on {self.device} (torch {self.torch_version}): no model of this report runs a forward"
        weights = [r.weight_bytes / r.predicted_weight_bytes for r in self.records if r.predicted_weight_bytes]
        activations = [r.activation_bytes / r.predicted_activation_bytes for r in self.records if r.predicted_activation_bytes]
        models = len({r.model for r in self.records})
        return (
            f"measured on {self.device} (torch {self.torch_version}), bf16, random weights made on the GPU: "
            f"{models} models at {len(self.records)} sizes; weights {_span(weights)} of the prediction, "
            f"forward activation peak {_span(activations)} of the prediction"
        )


def _span(ratios: list[float]) -> str:
    if not ratios:
        return "n/a"
    low, high = min(ratios), max(ratios)
    return f"{low:.2f}×" if round(low, 2) == round(high, 2) else f"{low:.2f}–{high:.2f}×"


def cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


class MemoryCounters(Protocol):
    """What :func:`measure_models` reads around each build and forward (the GPU's allocator; a fake in the tests)."""

    def allocated(self) -> int: ...
    def reset_peak(self) -> None: ...
    def peak(self) -> int: ...
    def release(self) -> None: ...


class CudaMemory:
    """The GPU's allocator counters, as :func:`measure_models` reads them."""

    def allocated(self) -> int:
        import torch

        torch.cuda.synchronize()
        return int(torch.cuda.memory_allocated())

    def reset_peak(self) -> None:
        import torch

        torch.cuda.reset_peak_memory_stats()

    def peak(self) -> int:
        import torch

        torch.cuda.synchronize()
        return int(torch.cuda.max_memory_allocated())

    def release(self) -> None:
        import torch

        torch.cuda.empty_cache()


def measure_cuda(catalog: Catalog, report: CostReport) -> CudaMeasurement:
    """Measure every model of *report* on the GPU at each of its plain sizes (see the module docstring).

    Raises:
        NoCudaError: torch sees no CUDA device.
    """
    import torch

    if not cuda_available():
        raise NoCudaError(f"--measure cuda: {NO_CUDA}")
    records = measure_models(catalog, report, "cuda", CudaMemory())
    return CudaMeasurement(torch.cuda.get_device_name(), str(torch.__version__), records)


def measure_models(catalog: Catalog, report: CostReport, device: str, memory: MemoryCounters) -> tuple[MeasuredRecord, ...]:
    """Build each model of *report* on *device* in bf16 and run it once per plain size, reading *memory* around each step."""
    records: list[MeasuredRecord] = []
    for predicted in report.models:
        spec = catalog.model(predicted.id)
        sizes = [key for key in predicted.activations if " " not in key]
        if spec.kind == "none" or not sizes:
            continue
        records.extend(_measure_model(spec, sizes, report.batch, device, memory, predicted.bytes.get("bf16", 0), predicted.activations))
        memory.release()
    return tuple(records)


def _measure_model(
    spec: ModelSpec, sizes: list[str], batch: int, device: str, memory: MemoryCounters, predicted_weights: int, predicted_activations: dict[str, int]
) -> list[MeasuredRecord]:
    import torch

    from infralens.cost.build import build_on
    from infralens.cost.inputs import forward_call

    before = memory.allocated()
    model = build_on(spec, device, torch.bfloat16)
    weights = memory.allocated() - before
    records = []
    for size in sizes:
        width, height = (0, 0) if size == "prompt" else (int(part) for part in size.split("x"))
        run = forward_call(spec, model, width, height, batch, device=device)
        ready = memory.allocated()
        memory.reset_peak()
        with torch.no_grad():
            output = run()
        peak = max(0, memory.peak() - ready)
        del output, run
        records.append(
            MeasuredRecord(
                model=spec.id,
                resolution=size,
                predicted_weight_bytes=predicted_weights,
                weight_bytes=weights,
                predicted_activation_bytes=predicted_activations[size],
                activation_bytes=peak,
            )
        )
    del model
    return records
