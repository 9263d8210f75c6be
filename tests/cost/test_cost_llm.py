"""Decoder-only LLMs in ``infralens cost``: the published counts, the shape walk against a real counted forward, the report.

The four models are built from ``costs/models.yaml`` on the meta device. Their parameter counts and bf16 KV bytes per
token are held to the figures the model authors publish (issue 44). The FLOPs and KV bytes that
:mod:`infralens.cost.decoder` reads off the module shapes are checked against transformers' own forward run on meta
tensors under ``torch.utils.flop_counter`` with a real ``DynamicCache``: a prefill, then one decode step.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path

import pytest

from infralens.cli import main

LLMS = ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-7b", "mistral-7b")
PUBLISHED_PARAMS = {"llama-3.1-8b": 8_030_261_248, "llama-3.1-70b": 70_553_706_496, "qwen2.5-7b": 7_615_616_512, "mistral-7b": 7_241_732_096}
"""The model cards' and config files' counts (issue 44), written here independently of the catalog."""
PUBLISHED_KV_BF16 = {"llama-3.1-8b": 131_072, "llama-3.1-70b": 327_680, "qwen2.5-7b": 57_344}


@pytest.fixture(scope="module")
def llm_report(tmp_path_factory):
    """``infralens cost LLMS --format json`` as a user runs it, read back as JSON."""
    out = tmp_path_factory.mktemp("llm") / "cost.json"
    assert main(["cost", *LLMS, "--format", "json", "--output", str(out)]) == 0
    return json.loads(out.read_text("utf-8"))


def _meta(catalog, model_id: str, **config_changes):
    import torch

    from infralens.cost.build import build_meta

    spec = catalog.model(model_id)
    if config_changes:
        spec = dataclasses.replace(spec, config=tuple({**dict(spec.config), **config_changes}.items()))
    return build_meta(spec, torch.bfloat16)


@pytest.mark.parametrize("model_id", LLMS)
def test_the_json_report_has_the_published_params_and_kv_bytes(llm_report, model_id):
    model = llm_report["models"][model_id]
    assert model["params"] == PUBLISHED_PARAMS[model_id] == model["published_params"]
    decoder = model["decoder"]
    expected_kv = PUBLISHED_KV_BF16.get(model_id, 2 * decoder["layers"] * decoder["kv_heads"] * decoder["head_dim"] * 2)
    assert model["kv_bytes_per_token"] == expected_kv
    assert model["bytes"]["bf16"] == 2 * PUBLISHED_PARAMS[model_id]


def test_mistral_keeps_a_sliding_window_and_the_others_do_not(llm_report):
    decoders = {model_id: llm_report["models"][model_id]["decoder"] for model_id in LLMS}
    assert decoders["mistral-7b"]["sliding_window"] == 4096 and decoders["mistral-7b"]["sliding_layers"] == 32
    assert decoders["mistral-7b"]["kv_bytes_per_request"]["32768"] == 4096 * 131_072, "the cache holds the window, not the context"
    assert all("sliding_window" not in decoders[m] and decoders[m]["sliding_layers"] == 0 for m in LLMS if m != "mistral-7b")
    assert "131072" not in decoders["mistral-7b"]["kv_bytes_per_request"], "a context beyond max_position_embeddings is left out"


def test_the_decode_bound_is_bandwidth_over_the_bytes_a_step_reads(llm_report, catalog):
    """Bytes read at batch 1: every parameter but the input embedding table in bf16, one embedding row, the cache."""
    model = _meta(catalog, "llama-3.1-8b")
    weights = sum(2 * p.numel() for name, p in model.named_parameters() if "embed_tokens" not in name)
    decoder = llm_report["models"]["llama-3.1-8b"]["decoder"]
    step = decoder["decode"]["1x4096"]
    assert step["bytes_read"] == weights + 2 * 4096 + 4096 * 131_072
    hbm = llm_report["cost"]["hbm"]
    assert step["bound_tokens_per_s"]["H200"] == pytest.approx(hbm["H200"] / step["bytes_read"], abs=0.05)
    batched = decoder["decode"]["16x4096"]
    assert batched["bound_tokens_per_s"]["H200"] > step["bound_tokens_per_s"]["H200"] * 10, "a batch shares one read of the weights"


def test_tokens_that_fit_leave_the_weights_room(llm_report):
    fits = llm_report["models"]["llama-3.1-70b"]["decoder"]["fits"]
    assert fits["bf16@80"]["tokens"] == 0, "70B in bf16 (131 GiB) does not fit an 80 GiB card"
    left = 141 * 2**30 - fits["bf16@141"]["weight_bytes"]
    assert fits["bf16@141"]["tokens"] == left // 327_680 > 0
    assert fits["nf4-bnb@80"]["tokens"] > fits["int8-torchao@80"]["tokens"] > 0


@pytest.mark.parametrize("model_id", ["llama-3.1-8b", "qwen2.5-7b"])
def test_shape_flops_and_kv_equal_a_counted_forward_with_a_real_cache(catalog, model_id):
    """Prefill then one decode step through transformers' forward on meta tensors, under the FLOP counter."""
    import torch
    from transformers import DynamicCache

    from infralens.cost.counting import count_forward
    from infralens.cost.decoder import shape_of

    model = _meta(catalog, model_id)
    shape = shape_of(model)
    tokens = 40
    cache = DynamicCache(config=model.config)
    prompt = torch.zeros(1, tokens, dtype=torch.long, device="meta")
    prefill = count_forward(lambda: model(input_ids=prompt, cache=cache, use_cache=True, logits_to_keep=1), memory=False)
    assert prefill.flops - prefill.attention_flops == 2 * tokens * shape.body_macs + 2 * shape.head_macs
    assert prefill.attention_flops == tokens * tokens * shape.attention_flops_per_key, "the fused kernel's formula counts every key"
    one = torch.zeros(1, 1, dtype=torch.long, device="meta")
    decode = count_forward(lambda: model(input_ids=one, cache=cache, use_cache=True, logits_to_keep=1), memory=False)
    assert decode.flops == shape.decode_flops(tokens + 1)
    held = sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers)
    assert held == shape.kv_bytes(tokens + 1) == (tokens + 1) * shape.kv_bytes_per_token()


def test_a_sliding_window_caps_the_cache_and_the_attended_keys(catalog):
    """Mistral with a 16-token window: after 40 tokens a decode step attends to 16 keys, and the cache stops growing."""
    import torch
    from transformers import DynamicCache

    from infralens.cost.counting import count_forward
    from infralens.cost.decoder import shape_of

    model = _meta(catalog, "mistral-7b", sliding_window=16)
    shape = shape_of(model)
    assert set(shape.windows) == {16}
    cache = DynamicCache(config=model.config)
    model(input_ids=torch.zeros(1, 40, dtype=torch.long, device="meta"), cache=cache, use_cache=True, logits_to_keep=1)
    decode = count_forward(
        lambda: model(input_ids=torch.zeros(1, 1, dtype=torch.long, device="meta"), cache=cache, use_cache=True, logits_to_keep=1),
        memory=False,
    )
    assert decode.flops == shape.decode_flops(41) == shape.decode_flops(16) > shape.decode_flops(15)
    held = sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers)
    assert held == 15 * shape.kv_bytes_per_token(), "the dynamic sliding layer keeps window - 1 tokens between steps"
    assert shape.kv_bytes(41) == 16 * shape.kv_bytes_per_token(), "the report counts the window a static sliding layer allocates"


def test_prefill_is_causal_and_grows_quadratically(catalog):
    from infralens.cost.decoder import shape_of

    shape = shape_of(_meta(catalog, "llama-3.1-8b"))
    attention = shape.prefill_flops(4096) - 2 * 4096 * shape.body_macs - 2 * shape.head_macs
    assert attention == shape.attention_flops_per_key * 4096 * 4097 // 2


def test_the_text_report_shows_the_decoder_tables(capsys):
    assert main(["cost", "qwen2.5-7b", "--context", "1024"]) == 0
    out = capsys.readouterr().out
    assert "Decoders: KV cache in bf16" in out and "57,344" in out and "1024 tok" in out
    assert "bandwidth bound" in out and "H200 4.8 TB/s" in out


def _planted(folder: Path, body: str) -> Path:
    path = folder / "models.yaml"
    path.write_text("models:\n  planted:\n" + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    "), "utf-8")
    return path


LLAMA = "library: transformers\nkind: decoder\nsource: s\nconfig: {hidden_size: 64}\n"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (LLAMA + "class: LlamaForCausalLM\nconfig_class: AutoConfig", "'config_class' must be one of"),
        (LLAMA + "class: LlamaForCausalLM\nconfig_class: PretrainedConfig", "'config_class' must be one of"),
        (LLAMA + "class: pipeline\nconfig_class: LlamaConfig", "has no class 'pipeline'"),
        (LLAMA + "class: AutoModelForCausalLM\nconfig_class: LlamaConfig", "is not a model class of transformers"),
        (LLAMA + "class: os.system\nconfig_class: LlamaConfig", "plain name of a model class"),
        (
            "library: transformers\nkind: decoder\nsource: s\nclass: LlamaForCausalLM\nconfig_class: LlamaConfig\n"
            "config: {hidden_act: \"__import__('os').system('true')\"}",
            "never a path, address or sentence",
        ),
        (
            "library: transformers\nkind: decoder\nsource: s\nclass: LlamaForCausalLM\nconfig_class: LlamaConfig\nconfig: {trust_remote_code: true}",
            "would load code",
        ),
        (
            (
                "library: transformers\nkind: decoder\nsource: s\nclass: CLIPTextModel\n"
                "config_class: CLIPTextConfig\nconfig: {hidden_size: 64, num_hidden_layers: 1}"
            ),
            "kind 'decoder' is for causal language models",
        ),
    ],
    ids=["auto-config", "base-config", "a-function", "auto-model", "dotted", "code-as-text", "remote-code", "not-a-decoder"],
)
def test_a_catalog_naming_a_class_off_the_list_or_holding_code_is_refused_at_its_line(tmp_path, monkeypatch, capsys, body, says):
    path = _planted(tmp_path, body)
    monkeypatch.chdir(tmp_path)
    assert main(["cost", "--catalog", str(path), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2:" in err and says in err and "Traceback" not in err


def test_a_yaml_tag_that_would_build_a_python_object_is_refused(tmp_path, capsys):
    path = tmp_path / "models.yaml"
    path.write_text("models:\n  planted: !!python/object/apply:os.system ['true']\n", "utf-8")
    assert main(["cost", "--catalog", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2:" in err and "Traceback" not in err
