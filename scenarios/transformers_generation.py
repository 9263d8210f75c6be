"""transformers' generation loop and KV caches on tiny random-weight decoders (LLaMA, and Mistral with a sliding window).

Every run is checked against a cache-free oracle: greedy decoding recomputed token by token with the whole
sequence in one forward (no cache, no ``generate``), so a cache that stored, rolled or masked the wrong positions
changes the tokens and fails the scenario's check. Sizes are pairwise distinct where they can be (batch 3,
prompt 5 or 6, 4 heads, 2 KV heads, head dim 16, vocabulary 128).
"""

from __future__ import annotations

from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = (
    "torch",
    "transformers",
    "transformers.generation.utils",
    "transformers.generation.logits_process",
    "transformers.cache_utils",
    "transformers.models.llama.modeling_llama",
    "transformers.models.mistral.modeling_mistral",
    "transformers.models.minimax.modeling_minimax",
)

BATCH, PROMPT, NEW = 3, 5, 4
SIZES: dict[str, Any] = dict(
    hidden_size=64,
    intermediate_size=96,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=16,
    vocab_size=128,
    max_position_embeddings=256,
    bos_token_id=1,
    eos_token_id=2,
    pad_token_id=0,
)


def tiny_llama(device: str, seed: int = 190) -> Any:
    """A 2-layer LlamaForCausalLM with grouped-query attention (4 heads over 2 KV heads), random weights."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    model: Any = LlamaForCausalLM(LlamaConfig(**SIZES))
    return model.to(device).eval()


def tiny_mistral(device: str, window: int, seed: int = 200) -> Any:
    """The same sizes as a MistralForCausalLM whose every layer attends to a sliding window of ``window`` tokens."""
    from transformers import MistralConfig, MistralForCausalLM

    torch.manual_seed(seed)
    model: Any = MistralForCausalLM(MistralConfig(sliding_window=window, **SIZES))
    return model.to(device).eval()


def tiny_minimax(device: str, seed: int = 195) -> Any:
    """The same sizes as a MiniMaxForCausalLM: a softmax-attention layer, then a lightning (linear) attention layer,
    two experts and one per token. MiniMax keeps a cache class of its own (``MiniMaxCache``), so ``generate`` builds
    none and the model creates it in its prefill forward."""
    from transformers import MiniMaxConfig, MiniMaxForCausalLM

    torch.manual_seed(seed)
    settings: dict[str, Any] = dict(SIZES, num_local_experts=2, num_experts_per_tok=1, block_size=4)
    model: Any = MiniMaxForCausalLM(MiniMaxConfig(layer_types=["full_attention", "linear_attention"], **settings))
    return model.to(device).eval()


PADDED = 2
"""Left padding of the last row: prompts of different lengths in one batch (5, 5 and 3 real tokens)."""


def prompt_ids(ctx: ScenarioContext, length: int = PROMPT, seed: int = 191, padded: int = PADDED) -> tuple[torch.Tensor, torch.Tensor]:
    """BATCH prompts of ``length`` ordinary token ids (3..127: no bos, eos or pad), the last row left-padded by
    ``padded`` pad ids, and their attention mask."""
    ids = torch.randint(3, SIZES["vocab_size"], (BATCH, length), generator=ctx.generator(seed))
    mask = torch.ones_like(ids)
    if padded:
        ids[-1, :padded] = SIZES["pad_token_id"]
        mask[-1, :padded] = 0
    return ids.to(ctx.device), mask.to(ctx.device)


def greedy_without_cache(model: Any, ids: torch.Tensor, mask: torch.Tensor, new: int) -> torch.Tensor:
    """The oracle: each next token is the argmax of a full forward over the whole sequence so far, no cache.

    Positions count real tokens only (a left-padded row starts at 0 on its first real token), as ``generate`` does."""
    with torch.no_grad():
        for _ in range(new):
            positions = (mask.cumsum(-1) - 1).clamp(min=0)
            logits = model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=False).logits[:, -1]
            ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=-1)
            mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=-1)
    return ids


def generate(model: Any, ids: torch.Tensor, mask: torch.Tensor, **kwargs: Any) -> Any:
    """``model.generate`` without gradients: a tensor of ids, or an output with ``sequences`` and ``cache`` when asked."""
    with torch.no_grad():
        return model.generate(ids, attention_mask=mask, **kwargs)


@scenario("llm-greedy-dynamic", "tiny LLaMA generate, greedy with the default DynamicCache; then an eos that stops one row early")
def run_greedy_dynamic(ctx: ScenarioContext) -> None:
    model = tiny_llama(ctx.device)
    ids, mask = prompt_ids(ctx)
    out = generate(model, ids, mask, max_new_tokens=NEW, do_sample=False, return_dict_in_generate=True)
    oracle = greedy_without_cache(model, ids, mask, NEW)
    ctx.check(torch.equal(out.sequences, oracle), f"cached greedy {out.sequences.tolist()} equals the cache-free oracle {oracle.tolist()}")
    lengths = [layer.keys.shape[-2] for layer in out.cache.layers]
    ctx.check(lengths == [PROMPT + NEW - 1] * 2, f"each layer caches prompt + new - 1 positions (the last token is never fed back): {lengths}")
    ctx.fact("cache_lengths", lengths)
    # A second run where row 0's second new token is the end-of-sequence id: that row stops and is padded after it.
    eos = int(oracle[0, PROMPT + 1])
    stopped = generate(model, ids, mask, max_new_tokens=NEW, do_sample=False, eos_token_id=eos, pad_token_id=0)
    ctx.check(stopped[0, PROMPT + 1] == eos, "row 0 emits the eos")
    finished = [bool((row[PROMPT:] == eos).any()) for row in stopped]
    ctx.check(not all(finished) or stopped.shape[1] < PROMPT + NEW, "generation stops early only when every row has finished")
    ctx.check(bool((stopped[0, PROMPT + 2 :] == 0).all()), f"row 0 is padded after its eos: {stopped[0].tolist()}")
    ctx.fact("eos", eos)


@scenario("llm-own-cache", "tiny MiniMax (the model builds its own cache at the prefill) then tiny LLaMA (generate builds its DynamicCache), greedy")
def run_own_cache(ctx: ScenarioContext) -> None:
    from transformers import DynamicCache
    from transformers.models.minimax.modeling_minimax import MiniMaxCache

    ids, mask = prompt_ids(ctx)
    for model, kind in ((tiny_minimax(ctx.device), MiniMaxCache), (tiny_llama(ctx.device), DynamicCache)):
        out = generate(model, ids, mask, max_new_tokens=NEW, do_sample=False, return_dict_in_generate=True)
        oracle = greedy_without_cache(model, ids, mask, NEW)
        name = type(model).__name__
        ctx.check(torch.equal(out.sequences, oracle), f"{name}: cached greedy {out.sequences.tolist()} equals the cache-free oracle {oracle.tolist()}")
        ctx.check(type(out.cache) is kind, f"{name} decoded with a {type(out.cache).__name__}")
        ctx.check(out.cache.get_seq_length() == PROMPT + NEW - 1, f"{name}: the cache holds prompt + new - 1 positions")


@scenario("llm-sampling", "tiny LLaMA generate with sampling: temperature 0.7, top-k 20, top-p 0.9, repetition penalty 1.3; two processors called directly")
def run_sampling(ctx: ScenarioContext) -> None:
    from transformers.generation.logits_process import (
        RepetitionPenaltyLogitsProcessor,
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    model = tiny_llama(ctx.device)
    ids, mask = prompt_ids(ctx)
    # top_p=0 on its own: the tail rule would remove every token, so only `min_tokens_to_keep` keeps any.
    scores = torch.randn(BATCH, SIZES["vocab_size"], generator=ctx.generator(193)).to(ctx.device)
    kept = TopPLogitsWarper(top_p=0.0, min_tokens_to_keep=2)(ids.clone(), scores).isfinite()
    ctx.check(torch.equal(kept, scores >= scores.topk(2).values[:, -1:]), "top_p=0 keeps exactly the two most likely tokens of each row")
    # The repetition penalty on one sequence counting down from the last id (127, 126, ...), its first 2 ignored.
    vocab, ignored = SIZES["vocab_size"], 2
    countdown = (vocab - 1 - torch.arange(PROMPT))[None].to(ctx.device)
    penalty = RepetitionPenaltyLogitsProcessor(penalty=1.3, prompt_ignore_length=torch.tensor([ignored], device=ctx.device))
    changed = (penalty(countdown, scores[:1]) != scores[:1])[0].nonzero()[:, 0].tolist()
    ctx.check(changed == sorted(countdown[0, ignored:].tolist()), f"only the ids after the ignored prefix are penalised: {changed}")
    settings = dict(max_new_tokens=NEW + 2, do_sample=True, temperature=0.7, top_k=20, top_p=0.9, repetition_penalty=1.3)
    torch.manual_seed(192)
    first = generate(model, ids, mask, **settings)
    torch.manual_seed(192)
    second = generate(model, ids, mask, **settings)
    ctx.check(torch.equal(first, second), "the same seed samples the same tokens")
    ctx.check(first.shape == (BATCH, PROMPT + NEW + 2), f"shape {tuple(first.shape)}")
    # The processors' order, as generate builds them.
    processors = model._get_logits_processor(
        model.generation_config.__class__(**settings), input_ids_seq_length=PROMPT, device=ctx.device, model_kwargs={"attention_mask": mask}
    )
    kinds = [type(p) for p in processors]
    order = [RepetitionPenaltyLogitsProcessor, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper]
    ctx.check(kinds == order, f"processor order {[k.__name__ for k in kinds]}")
    ctx.fact("processors", [k.__name__ for k in kinds])


@scenario("llm-static-cache", "tiny LLaMA generate with a StaticCache passed in, with cache_implementation='static', and sampling two sequences per prompt")
def run_static_cache(ctx: ScenarioContext) -> None:
    from transformers import StaticCache

    model = tiny_llama(ctx.device)
    ids, mask = prompt_ids(ctx)
    oracle = greedy_without_cache(model, ids, mask, NEW)
    cache: Any = StaticCache(config=model.config, max_cache_len=16)
    given = generate(model, ids, mask, max_new_tokens=NEW, do_sample=False, cache=cache)
    ctx.check(torch.equal(given, oracle), f"static-cache greedy {given.tolist()} equals the oracle {oracle.tolist()}")
    shapes = [tuple(layer.keys.shape) for layer in cache.layers]
    ctx.check(shapes == [(BATCH, 2, 16, 16)] * 2, f"the buffers keep their allocated shape: {shapes}")
    ctx.check(int(cache.get_seq_length()) == PROMPT + NEW - 1, f"cache holds {int(cache.get_seq_length())} positions")
    out = generate(model, ids, mask, max_new_tokens=NEW, do_sample=False, cache_implementation="static", return_dict_in_generate=True)
    ctx.check(torch.equal(out.sequences, oracle), "cache_implementation='static' gives the same tokens")
    ctx.check(type(out.cache) is StaticCache, f"generate built a {type(out.cache).__name__}")
    ctx.fact("static_shapes", shapes)
    # Two sampled sequences per prompt: the static cache is allocated for every row that runs, prompts x sequences.
    torch.manual_seed(194)
    sampled = generate(
        model, ids, mask, max_new_tokens=NEW, do_sample=True, num_return_sequences=2, cache_implementation="static", return_dict_in_generate=True
    )
    rows = [layer.keys.shape[0] for layer in sampled.cache.layers]
    ctx.check(sampled.sequences.shape[0] == 2 * BATCH and rows == [2 * BATCH] * 2, f"two sequences per prompt: {rows} cache rows")
    ctx.fact("sampled_cache_rows", rows)


@scenario("llm-sliding-window", "tiny Mistral with a 4-token sliding window: dynamic and static caches against the cache-free oracle")
def run_sliding_window(ctx: ScenarioContext) -> None:
    from transformers.cache_utils import DynamicSlidingWindowLayer, StaticSlidingWindowLayer

    window, prompt, new = 4, 6, 5
    model = tiny_mistral(ctx.device, window)
    ids, mask = prompt_ids(ctx, prompt, seed=201, padded=0)
    oracle = greedy_without_cache(model, ids, mask, new)
    dynamic = generate(model, ids, mask, max_new_tokens=new, do_sample=False, return_dict_in_generate=True)
    ctx.check(torch.equal(dynamic.sequences, oracle), f"dynamic sliding cache {dynamic.sequences.tolist()} equals the oracle {oracle.tolist()}")
    ctx.check(all(type(layer) is DynamicSlidingWindowLayer for layer in dynamic.cache.layers), "DynamicCache(config=...) built sliding layers")
    kept = [layer.keys.shape[-2] for layer in dynamic.cache.layers]
    ctx.check(kept == [window - 1] * 2, f"a dynamic sliding layer keeps window - 1 positions: {kept}")
    static = generate(model, ids, mask, max_new_tokens=new, do_sample=False, cache_implementation="static", return_dict_in_generate=True)
    ctx.check(torch.equal(static.sequences, oracle), f"static sliding cache {static.sequences.tolist()} equals the oracle")
    ctx.check(all(type(layer) is StaticSlidingWindowLayer for layer in static.cache.layers), "StaticCache built sliding layers")
    ctx.check([layer.keys.shape[-2] for layer in static.cache.layers] == [window] * 2, "a static sliding layer is window long")
    ctx.fact("dynamic_kept", kept)
