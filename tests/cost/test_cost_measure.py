"""``cost --measure``: the measuring loop on a tiny catalog (CPU, fake counters), its records in the report and text.

The loop itself runs for real on CUDA in ``test_cost_report.py::test_measure_cuda_on_a_gpu``; here the same code
builds every kind of model on the CPU with random weights and runs each on random inputs, so a shape or input
mistake fails without a GPU.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("diffusers")

TINY = """\
models:
  tiny-unet:
    library: diffusers
    class: UNet2DConditionModel
    kind: unet
    source: a tiny config written for this test
    config:
      sample_size: 8
      in_channels: 4
      out_channels: 4
      block_out_channels: [32, 64]
      down_block_types: [CrossAttnDownBlock2D, DownBlock2D]
      up_block_types: [UpBlock2D, CrossAttnUpBlock2D]
      layers_per_block: 1
      attention_head_dim: 8
      cross_attention_dim: 32
      norm_num_groups: 32
  tiny-vae:
    library: diffusers
    class: AutoencoderKL
    kind: vae
    source: a tiny config written for this test
    config:
      block_out_channels: [32]
      down_block_types: [DownEncoderBlock2D]
      up_block_types: [UpDecoderBlock2D]
      latent_channels: 4
      norm_num_groups: 32
  tiny-text:
    library: transformers
    class: CLIPTextModel
    config_class: CLIPTextConfig
    kind: text
    source: a tiny config written for this test
    sequence: 8
    config:
      vocab_size: 100
      hidden_size: 32
      intermediate_size: 64
      num_attention_heads: 4
      num_hidden_layers: 1
      max_position_embeddings: 8
  tiny-flux:
    library: diffusers
    class: FluxTransformer2DModel
    kind: flux
    source: a tiny config written for this test
    config:
      patch_size: 1
      in_channels: 16
      num_layers: 1
      num_single_layers: 1
      attention_head_dim: 16
      num_attention_heads: 2
      joint_attention_dim: 32
      pooled_projection_dim: 32
      guidance_embeds: true
      axes_dims_rope: [4, 6, 6]
"""


class CountingMemory:
    """Counters that move the way an allocator's do: each call to ``allocated`` reports more than the last."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.level = 0

    def allocated(self) -> int:
        self.calls.append("allocated")
        self.level += 1000
        return self.level

    def reset_peak(self) -> None:
        self.calls.append("reset_peak")

    def peak(self) -> int:
        self.calls.append("peak")
        return self.level + 500

    def release(self) -> None:
        self.calls.append("release")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from infralens.cost import Request, compute_report, load_catalog

    path = tmp_path_factory.mktemp("catalog") / "models.yaml"
    path.write_text(TINY)
    catalog = load_catalog(path)
    report = compute_report(catalog, Request(models=(), resolutions=((64, 64),), batch=1), "not measured")
    return catalog, report


def test_every_kind_of_model_is_built_and_run_on_a_real_device(tiny):
    from infralens.cost.measure import measure_models

    catalog, report = tiny
    memory = CountingMemory()
    records = measure_models(catalog, report, "cpu", memory)
    assert [(r.model, r.resolution) for r in records] == [("tiny-unet", "64x64"), ("tiny-vae", "64x64"), ("tiny-text", "prompt"), ("tiny-flux", "64x64")]
    for record in records:
        predicted = report.model(record.model)
        assert predicted is not None
        assert record.predicted_weight_bytes == predicted.bytes["bf16"] > 0
        assert record.predicted_activation_bytes == predicted.activations[record.resolution] > 0
        assert record.weight_bytes == 1000 and record.activation_bytes == 500
    assert memory.calls.count("release") == 4 and memory.calls.count("reset_peak") == 4


def test_measured_records_round_trip_through_the_schema_and_show_in_the_text(tiny):
    from infralens.cost import render_text
    from infralens.cost.measure import CudaMeasurement, measure_models
    from infralens.reports import cost_report_from_json, cost_report_to_json, validate_cost_report

    catalog, report = tiny
    found = measure_models(catalog, report, "cpu", CountingMemory())
    records = tuple(replace(r, weight_bytes=r.predicted_weight_bytes, activation_bytes=2 * r.predicted_activation_bytes) for r in found)
    measurement = CudaMeasurement("Fake GPU", "2.x", records)
    assert "4 models at 4 sizes; weights 1.00× of the prediction, forward activation peak 2.00× of the prediction" in measurement.describe()
    measured = replace(report, cuda=measurement.describe(), measured=records)
    data = json.loads(json.dumps(cost_report_to_json(measured)))
    assert validate_cost_report(data) is None
    assert set(data["measured"]) == {"tiny-unet@64x64", "tiny-vae@64x64", "tiny-text@prompt", "tiny-flux@64x64"}
    assert cost_report_from_json(data).measured == records
    text = render_text(measured)
    assert "act GiB (predicted)" in text and "2.00×" in text


def test_a_report_without_measurements_still_loads(tiny):
    from infralens.reports import cost_report_from_json, cost_report_to_json

    _, report = tiny
    data = cost_report_to_json(report)
    data.pop("measured", None)
    assert cost_report_from_json(data).measured == ()


def test_the_committed_cuda_report_when_there_is_one_is_valid():
    from infralens.reports import load_cost_report

    path = Path(__file__).resolve().parents[2] / "reports" / "cost-cuda.json"
    if not path.exists():
        pytest.skip("no CUDA cost report committed")
    report = load_cost_report(path)
    assert report.measured and report.cuda.startswith("measured on")
