"""Costs as decisions (``infralens.cost.decisions``): pipeline totals against card sizes, offload per image in seconds,
and what each storage format assumes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from infralens.cost import CARDS_GIB, LINKS, DecisionError, components, offload_images, one_at_a_time_peak, pipeline_peak, pipeline_weights
from infralens.cost.decisions import fits, largest_resolution, seconds, smallest_card, stage_activations
from infralens.cost.formats import FORMATS, LAYERWISE_SKIPPED, NF4_CODE, bits_per_weight, format_rule, nf4_bytes
from infralens.reports import load_cost_report

ROOT = Path(__file__).resolve().parents[2]
GIB = 2**30


@pytest.fixture(scope="module")
def report():
    return load_cost_report(ROOT / "reports" / "cost.json")


def test_a_pipeline_is_the_catalogs_components(report, catalog):
    assert catalog.pipelines, "the catalog has no pipeline"
    for spec in catalog.pipelines:
        assert components(report, spec.id) == (("denoiser", spec.denoiser), *(("text encoder", t) for t in spec.text_encoders), ("VAE", spec.vae))


def test_pipeline_weights_add_every_component_and_match_what_model_offload_moves(report):
    """Two roads to the same bytes: the sum of the models' bf16 bytes, and what compute.py counted for model offload."""
    for record in report.offload:
        model = next(m for m in record.modes if m.mode == "model")
        assert pipeline_weights(report, record.pipeline, "bf16") == model.h2d_per_generation
    flux = pipeline_weights(report, "flux1-dev", "bf16") / GIB
    assert 31.3 < flux < 31.5  # the "about 31.4 GiB": more than a 24 GiB card holds


def test_a_format_map_quantizes_only_the_named_components(report):
    denoiser = report.pipeline("flux1-dev").denoiser
    mixed = pipeline_weights(report, "flux1-dev", {denoiser: "fp8-layerwise"})
    everything = pipeline_weights(report, "flux1-dev", "bf16")
    assert mixed == everything - report.model(denoiser).bytes["bf16"] + report.model(denoiser).bytes["fp8-layerwise"]


def test_the_peak_is_the_weights_plus_the_largest_stage(report):
    stages = stage_activations(report, "sd15", "768x768", batch=4)
    unet, vae = report.model("sd15-unet"), report.model("sd-vae")
    assert stages["sd15-unet"] == 4 * 2 * unet.activations["768x768"]  # both CFG halves of every image
    assert stages["sd-vae"] == 4 * vae.activations["768x768"]
    assert stage_activations(report, "sd15", "768x768", batch=4, sliced=True)["sd-vae"] == vae.activations["768x768"]
    assert pipeline_peak(report, "sd15", "bf16", "768x768", batch=4) == pipeline_weights(report, "sd15", "bf16") + max(stages.values())
    upcast = pipeline_peak(report, "sdxl", "bf16", "1024x1024", vae_bytes_scale=2)
    assert upcast == pipeline_weights(report, "sdxl", "bf16") + 2 * report.model("sd-vae").activations["1024x1024"]


def test_flux_in_bf16_does_not_fit_24_gib_but_model_offload_does(report):
    at = largest_resolution(report, "flux1-dev")
    assert at == "1024x1024"
    whole = pipeline_peak(report, "flux1-dev", "bf16", at)
    assert not fits(whole, 24) and fits(whole, 48) and smallest_card(whole) == 48
    assert smallest_card(one_at_a_time_peak(report, "flux1-dev", "bf16", at)) == 24
    assert smallest_card(100 * GIB) is None and CARDS_GIB == (16, 24, 48, 80)
    assert fits(16 * GIB, 16) and not fits(16 * GIB + 1, 16)


def test_offload_per_image_and_its_bus_time(report):
    modes = {m.mode: m for m in offload_images(report, "flux1-dev")}
    steps = report.pipeline("flux1-dev").steps
    weights = report.model("flux1-dev-transformer").bytes["bf16"]
    assert modes["model"].h2d_per_step == 0 and modes["model"].h2d_per_image == modes["model"].d2h_per_image > 31 * GIB
    assert modes["group-block"].h2d_per_image == steps * modes["group-block"].h2d_per_step
    assert modes["group-block"].d2h_per_image == modes["group-block"].h2d_per_image and modes["group-block-stream"].d2h_per_image == 0
    assert modes["sequential"].h2d_per_image == steps * weights
    pcie4, pcie5 = LINKS
    assert (pcie4.gb_per_s, pcie5.gb_per_s) == (25.0, 50.0) and all(link.gb_per_s < link.raw_gb_per_s for link in LINKS)
    assert modes["model"].seconds(pcie4) == pytest.approx(2 * modes["model"].h2d_per_image / 25e9)
    assert modes["model"].seconds(pcie5) == pytest.approx(modes["model"].seconds(pcie4) / 2)
    assert seconds(50e9, pcie5) == pytest.approx(1.0)


def test_missing_entries_are_decision_errors_naming_the_report(report):
    with pytest.raises(DecisionError, match="no pipeline 'nope'"):
        pipeline_weights(report, "nope", "bf16")
    with pytest.raises(DecisionError, match="no 'q3' bytes"):
        pipeline_weights(report, "sd15", "q3")
    with pytest.raises(DecisionError, match="activation peak"):
        pipeline_peak(report, "sd15", "bf16", "4096x4096")
    empty = dataclasses.replace(report, offload=())
    with pytest.raises(DecisionError, match="offload record"):
        offload_images(empty, "sd15")


# What each format assumes.


def test_nf4_is_counted_with_and_without_double_quantization():
    numel = 3072 * 3072
    blocks = numel // 64
    assert nf4_bytes(numel, double_quant=False) == numel // 2 + 4 * blocks + NF4_CODE
    assert nf4_bytes(numel, double_quant=True) < nf4_bytes(numel, double_quant=False)
    assert (bits_per_weight("nf4-bnb"), round(bits_per_weight("nf4-bnb-dq"), 3)) == (4.5, 4.127)


def test_the_report_holds_both_nf4_variants(report):
    flux = report.model("flux1-dev-transformer")
    assert flux.bytes["nf4-bnb-dq"] < flux.bytes["nf4-bnb"] < flux.bytes["gguf-q4_k"] + GIB // 10


def test_every_format_states_its_bits_and_what_stays_bf16():
    for fmt in FORMATS:
        rule = format_rule(fmt)
        assert "bits" in rule, fmt
    assert "4.5 bits" in format_rule("gguf-q4_k") and "256" in format_rule("gguf-q4_k")
    assert "no double quantization" in format_rule("nf4-bnb") and "double_quant=True" in format_rule("nf4-bnb-dq")
    assert all(pattern.strip("^$") in format_rule("fp8-layerwise") for pattern in LAYERWISE_SKIPPED)
    with pytest.raises(ValueError, match="unknown storage format"):
        format_rule("q3")


def test_the_worded_layerwise_patterns_are_the_installed_ones():
    """The pages word diffusers' skip patterns without importing diffusers; this holds the copy to the release."""
    pytest.importorskip("diffusers")
    from diffusers.hooks.layerwise_casting import DEFAULT_SKIP_MODULES_PATTERN

    assert tuple(DEFAULT_SKIP_MODULES_PATTERN) == LAYERWISE_SKIPPED
