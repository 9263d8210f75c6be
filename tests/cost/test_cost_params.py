"""Parameter counts of the published configs, built on the meta device, against the published figures."""

from __future__ import annotations

import pytest

pytest.importorskip("diffusers")
pytest.importorskip("transformers")

PUBLISHED = {
    "sd15-unet": 859_520_964,
    "sd-vae": 83_653_863,
    "clip-l-text": 123_060_480,
    "sdxl-unet": 2_567_463_684,
    "sdxl-text-2": 694_659_840,
    "flux1-dev-transformer": 11_901_408_320,
    "t5-xxl-encoder": 4_762_310_656,
    "diffsynth-sd-unet": 859_520_964,
    "diffsynth-flux-dit": 11_901_408_320,
}


@pytest.mark.parametrize("model_id", sorted(PUBLISHED))
def test_parameter_count_equals_the_published_figure(catalog, model_id):
    import torch

    from infralens.cost.build import build_meta
    from infralens.cost.formats import breakdown

    model = build_meta(catalog.model(model_id))
    assert all(p.device == torch.device("meta") for p in model.parameters())
    parts = breakdown(model)
    assert parts.total == PUBLISHED[model_id]
    assert sum(count for _, count in parts.by_kind) == parts.total
    assert sum(count for _, count in parts.by_child) == parts.total


def test_the_catalog_records_the_same_figures(catalog):
    for model_id, count in PUBLISHED.items():
        assert catalog.model(model_id).published_params == count


def test_components_are_split_by_kind(catalog):
    from infralens.cost.build import build_meta
    from infralens.cost.formats import breakdown, kind_of

    kinds = dict(breakdown(build_meta(catalog.model("flux1-dev-transformer"))).by_kind)
    assert kinds["attention"] > 0 and kinds["mlp"] > 0 and kinds["norm"] > 0 and kinds["embeddings"] > 0
    assert kind_of("transformer_blocks.0.attn.norm_q.weight") == "norm"
    assert kind_of("transformer_blocks.0.attn.to_q.weight") == "attention"
    assert kind_of("transformer_blocks.0.ff.net.0.proj.weight") == "mlp"
    assert kind_of("encoder.block.3.layer.1.DenseReluDense.wi_0.weight") == "mlp"
