"""Keep the lab starters' stderr free of third-party noise, and say once, plainly, what an optional kernel lacks.

The libraries the starters drive (torch, torchao, diffusers, transformers, peft) log warnings that do
not concern a learner: deprecations inside torch's pytree, image processors falling back to PIL,
"experimental feature" notices, optional CUDA kernels that cannot load on this machine. The starters
print what they want the learner to see; everything else is silenced here, before those libraries load.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

LIBRARIES = ("torch", "torchao", "diffusers", "transformers", "peft", "accelerate", "optimum", "gguf", "diffsynth", "huggingface_hub", "safetensors")
"""Python packages whose warnings and INFO/WARNING log records the starters silence."""
KERNEL_NOTE = "note: torchao's C++ kernels are not available here; its Python fallbacks run"
_DONE = {"quiet": False, "noted": False}


class _TorchaoFilter(logging.Filter):
    """Drop torchao's warnings; turn its "Failed to load <kernel>.so" records into one plain note."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR:
            return True
        if record.getMessage().startswith("Failed to load") and not _DONE["noted"]:
            _DONE["noted"] = True
            print(KERNEL_NOTE, file=sys.stderr)
        return False


def quiet_third_party() -> None:
    """Silence known warnings and log records of :data:`LIBRARIES` (idempotent; call before importing them)."""
    if _DONE["quiet"]:
        return
    _DONE["quiet"] = True
    os.environ.setdefault("DIFFUSERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    modules = "|".join(LIBRARIES)
    for category in (DeprecationWarning, FutureWarning, UserWarning):
        warnings.filterwarnings("ignore", category=category, module=rf"({modules})(\.|$)")
    logging.getLogger("torchao").addFilter(_TorchaoFilter())
    for name in ("torch.utils._pytree", "torch._dynamo", "torch._inductor", "diffusers", "transformers", "peft", "accelerate", "optimum"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        import torch  # torch's own logging setup runs at import; the levels above are set again after it
    except ModuleNotFoundError:
        return
    torch._logging.set_logs(dynamo=logging.ERROR, inductor=logging.ERROR)
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
