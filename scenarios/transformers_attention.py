"""Attention inside a transformers decoder on tiny random-weight models: masks, RoPE, grouped-query attention and
the eager/sdpa dispatch.

The LLaMA has 6 query heads over 2 key/value heads (3 query heads share each KV head), head dim 16, and runs a
batch of two 7-token prompts, the second left-padded by 3 (4 real tokens). Each run is checked against an oracle
that does not share the code under test: greedy decoding recomputed without a cache, and the other attention
implementation (eager against sdpa must agree on every real position). The Mistral attends through a 3-token
sliding window. Sizes are pairwise distinct where they can be (batch 2, KV heads 2 aside). One direct call of
sdpa's attention function on a single masked sequence passes keys that are the values' negation, so an expect can
compare the keys it repeats with values it has not touched yet.
"""

from __future__ import annotations

from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = (
    "torch",
    "transformers",
    "transformers.masking_utils",
    "transformers.integrations.sdpa_attention",
    "transformers.models.llama.modeling_llama",
    "transformers.models.mistral.modeling_mistral",
)

BATCH, PROMPT, PADDED, NEW = 2, 7, 3, 3
WINDOW = 3
SIZES: dict[str, Any] = dict(
    hidden_size=96,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=6,
    num_key_value_heads=2,
    head_dim=16,
    vocab_size=128,
    max_position_embeddings=256,
    bos_token_id=1,
    eos_token_id=2,
    pad_token_id=0,
)
TOLERANCE = 1e-5
"""Eager and sdpa compute the same softmax in a different order; float32 rounding stays far below this."""


def tiny_llama(device: str, attention: str, seed: int = 210) -> Any:
    """A 2-layer LlamaForCausalLM with grouped-query attention (6 heads over 2 KV heads) and random weights."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    model: Any = LlamaForCausalLM(LlamaConfig(**{**SIZES, "attn_implementation": attention}))
    return model.to(device).eval()


def padded_prompts(ctx: ScenarioContext, padded: int = PADDED, seed: int = 211) -> tuple[torch.Tensor, torch.Tensor]:
    """BATCH prompts of PROMPT ordinary ids (3..127), the last left-padded by ``padded`` pad ids, and their mask."""
    ids = torch.randint(3, SIZES["vocab_size"], (BATCH, PROMPT), generator=ctx.generator(seed))
    mask = torch.ones_like(ids)
    if padded:
        ids[-1, :padded] = SIZES["pad_token_id"]
        mask[-1, :padded] = 0
    return ids.to(ctx.device), mask.to(ctx.device)


def counted_positions(mask: torch.Tensor) -> torch.Tensor:
    """Positions that count real tokens only: a left-padded row starts at 0 on its first real token."""
    return (mask.cumsum(-1) - 1).clamp(min=0)


def greedy_without_cache(model: Any, ids: torch.Tensor, mask: torch.Tensor, new: int) -> torch.Tensor:
    """Greedy decoding with a full forward over the whole sequence per token, no cache and no ``generate``."""
    with torch.no_grad():
        for _ in range(new):
            logits = model(input_ids=ids, attention_mask=mask, position_ids=counted_positions(mask), use_cache=False).logits
            ids = torch.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], dim=-1)
            mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=-1)
    return ids


def generate(model: Any, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        out: torch.Tensor = model.generate(ids, attention_mask=mask, max_new_tokens=NEW, do_sample=False)
    return out


def generate_checked(ctx: ScenarioContext, model: Any, ids: torch.Tensor, mask: torch.Tensor, label: str) -> torch.Tensor:
    """``generate``'s tokens, checked equal to :func:`greedy_without_cache` on the same prompts (the scenario's oracle)."""
    tokens = generate(model, ids, mask)
    oracle = greedy_without_cache(model, ids, mask, NEW)
    ctx.check(torch.equal(tokens, oracle), f"{label} generate {tokens.tolist()} equals the cache-free oracle {oracle.tolist()}")
    return tokens


def logits(model: Any, ids: torch.Tensor, mask: torch.Tensor, **kwargs: Any) -> torch.Tensor:
    with torch.no_grad():
        out: torch.Tensor = model(input_ids=ids, attention_mask=mask, **kwargs).logits
    return out


def real_max_difference(first: torch.Tensor, second: torch.Tensor, mask: torch.Tensor) -> float:
    """The largest absolute difference over the real (unpadded) positions only."""
    return float((first - second).abs()[mask.bool()].max())


@scenario("llm-attention-sdpa", "tiny GQA LLaMA under sdpa: a left-padded batch of two prompts, an unpadded one, default positions, and one direct masked call")
def run_attention_sdpa(ctx: ScenarioContext) -> None:
    model = tiny_llama(ctx.device, "sdpa")
    ids, mask = padded_prompts(ctx)
    tokens = generate_checked(ctx, model, ids, mask, "padded sdpa")
    # The same prompts unpadded: no mask is built (sdpa's is_causal and enable_gqa do the work).
    full_ids, full_mask = padded_prompts(ctx, padded=0)
    unpadded = generate(model, full_ids, full_mask)
    ctx.check(torch.equal(unpadded, greedy_without_cache(model, full_ids, full_mask, NEW)), "unpadded sdpa generate equals the oracle")
    # A forward without position ids numbers the pads too; RoPE only sees offsets, so the real positions barely move.
    shifted = real_max_difference(logits(model, ids, mask), logits(model, ids, mask, position_ids=counted_positions(mask)), mask)
    ctx.check(shifted < TOLERANCE, f"shifting a row's positions by its padding changes its real logits by {shifted:.2e}")
    ctx.fact("tokens", tokens.tolist())
    ctx.fact("position_shift_difference_below_tolerance", shifted < TOLERANCE)
    # One direct call on a single masked sequence whose keys are its values' negation: sdpa takes the repeat path,
    # and the keys it repeats can be compared with the values, which are repeated only after them.
    ctx.check(direct_sdpa_error(ctx, model) < TOLERANCE, "a direct sdpa call with a mask equals softmax(q k^T) v on repeated heads")


def direct_sdpa_error(ctx: ScenarioContext, model: Any, length: int = 5) -> float:
    """sdpa_attention_forward on one causal-masked sequence with keys = -values, against attention written out."""
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    attention = model.model.layers[0].self_attn
    heads, kv_heads, dim = SIZES["num_attention_heads"], SIZES["num_key_value_heads"], SIZES["head_dim"]
    generator = ctx.generator(212)
    query = torch.randn(1, heads, length, dim, generator=generator).to(ctx.device)
    value = torch.randn(1, kv_heads, length, dim, generator=generator).to(ctx.device)
    causal = torch.ones(length, length, dtype=torch.bool).tril()[None, None].to(ctx.device)
    with torch.no_grad():
        out, _ = sdpa_attention_forward(attention, query, -value, value, causal, scaling=attention.scaling)
    repeated = value.repeat_interleave(heads // kv_heads, 1)
    scores = (query @ -repeated.transpose(-1, -2) * attention.scaling).masked_fill(~causal, float("-inf"))
    expected = (torch.softmax(scores, -1) @ repeated).transpose(1, 2)
    return float((out - expected).abs().max())


@scenario("llm-attention-eager", "tiny GQA LLaMA under eager attention on the left-padded batch, against sdpa on the same weights")
def run_attention_eager(ctx: ScenarioContext) -> None:
    model = tiny_llama(ctx.device, "eager")
    ids, mask = padded_prompts(ctx)
    tokens = generate_checked(ctx, model, ids, mask, "padded eager")
    eager = logits(model, ids, mask, position_ids=counted_positions(mask))
    model.set_attn_implementation("sdpa")
    sdpa = logits(model, ids, mask, position_ids=counted_positions(mask))
    model.set_attn_implementation("eager")
    difference = real_max_difference(eager, sdpa, mask)
    ctx.check(difference < TOLERANCE, f"eager and sdpa logits differ by {difference:.2e} on real positions")
    pads = float((eager - sdpa).abs()[~mask.bool()].max())
    ctx.check(pads > TOLERANCE, f"at pad positions (no key allowed) the two differ by {pads:.2e}: neither result is used")
    # One prompt alone (batch 1, no padding): eager still builds a mask, and the batch differs from the KV heads.
    single = logits(model, ids[:1], mask[:1])
    ctx.check(real_max_difference(single, eager[:1], mask[:1]) < TOLERANCE, "a prompt alone gives the logits it gets in the batch")
    ctx.fact("tokens", tokens.tolist())


@scenario("llm-attention-sliding", "tiny Mistral with a 3-token sliding window: the sliding causal mask at prefill and decode")
def run_attention_sliding(ctx: ScenarioContext) -> None:
    from transformers import MistralConfig, MistralForCausalLM

    torch.manual_seed(212)
    model: Any = MistralForCausalLM(MistralConfig(sliding_window=WINDOW, **SIZES))
    model = model.to(ctx.device).eval()
    ids, mask = padded_prompts(ctx, padded=0, seed=213)
    tokens = generate_checked(ctx, model, ids, mask, "sliding-window")
    ctx.fact("tokens", tokens.tolist())
