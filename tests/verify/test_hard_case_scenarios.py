"""The scenario variants of issue 29 run the hard case their annotation steps claim: batch > 1, several images per
prompt, height != width, a finite ``lambda_min_clipped``.

Each test runs one project scenario on the CPU with a wrapper around the upstream method the annotated steps live
in, and checks the arguments that method really saw, so a later edit that quietly pins the easy case fails here.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from _device import requires_torch
from verify_helpers import REPO_SCENARIOS

from infralens.scenarios import discover_scenarios
from infralens.verify.trace.context import ScenarioContext

pytestmark = [requires_torch]


def _run(name: str) -> ScenarioContext:
    context = ScenarioContext("cpu")
    discover_scenarios(REPO_SCENARIOS).spec(name).load()(context)
    return context


def _record(monkeypatch: pytest.MonkeyPatch, owner: type, attribute: str, calls: list[Any], keep=lambda args, kwargs, result: (args, kwargs)) -> None:
    """Replace ``owner.attribute`` by a wrapper that appends ``keep(args, kwargs, result)`` to *calls* for every call."""
    raw = owner.__dict__[attribute]
    static = isinstance(raw, staticmethod)
    original = raw.__func__ if static else raw

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(keep(args, kwargs, result))
        return result

    monkeypatch.setattr(owner, attribute, staticmethod(wrapper) if static else wrapper)


def test_tiny_sdxl_batch_runs_two_prompts_two_images_non_square_and_distinct_negative_ids(monkeypatch):
    from diffusers import StableDiffusionXLPipeline

    calls: list[Any] = []
    _record(monkeypatch, StableDiffusionXLPipeline, "_get_add_time_ids", calls, keep=lambda args, kwargs, result: result[0].tolist())
    context = _run("tiny-sdxl-batch")
    assert calls == [[24.0, 20.0, 2.0, 3.0, 16.0, 24.0], [4.0, 4.0, 0.0, 0.0, 8.0, 6.0]]  # positive (target = (height, width)), then negative
    assert "time_ids" in context.facts


def test_tiny_flux_wide_packs_a_non_square_grid_for_two_prompts(monkeypatch):
    from diffusers import FluxPipeline

    grids: list[Any] = []
    _record(monkeypatch, FluxPipeline, "_prepare_latent_image_ids", grids, keep=lambda args, kwargs, result: (args[0], args[1], args[2], tuple(result.shape)))
    packed: list[Any] = []
    _record(monkeypatch, FluxPipeline, "_pack_latents", packed, keep=lambda args, kwargs, result: tuple(result.shape))
    _run("tiny-flux-wide")
    assert grids == [(2, 8, 16, (128, 3))]  # batch 2, packed grid 8 high and 16 wide
    assert packed == [(2, 128, 4)]


def test_tiny_sd_batch_wide_draws_latents_for_six_non_square_images(monkeypatch):
    from diffusers import StableDiffusionPipeline

    calls: list[Any] = []
    _record(monkeypatch, StableDiffusionPipeline, "prepare_latents", calls, keep=lambda args, kwargs, result: (args[1], args[3], args[4], tuple(result.shape)))
    _run("tiny-sd-batch-wide")
    assert calls == [(6, 32, 48, (6, 4, 16, 24))]


def test_dpm_solver_sets_a_finite_lambda_min_clipped_that_clips(monkeypatch):
    from diffusers.schedulers.scheduling_dpmsolver_multistep import DPMSolverMultistepScheduler

    calls: list[Any] = []
    _record(
        monkeypatch,
        DPMSolverMultistepScheduler,
        "set_timesteps",
        calls,
        keep=lambda args, kwargs, result: (args[0].config.lambda_min_clipped, int(args[0].timesteps[0])),
    )
    _run("dpm-solver")
    clipped = [(bound, first) for bound, first in calls if bound != float("-inf")]
    assert clipped and all(first < 999 for _, first in clipped)
    assert any(first == 999 for bound, first in calls if bound == float("-inf"))


def test_ip_adapter_per_prompt_repeats_the_image_embeddings_for_two_images(monkeypatch):
    from diffusers import StableDiffusionPipeline

    calls: list[Any] = []
    _record(
        monkeypatch,
        StableDiffusionPipeline,
        "prepare_ip_adapter_image_embeds",
        calls,
        keep=lambda args, kwargs, result: (args[4], [tuple(embeds.shape) for embeds in result]),
    )
    _run("ip-adapter-per-prompt")
    assert calls == [(2, [(4, 1, 16)])]  # two images per prompt, negative and positive halves under CFG
