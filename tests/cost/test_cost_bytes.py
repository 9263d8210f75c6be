"""Bytes per storage format: the rules in infralens.cost.formats against tiny models really quantized on CPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def _tiny() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(64, 128),
        torch.nn.LayerNorm(128),
        torch.nn.Linear(128, 96, bias=False),
        torch.nn.Linear(96, 256),
    ).to(torch.bfloat16)


def _stored_bytes(tensor: torch.Tensor) -> int:
    """Bytes of a tensor, or of the plain tensors inside a quantized tensor subclass."""
    if hasattr(tensor, "__tensor_flatten__") and type(tensor) is not torch.nn.Parameter and type(tensor) is not torch.Tensor:
        names, _ = tensor.__tensor_flatten__()
        return sum(_stored_bytes(getattr(tensor, name)) for name in names)
    return tensor.numel() * tensor.element_size()


def test_torchao_int8_weight_only_matches_the_rule():
    pytest.importorskip("torchao")
    from torchao.quantization import Int8WeightOnlyConfig, quantize_

    from infralens.cost.formats import format_bytes

    model = _tiny()
    predicted = format_bytes(model, "int8-torchao")
    quantize_(model, Int8WeightOnlyConfig())
    assert sum(_stored_bytes(p) for p in model.parameters()) == predicted


def test_quanto_qint8_matches_the_rule():
    pytest.importorskip("optimum.quanto")
    from optimum.quanto import freeze, qint8, quantize

    from infralens.cost.formats import format_bytes

    model = torch.nn.Sequential(torch.nn.Conv2d(4, 8, 3), torch.nn.Flatten(), torch.nn.Linear(8 * 6 * 6, 64), torch.nn.LayerNorm(64)).to(torch.bfloat16)
    predicted = format_bytes(model, "int8-quanto")
    quantize(model, weights=qint8)
    freeze(model)
    assert sum(_stored_bytes(p) for p in model.parameters()) == predicted


@pytest.mark.parametrize("fmt", ["gguf-q8_0", "gguf-q4_0"])
def test_gguf_blocks_match_the_gguf_package(fmt):
    np = pytest.importorskip("numpy")
    gguf = pytest.importorskip("gguf")
    from gguf.quants import quantize

    from infralens.cost.formats import format_bytes, gguf_bytes

    kind = {"gguf-q8_0": gguf.GGMLQuantizationType.Q8_0, "gguf-q4_0": gguf.GGMLQuantizationType.Q4_0}[fmt]
    model = _tiny()
    expected = 0
    for module in model:
        for name, param in module.named_parameters():
            if isinstance(module, torch.nn.Linear) and name == "weight":
                data = param.float().detach().numpy().astype(np.float32)
                real = quantize(data, kind).nbytes
                assert real == gguf_bytes(fmt, *param.shape)
                expected += real
            else:
                expected += param.numel() * 2
    assert format_bytes(model, fmt) == expected


def test_gguf_block_sizes_are_gguf_own():
    gguf = pytest.importorskip("gguf")
    from infralens.cost.formats import GGUF_BLOCKS

    types = {"gguf-q8_0": "Q8_0", "gguf-q4_0": "Q4_0", "gguf-q4_k": "Q4_K"}
    for fmt, name in types.items():
        assert gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[name]] == GGUF_BLOCKS[fmt]


def test_rows_that_do_not_divide_into_blocks_stay_bf16():
    from infralens.cost.formats import gguf_bytes

    assert gguf_bytes("gguf-q4_k", 10, 300) == 10 * 300 * 2
    assert gguf_bytes("gguf-q4_k", 10, 512) == 10 * 2 * 144


def test_nf4_double_quantization_rule():
    from infralens.cost.formats import NF4_TABLES, nf4_bytes

    numel = 4096 * 4096
    blocks = numel // 64
    assert nf4_bytes(numel, double_quant=True) == numel // 2 + blocks + 4 * (blocks // 256) + 4 + NF4_TABLES


def test_fp8_layerwise_casting_keeps_norms_and_skipped_layers_in_bf16():
    pytest.importorskip("diffusers")
    from diffusers import FluxTransformer2DModel

    from infralens.cost.formats import format_bytes, skip_patterns

    with torch.device("meta"):
        model = FluxTransformer2DModel(
            num_layers=1,
            num_single_layers=1,
            attention_head_dim=16,
            num_attention_heads=2,
            joint_attention_dim=32,
            pooled_projection_dim=16,
            axes_dims_rope=[4, 6, 6],
        )
    assert {"norm", "pos_embed", "^proj_out$"} <= set(skip_patterns(model))
    kept = {name for name, _ in model.named_parameters() if "norm" in name or name.startswith("proj_out.")}
    expected = sum(p.numel() * (2 if name in kept else 1) for name, p in model.named_parameters())
    assert format_bytes(model, "fp8-layerwise") == expected
    assert any(p.dtype == torch.float8_e4m3fn for p in model.parameters())


def test_fp16_keeps_t5_wo_in_fp32(catalog):
    from infralens.cost.build import build_meta
    from infralens.cost.formats import format_bytes

    model = build_meta(catalog.model("t5-xxl-encoder"))
    wo = sum(p.numel() for name, p in model.named_parameters() if ".wo." in name)
    total = sum(p.numel() for p in model.parameters())
    assert wo > 0
    assert format_bytes(model, "fp16") == 2 * total + 2 * wo
    assert format_bytes(model, "bf16") == 2 * total
