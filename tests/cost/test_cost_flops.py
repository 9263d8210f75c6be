"""FLOPs on the meta device: one Flux double block against a closed form, and a whole 1024² step."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("diffusers")


def closed_form_double_block(image_tokens: int, text_tokens: int, dim: int) -> int:
    """FLOPs (multiply-add = 2) of one FluxTransformerBlock at batch 1, derived by hand.

    Per stream of N tokens: Q, K, V and the output projection are four N×D by D×D products (8·N·D²); the
    feed-forward goes D → 4D → D (16·N·D²). Each stream's AdaLN turns the one conditioning vector into six
    modulation vectors (2·D·6D). Joint attention over L = N_image + N_text tokens: QKᵀ and the weighted sum
    of values are 2·L²·D each (all heads together).
    """
    tokens = image_tokens + text_tokens
    projections = 24 * tokens * dim * dim
    modulation = 2 * (2 * dim * 6 * dim)
    attention = 4 * tokens * tokens * dim
    return projections + modulation + attention


def test_one_double_block_matches_the_closed_form():
    from diffusers.models.transformers.transformer_flux import FluxTransformerBlock

    from infralens.cost.counting import count_forward

    dim, heads, image, text = 3072, 24, 1024, 512
    with torch.device("meta"):
        block = FluxTransformerBlock(dim=dim, num_attention_heads=heads, attention_head_dim=dim // heads).to(torch.bfloat16)
        hidden = torch.empty(1, image, dim, dtype=torch.bfloat16)
        context = torch.empty(1, text, dim, dtype=torch.bfloat16)
        temb = torch.empty(1, dim, dtype=torch.bfloat16)
    counted = count_forward(lambda: block(hidden, context, temb))
    assert counted.flops == closed_form_double_block(image, text, dim)
    assert counted.attention_flops == 4 * (image + text) ** 2 * dim


def test_flux_dev_step_at_1024(catalog):
    from infralens.cost.build import build_meta
    from infralens.cost.counting import count_forward
    from infralens.cost.inputs import forward_call

    spec = catalog.model("flux1-dev-transformer")
    model = build_meta(spec, torch.bfloat16)
    counted = count_forward(forward_call(spec, model, 1024, 1024, 1))
    assert 6.5e13 <= counted.flops <= 8.5e13
    assert 0 < counted.attention_flops < counted.flops


def test_live_tensor_peak_is_exact():
    from infralens.cost.counting import count_forward

    a = torch.empty(1024, 1024, dtype=torch.bfloat16, device="meta")

    def run():
        first = a + 1  # 2 MiB live
        second = first * 2  # 4 MiB live: the peak
        del first
        third = second - 1  # first was freed: 4 MiB again
        return third.sum()  # plus the 2-byte scalar while second and third are alive

    counted = count_forward(run)
    assert counted.peak_activation_bytes == 2 * (1024 * 1024 * 2) + 2
