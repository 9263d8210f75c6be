"""``infralens cost --measure cuda``: SD 1.5's UNet in bf16, random weights made on the GPU, peak memory of one 512² step."""

from __future__ import annotations

from dataclasses import dataclass

from infralens.cost.catalog import Catalog
from infralens.errors import InfralensError

NO_CUDA = "not measured: CUDA is not available here (only meta-device counts); run `infralens cost --measure cuda` on a CUDA machine"


class NoCudaError(InfralensError):
    """``--measure cuda`` on a machine without CUDA."""


@dataclass(frozen=True)
class CudaMeasurement:
    device: str
    weight_bytes: int
    peak_bytes: int
    """``torch.cuda.max_memory_allocated`` over building the model and one forward (CFG batch of 2)."""

    def describe(self) -> str:
        return f"measured on {self.device}: SD 1.5 UNet bf16, 512x512, batch 2 (CFG): weights {self.weight_bytes / 2**30:.2f} GiB, peak allocated {self.peak_bytes / 2**30:.2f} GiB"


def cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def measure_cuda(catalog: Catalog, model_id: str = "sd15-unet", size: int = 512) -> CudaMeasurement:
    """Build *model_id* on the GPU with random weights and measure the peak of one CFG forward at *size*².

    Raises:
        NoCudaError: torch sees no CUDA device.
    """
    import torch

    if not cuda_available():
        raise NoCudaError(f"--measure cuda: {NO_CUDA}")
    from infralens.cost.build import upstream_class

    spec = catalog.model(model_id)
    torch.cuda.reset_peak_memory_stats()
    with torch.device("cuda"):
        model = upstream_class(spec)(**spec.config_dict()).to(torch.bfloat16).eval()
        config = spec.config_dict()
        sample = torch.randn(2, int(config.get("in_channels", 4)), size // 8, size // 8, dtype=torch.bfloat16)
        context = torch.randn(2, 77, int(config.get("cross_attention_dim", 768)), dtype=torch.bfloat16)
        weights = sum(p.numel() * p.element_size() for p in model.parameters())
        with torch.no_grad():
            model(sample, torch.tensor([500, 500]), context)
    torch.cuda.synchronize()
    return CudaMeasurement(device=torch.cuda.get_device_name(), weight_bytes=weights, peak_bytes=int(torch.cuda.max_memory_allocated()))
