"""Build a catalogued model from its installed upstream class on torch's ``meta`` device (no memory, no download), or on a GPU.

The catalog's rules (:mod:`.rules`) are checked again here, where the classes are at hand: the class must be a
``torch.nn.Module`` defined in its library, a transformers config class must be on the allow-list and a
``PretrainedConfig``, and the config must hold plain values and no loading key. Nothing else is ever called, and
``trust_remote_code`` is never passed.
"""

from __future__ import annotations

import importlib
import logging
import warnings
from typing import TYPE_CHECKING, Any

from infralens.cost import rules
from infralens.cost.catalog import CatalogError, ModelSpec

if TYPE_CHECKING:
    import torch


def upstream_class(spec: ModelSpec) -> type:
    """The class *spec* names, from the installed diffusers, transformers or diffsynth (DiffSynth's file loaded by path).

    It must be a subclass of ``torch.nn.Module`` defined in that library; anything else is refused before it is called.
    """
    import torch

    problem = rules.class_name_problem(spec.class_name)
    if problem is not None:
        raise CatalogError(f"{spec.where}: model {spec.id}: {problem}")
    if spec.library == "diffsynth":
        from infralens.tiny import load_diffsynth_module

        try:
            module = load_diffsynth_module(spec.module)
        except ValueError as error:
            raise CatalogError(f"{spec.where}: model {spec.id}: {error} — name a module file of the installed diffsynth package") from None
    elif spec.library in rules.LIBRARIES:
        module = importlib.import_module(spec.library)
    else:
        raise CatalogError(f"{spec.where}: model {spec.id}: library must be one of {', '.join(rules.LIBRARIES)}")
    found = getattr(module, spec.class_name, None)
    if not isinstance(found, type):
        raise CatalogError(f"{spec.where}: {spec.library} has no class {spec.class_name!r} (model {spec.id})")
    if not issubclass(found, torch.nn.Module) or found.__module__.split(".")[0] != spec.library:
        raise CatalogError(f"{spec.where}: model {spec.id}: {spec.class_name!r} is not a model class of {spec.library} (a torch.nn.Module subclass)")
    return found


def config_class(spec: ModelSpec) -> type:
    """The transformers configuration class of *spec*: on :data:`rules.CONFIG_CLASSES` and a ``PretrainedConfig``."""
    problem = rules.config_class_problem(spec.config_class)
    if problem is not None:
        raise CatalogError(f"{spec.where}: model {spec.id}: {problem}, not {spec.config_class!r}")
    transformers = importlib.import_module("transformers")
    found = getattr(transformers, spec.config_class, None)
    if not isinstance(found, type) or not issubclass(found, transformers.PretrainedConfig):
        raise CatalogError(f"{spec.where}: model {spec.id}: transformers has no configuration class {spec.config_class!r}")
    return found


def plain_config(spec: ModelSpec) -> dict[str, Any]:
    """*spec*'s config as keyword arguments, once more checked to be plain data without a loading key."""
    config = spec.config_dict()
    problem = rules.config_value_problem(config, ("config",))
    if problem is not None:
        raise CatalogError(f"{spec.where}: model {spec.id}: {problem}")
    return config


def build_meta(spec: ModelSpec, dtype: torch.dtype | None = None) -> torch.nn.Module:
    """*spec*'s model with every parameter on ``meta`` (shapes and dtypes only), in eval mode."""
    return build_on(spec, "meta", dtype)


def build_on(spec: ModelSpec, device: str, dtype: torch.dtype | None = None) -> torch.nn.Module:
    """*spec*'s model made directly on *device* (random weights there; shapes only on ``meta``), in eval mode."""
    import torch

    cls = upstream_class(spec)
    config = plain_config(spec)
    config_cls = config_class(spec) if spec.library == "transformers" else None
    quiet = [logging.getLogger(name) for name in ("diffusers", "transformers")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), torch.device(device):
            warnings.simplefilter("ignore")
            model = cls(config_cls(**config)) if config_cls is not None else cls(**config)
            if dtype is not None:
                model = model.to(dtype)
    except Exception as error:  # whatever the upstream class raises (KeyboardInterrupt and SystemExit are not Exceptions)
        raise CatalogError(f"{spec.where}: model {spec.id}: {spec.class_name} cannot be built from this config: {_reason(error)}") from None
    finally:
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)
    return model.eval()


def _reason(error: Exception) -> str:
    """What an upstream class said when it refused a config: the error's kind and first two lines, cut to 200 characters."""
    lines = str(error).strip().splitlines()
    first = " ".join(line.strip() for line in lines[:2]) if lines else ""
    text = f"{type(error).__name__}: {first}" if first else type(error).__name__
    return text if len(text) <= 200 else text[:197] + "..."


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
