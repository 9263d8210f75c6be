"""A tiny GGUF checkpoint written in place: what ``from_single_file`` with ``GGUFQuantizationConfig`` loads."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_q8_0_gguf(model: Any, path: Path) -> int:
    """Every tensor of *model*'s state dict into one GGUF file at *path*: Q8_0 where it is 2-D with a last dimension
    that is a multiple of 32 (Q8_0's block size), else float32. Returns how many tensors were stored as Q8_0."""
    import gguf

    writer = gguf.GGUFWriter(str(path), "flux")
    quantized = 0
    for name, tensor in model.state_dict().items():
        array = tensor.detach().float().cpu().numpy()
        if array.ndim == 2 and array.shape[-1] % 32 == 0:
            blocks = gguf.quants.quantize(array, gguf.GGMLQuantizationType.Q8_0)
            writer.add_tensor(name, blocks, raw_shape=blocks.shape, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
            quantized += 1
        else:
            writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return quantized
