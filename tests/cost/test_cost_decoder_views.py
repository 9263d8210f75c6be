"""The site's LLM cost views (``{infralens-cost} kv`` and ``decode``): every cell is the report's figure, the bound is
shown as a bound and recomputes from the stated bandwidths, the figures' text is text, and a report without the
decoder figures is a clear error (which the directive turns into a warning naming ``make cost``)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from drawing_runs import drawn_in_two_processes

pytest.importorskip("matplotlib")

from infralens.reports import load_cost_report
from infralens.sphinx import cost_views as views

ROOT = Path(__file__).resolve().parents[2]
GIB = 2**30
DECODERS = ["llama-3.1-8b", "llama-3.1-70b", "qwen2.5-7b", "mistral-7b"]
PUBLISHED_KV = {"llama-3.1-8b": 131_072, "llama-3.1-70b": 327_680, "qwen2.5-7b": 57_344}
"""KV bytes per token in bf16 that issue 44 states (2 × layers × KV heads × head dim × 2)."""


@pytest.fixture(scope="module")
def report():
    return load_cost_report(ROOT / "reports" / "cost.json")


def _tables(view) -> list[views.Table]:
    return [b for b in view.blocks if isinstance(b, views.Table)]


def _texts(svg: str) -> list[str]:
    return [t.strip() for t in re.findall(r"<(?:text|tspan)\b[^>]*>([^<]*)<", svg) if t.strip()]


def test_the_kv_view_gives_each_models_cache_per_token_and_per_request(report):
    shape, _ = _tables(views.kv_view(report, DECODERS))
    rows = {row[0]: row for row in shape.rows}
    assert sorted(rows) == sorted(DECODERS)
    for model_id, per_token in PUBLISHED_KV.items():
        assert rows[model_id][2].startswith(f"{per_token:,} B"), rows[model_id]
    contexts = [int(h.split(" at ")[1].split()[0].replace(",", "")) for h in shape.header[4:]]
    assert contexts == sorted(contexts) and contexts
    for model_id in DECODERS:
        decoder = report.model(model_id).decoder
        assert rows[model_id][1] == f"{decoder.layers} × {decoder.kv_heads} × {decoder.head_dim}"
        for cell, context in zip(rows[model_id][4:], contexts, strict=True):
            held = decoder.kv_bytes_per_request.get(str(context))
            assert cell == (f"{held / GIB:.2f} GiB" if held is not None else "beyond its context"), (model_id, context)
    assert rows["mistral-7b"][3].startswith(f"{report.model('mistral-7b').decoder.sliding_window} tokens on")
    assert rows["llama-3.1-8b"][3] == "none"


def test_the_kv_view_gives_the_tokens_that_fit_each_card_after_the_weights(report):
    view = views.kv_view(report, DECODERS)
    _, fits = _tables(view)
    cards = [int(h.split()[0]) for h in fits.header[3:]]
    assert cards == [16, 24, 48, 80, 141]
    by_row = {(row[0], row[1]): row[3:] for row in fits.rows}
    for model_id in DECODERS:
        for fit in report.model(model_id).decoder.fits:
            cell = by_row[(model_id, fit.weight_format)][cards.index(fit.card_gib)]
            assert cell == (f"{fit.tokens / 1000:,.1f}k" if fit.tokens else "0 (weights do not fit)"), (model_id, fit)
            assert fit.tokens == max(fit.card_gib * GIB - fit.weight_bytes, 0) // report.model(model_id).kv_bytes_per_token
    assert by_row[("llama-3.1-70b", "bf16")][:4] == ["0 (weights do not fit)"] * 4  # 131 GiB of weights
    texts = _texts(view.svg)
    assert "weights do not fit" in texts and "141 GiB" in texts and "4,096 tokens" in texts
    assert f"{report.model('llama-3.1-8b').decoder.kv_bytes_per_request['131072'] / GIB:.2f}" in texts


def test_the_decode_view_gives_prefill_and_decode_flops(report):
    flops, _ = _tables(views.decode_view(report, ["llama-3.1-8b", "mistral-7b"]))
    rows = {row[0]: row for row in flops.rows}
    prompts = [h.split()[1].replace(",", "") for h in flops.header if h.startswith("prefill ")]
    contexts = [h.split(" at ")[1].replace(",", "") for h in flops.header if h.startswith("decode ")]
    for model_id in ("llama-3.1-8b", "mistral-7b"):
        decoder = report.model(model_id).decoder
        cells = rows[model_id][1:]
        assert cells[: len(prompts)] == [views.tflop(decoder.prefill_flops[p]) if p in decoder.prefill_flops else "—" for p in prompts]
        assert cells[len(prompts) :] == [
            f"{decoder.decode_flops_per_token[c] / 1e9:.1f} GFLOP" if c in decoder.decode_flops_per_token else "—" for c in contexts
        ]
    assert rows["mistral-7b"][-1] == "—"  # 131,072 tokens is beyond Mistral-7B's 32,768 positions


def test_the_decode_view_shows_the_bandwidth_bound_as_a_bound_and_it_recomputes(report):
    view = views.decode_view(report, ["llama-3.1-8b", "llama-3.1-70b"])
    _, steps = _tables(view)
    memories = [h.removeprefix("tokens/s bound, ") for h in steps.header[6:]]
    assert memories == list(report.hbm) and memories
    rows = iter(steps.rows)
    for model_id in ("llama-3.1-8b", "llama-3.1-70b"):
        for step in report.model(model_id).decoder.decode:
            row = next(rows)
            assert row[:2] == [model_id, f"{step.batch} × {step.context:,}"]
            assert row[2:5] == [f"{(step.bytes_read - step.kv_bytes) / GIB:.2f} GiB", f"{step.kv_bytes / GIB:.2f} GiB", f"{step.bytes_read / GIB:.2f} GiB"]
            assert row[5] == f"{step.flops / step.bytes_read:.2f}"
            for cell, memory in zip(row[6:], memories, strict=True):
                bound = step.batch * report.hbm[memory] / step.bytes_read
                assert abs(step.bound_tokens_per_s[memory] - bound) <= 0.05 + 1e-9, (model_id, step.batch, step.context, memory)
                assert cell == f"≤ {step.bound_tokens_per_s[memory]:,.0f}"
    assert next(rows, None) is None
    prose = " ".join(b for b in view.blocks if isinstance(b, str))
    assert "upper bound" in prose and "Stated HBM bandwidths" in prose and "3.35 TB/s" in prose
    texts = _texts(view.svg)
    assert "upper bound: batch × bandwidth ÷ bytes read" in texts and "KV cache" in texts and "H200" in texts


def test_a_report_without_the_decoder_figures_is_a_clear_error(report):
    old = dataclasses.replace(report.model("llama-3.1-8b"), decoder=None)
    stale = dataclasses.replace(report, models=tuple(old if m.id == old.id else m for m in report.models))
    for view in (views.kv_view, views.decode_view):
        with pytest.raises(KeyError, match=r"llama-3\.1-8b has no decoder figures"):
            view(stale, ["llama-3.1-8b"])
    with pytest.raises(KeyError, match="no HBM bandwidths"):
        views.decode_view(dataclasses.replace(report, hbm={}), ["qwen2.5-7b"])
    with pytest.raises(KeyError):
        views.kv_view(report, ["no-such-model"])


def test_a_hostile_model_id_stays_text_in_the_figures(report):
    hostile = "<script>alert(1)</script>&\"x'"
    model = dataclasses.replace(report.model("qwen2.5-7b"), id=hostile)
    tampered = dataclasses.replace(report, models=(*report.models, model))
    for view in (views.kv_view(tampered, [hostile]), views.decode_view(tampered, [hostile])):
        assert "<script" not in view.svg and "&lt;script&gt;alert(1)&lt;/script&gt;&amp;" in view.svg
        assert _tables(view)[0].rows[0][0] == hostile  # a docutils text node: escaped on output


def test_drawing_the_llm_views_imports_no_model_code_and_repeats_byte_for_byte():
    first, second = drawn_in_two_processes(f"v.kv_view(r, {DECODERS!r}).svg + v.decode_view(r, {DECODERS!r}).svg")
    assert first == second
    assert first.splitlines()[1] == "[]"
