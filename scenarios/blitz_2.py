"""Scenario variants for issue 39 (blitz 2): DiffSynth parent scenarios rerun with every module keeping its last call.

Statements such as ``sample = self.conv_in(sample)`` overwrite their only input, so an expect in that frame has
nothing to recompute the result from. While these variants run, a global forward pre-hook stores each module's
positional inputs on it (``module._blitz_args``; a global hook cannot see keyword arguments) and a global forward hook its
output (``module._blitz_output``); an expect can then redo the layer's arithmetic with plain functions and compare.
The hooks are removed when the parent scenario returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext


@contextmanager
def _keep_calls() -> Iterator[None]:
    def before(module, args) -> None:
        module._blitz_args = tuple(args)

    def after(module, args, output) -> None:
        module._blitz_output = output

    handles = [
        torch.nn.modules.module.register_module_forward_pre_hook(before),
        torch.nn.modules.module.register_module_forward_hook(after),
    ]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def _run(parent: Callable[[ScenarioContext], None], ctx: ScenarioContext) -> None:
    with _keep_calls():
        parent(ctx)


@scenario(
    "blitz2-diffsynth-models",
    "diffsynth-models (SD UNet/VAE, Flux VAE decoder, TileWorker) with every module keeping its last inputs and output",
    process="diffsynth-path",
    imports=("torch", "einops", "diffusers", "peft"),
)
def run_blitz2_diffsynth_models(ctx: ScenarioContext) -> None:
    """The diffsynth-models run, each module's last call kept on it."""
    from .diffsynth_path import run_diffsynth_models

    _run(run_diffsynth_models, ctx)


@scenario(
    "blitz2-diffsynth-flux",
    "diffsynth-flux (model_fn_flux_image on a tiny FluxDiT) with every module keeping its last inputs and output",
    process="diffsynth-full",
    imports=("torch", "transformers", "peft"),
)
def run_blitz2_diffsynth_flux(ctx: ScenarioContext) -> None:
    """The diffsynth-flux run, each module's last call kept on it."""
    from .diffsynth_full import run_diffsynth_flux

    _run(run_diffsynth_flux, ctx)


@scenario(
    "blitz2-diffsynth-ip-adapter",
    "diffsynth-ip-adapter (FluxIpAdapter through the pipeline unit) with every module keeping its last inputs and output",
    process="diffsynth-full",
    imports=("torch", "transformers", "peft", "PIL.Image"),
)
def run_blitz2_diffsynth_ip_adapter(ctx: ScenarioContext) -> None:
    """The diffsynth-ip-adapter run, each module's last call kept on it."""
    from .diffsynth_ip_adapter import run_diffsynth_ip_adapter

    _run(run_diffsynth_ip_adapter, ctx)
