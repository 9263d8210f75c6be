"""Build a catalogued model from its installed upstream class on torch's ``meta`` device (no memory, no download), or on a GPU."""

from __future__ import annotations

import importlib
import logging
import warnings
from typing import TYPE_CHECKING

from infralens.cost.catalog import CatalogError, ModelSpec

if TYPE_CHECKING:
    import torch


def upstream_class(spec: ModelSpec) -> type:
    """The class *spec* names, from the installed diffusers, transformers or diffsynth (DiffSynth's file loaded by path)."""
    if spec.library == "diffsynth":
        from infralens.tiny import load_diffsynth_module

        module = load_diffsynth_module(spec.module)
    else:
        module = importlib.import_module(spec.library)
    found = getattr(module, spec.class_name, None)
    if not isinstance(found, type):
        raise CatalogError(f"costs/models.yaml:{spec.line}: {spec.library} has no class {spec.class_name!r} (model {spec.id})")
    return found


def build_meta(spec: ModelSpec, dtype: torch.dtype | None = None) -> torch.nn.Module:
    """*spec*'s model with every parameter on ``meta`` (shapes and dtypes only), in eval mode."""
    return build_on(spec, "meta", dtype)


def build_on(spec: ModelSpec, device: str, dtype: torch.dtype | None = None) -> torch.nn.Module:
    """*spec*'s model made directly on *device* (random weights there; shapes only on ``meta``), in eval mode."""
    import torch

    cls = upstream_class(spec)
    config = spec.config_dict()
    quiet = [logging.getLogger(name) for name in ("diffusers", "transformers")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), torch.device(device):
            warnings.simplefilter("ignore")
            if spec.library == "transformers":
                config_cls = getattr(importlib.import_module("transformers"), spec.config_class)
                model = cls(config_cls(**config))
            else:
                model = cls(**config)
            if dtype is not None:
                model = model.to(dtype)
    except TypeError as error:
        raise CatalogError(f"costs/models.yaml:{spec.line}: model {spec.id}: {spec.class_name} does not accept this config: {error}") from None
    finally:
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)
    return model.eval()


def quiet_upstream() -> None:
    """Silence the import-time chatter of torchao and transformers (warnings a reader of the report cannot act on)."""
    import os

    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("DIFFUSERS_VERBOSITY", "error")
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
    import diffusers.utils.logging as diffusers_logging
    import transformers.utils.logging as transformers_logging

    diffusers_logging.set_verbosity_error()
    transformers_logging.set_verbosity_error()
