"""transformers' continuous batching on CPU: a paged KV cache, a FIFO scheduler and one flat batch per forward.

A tiny random-weight LLaMA (2 layers, 4 heads over 2 KV heads, head dim 16) serves five greedy requests of
different lengths that arrive at different steps, through the real ``ContinuousBatchingManager`` machinery
(``paged|eager`` attention, which runs on CPU). The background thread is not started: the scenario drives the
batch processor itself, one ``prepare_next_batch`` / ``_generation_step`` / ``update_batch`` per step, so every
annotated statement runs in the main thread and the batches are the same on every run.

The cache has 16 blocks of 4 tokens and a batch at most 12 tokens, so the run shows a request that waits for
token budget (``e``), a prompt that shares two blocks of an earlier one (``c`` reuses ``a``'s first 8 tokens), a
prompt split over two batches (``d``, 14 tokens) and blocks freed as requests finish. The oracle: each request's
tokens equal ``generate`` on an identical eager model, request by request, without any cache sharing.
"""

from __future__ import annotations

from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

from .transformers_generation import SIZES  # lab 19's tiny LLaMA: 4 query heads over 2 KV heads

IMPORTS = (
    "torch",
    "transformers",
    "transformers.generation.continuous_batching.continuous_api",
    "transformers.generation.continuous_batching.cache",
    "transformers.generation.continuous_batching.scheduler",
    "transformers.models.llama.modeling_llama",
    "transformers.models.qwen2.modeling_qwen2",
)

PAGE, BLOCKS, BATCH_TOKENS, NEW = 4, 16, 12, 4
"""Tokens per page, blocks in the cache, the token budget of one batch, and new tokens per request."""

_A = [3, 17, 29, 41, 53, 65, 77, 89, 101]
ARRIVALS: dict[int, list[tuple[str, list[int]]]] = {
    0: [("a", _A), ("b", [5, 9, 14]), ("e", [33, 44, 55, 66, 77])],
    2: [("c", _A[:8] + [120])],
    3: [("d", list(range(40, 54)))],
}
"""Requests by the step they arrive at: ``c`` shares ``a``'s first 8 tokens (two full pages); ``d`` is longer than a batch."""


def tiny_llama(seed: int = 220) -> Any:
    """A 2-layer LlamaForCausalLM with eager attention and random weights (the same weights for the same seed)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    settings: dict[str, Any] = dict(attn_implementation="eager", **SIZES)
    model: Any = LlamaForCausalLM(LlamaConfig(**settings))
    return model.eval()


def batching_config(**overrides: Any) -> Any:
    """The continuous-batching settings of the run: small pages and blocks, synchronous, no CUDA graphs."""
    from transformers.generation.configuration_utils import ContinuousBatchingConfig

    settings: dict[str, Any] = dict(
        page_size=PAGE,
        num_blocks=BLOCKS,
        max_batch_tokens=BATCH_TOKENS,
        use_async_batching=False,
        use_cuda_graph=False,
        max_blocks_per_request=0,
    )
    settings.update(overrides)
    return ContinuousBatchingConfig(**settings)


def manager_for(model: Any, **overrides: Any) -> tuple[Any, Any]:
    """A ContinuousBatchingManager for greedy decoding of NEW tokens, and its batch processor (thread not started)."""
    from transformers import GenerationConfig
    from transformers.generation.continuous_batching.continuous_api import ContinuousBatchingManager

    generation = GenerationConfig(max_new_tokens=NEW, do_sample=False, eos_token_id=-1, pad_token_id=0)
    manager = ContinuousBatchingManager(model, generation, batching_config(**overrides))
    processor = manager._create_batch_processor()
    manager.batch_processor = processor
    return manager, processor


def drive(manager: Any, processor: Any, arrivals: dict[int, list[tuple[str, list[int]]]], on_step: Any = None) -> dict[str, Any]:
    """Run the generation loop in this thread: requests join at their step, one forward per step, until none is left.

    Returns each request's final state by id. ``on_step(step, processor)`` is called after each batch is built."""
    states: dict[str, Any] = {}
    step = 0
    while True:
        for request_id, prompt in arrivals.get(step, []):
            manager.add_request(prompt, request_id=request_id, max_new_tokens=NEW)
        if not processor.prepare_next_batch():
            if step > max(arrivals):
                return states
            step += 1
            continue
        for future in processor.inputs_and_outputs.requests_in_batch:
            states[future.state.request_id] = future.state
        if on_step is not None:
            on_step(step, processor)
        processor._generation_step(manager.model)
        processor.update_batch()
        step += 1


def greedy_alone(model: Any, prompt: list[int]) -> list[int]:
    """The oracle: ``generate`` on one request with the ordinary dynamic cache."""
    with torch.no_grad():
        out = model.generate(torch.tensor([prompt]), max_new_tokens=NEW, do_sample=False, eos_token_id=-1, pad_token_id=0)
    return out[0, len(prompt) :].tolist()


@scenario("cb-paged-batching", "tiny LLaMA continuous batching on CPU: 5 requests arriving over 4 steps, paged cache of 16 blocks of 4 tokens")
def run_paged_batching(ctx: ScenarioContext) -> None:
    model = tiny_llama()
    manager, processor = manager_for(model)
    ctx.check(model.config._attn_implementation == "paged|eager", f"the manager switched eager attention to {model.config._attn_implementation}")
    cache = processor.cache
    ctx.check(cache.num_blocks == BLOCKS and cache.use_prefix_sharing, f"{cache.num_blocks} blocks, prefix sharing {cache.use_prefix_sharing}")
    batches: list[list[tuple[str, int]]] = []

    def note(step: int, proc: Any) -> None:
        batches.append([(f.state.request_id, f.query_length) for f in proc.inputs_and_outputs.requests_in_batch])

    states = drive(manager, processor, ARRIVALS, note)
    ctx.check(all(sum(n for _, n in batch) <= BATCH_TOKENS for batch in batches), f"every batch within {BATCH_TOKENS} tokens: {batches}")
    ctx.check(batches[0] == [("a", 9), ("b", 3)], f"batch 0 is a's and b's prompts; e waits: {batches[0]}")
    ctx.check(("c", 1) in batches[2], f"c prefills one token after its 8-token prefix match: {batches[2]}")
    ctx.check([n for batch in batches for r, n in batch if r == "d"][:2] == [8, 6], "d's 14 prompt tokens are split 8 + 6")
    oracle_model = tiny_llama()
    for request_id, state in sorted(states.items()):
        prompt = next(p for wave in ARRIVALS.values() for r, p in wave if r == request_id)
        alone = greedy_alone(oracle_model, prompt)
        ctx.check(state.generated_tokens == alone, f"{request_id}: batched {state.generated_tokens} equals generate alone {alone}")
    allocator = cache.cache_allocators["full_attention"]
    ctx.check(allocator.block_table == {}, f"every block table is gone at the end: {allocator.block_table}")
    ctx.fact("batches", batches)
    ctx.fact("generated", {r: s.generated_tokens for r, s in sorted(states.items())})


WINDOW = 6
"""The sliding window of the two-group model's second layer: shorter than ``a_``'s prompt, longer than a page."""

GROUPED: dict[int, list[tuple[str, list[int]]]] = {0: [("a", [5, 9, 14]), ("a_", _A)]}
"""Two requests that fill one batch (3 + 9 tokens). The second id is the first's with an underscore appended, and
the second request holds more blocks, so a statement handed a wrong id in the mutation's way (a string gains ``_``)
still names a live request with room for the tokens and writes them into its blocks: the mistake shows in the
indices instead of ending in a missing key or an index out of range."""


def tiny_two_groups(seed: int = 225) -> Any:
    """A 2-layer Qwen2ForCausalLM with the LLaMA's sizes, eager attention and random weights: layer 0 full attention,
    layer 1 a sliding window of WINDOW tokens, so the paged cache has two groups, each with its allocator and sectors."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    settings: dict[str, Any] = dict(attn_implementation="eager", use_sliding_window=True, sliding_window=WINDOW, **SIZES)
    model: Any = Qwen2ForCausalLM(Qwen2Config(layer_types=["full_attention", "sliding_attention"], **settings))
    return model.eval()


@scenario("cb-two-groups", "continuous batching on CPU with two cache groups (a full-attention and a sliding-window layer): 2 requests, ids 'a' and 'a_'")
def run_two_groups(ctx: ScenarioContext) -> None:
    model = tiny_two_groups()
    manager, processor = manager_for(model)
    allocators = processor.cache.cache_allocators
    kinds = {name: (allocator.index, type(allocator).__name__) for name, allocator in allocators.items()}
    expected = {"full_attention": (0, "FullAttentionCacheAllocator"), "sliding_attention": (1, "SlidingAttentionCacheAllocator")}
    ctx.check(kinds == expected, f"one allocator per group, in layer order: {kinds}")
    ctx.check(not processor.cache.use_prefix_sharing, "a sliding group turns prefix sharing off")
    batches: list[list[tuple[str, int]]] = []

    def note(step: int, proc: Any) -> None:
        batches.append([(f.state.request_id, f.query_length) for f in proc.inputs_and_outputs.requests_in_batch])

    states = drive(manager, processor, GROUPED, note)
    ctx.check(batches[0] == [("a", 3), ("a_", 9)], f"batch 0 holds both prompts whole: {batches[0]}")
    oracle_model = tiny_two_groups()
    for request_id, prompt in GROUPED[0]:
        alone = greedy_alone(oracle_model, prompt)
        generated = states[request_id].generated_tokens
        ctx.check(generated == alone, f"{request_id}: batched {generated} equals generate alone {alone}")
    ctx.check(all(allocator.block_table == {} for allocator in allocators.values()), "every block table is gone at the end")
    ctx.fact("batches", batches)


BUDGET = 64 * 2**20
"""The memory budget the sizing scenario hands the memory handler: 64 MiB."""


def memory_handler(config: Any, cb_config: Any, dtype: torch.dtype, budget: int) -> Any:
    """A PagedAttentionMemoryHandler with the sector geometry PagedAttentionCache would give it, and ``budget`` bytes free."""
    from math import lcm

    from transformers.generation.continuous_batching.cache import PagedAttentionMemoryHandler
    from transformers.generation.continuous_batching.cache_allocators import FullAttentionCacheAllocator

    allocator = FullAttentionCacheAllocator(
        index=0,
        config=config,
        num_key_value_heads=config.num_key_value_heads,
        cache_dtype=dtype,
        page_size=cb_config.page_size,
        layer_indices=list(range(config.num_hidden_layers)),
        allow_block_sharing=True,
    )
    bytes_per_sector = lcm(allocator.bytes_per_block, 128)
    handler = PagedAttentionMemoryHandler(
        config=config,
        cb_config=cb_config,
        dtype=dtype,
        bytes_per_sector=bytes_per_sector,
        tokens_per_sector=(bytes_per_sector // allocator.bytes_per_block) * allocator.tokens_per_page,
        bytes_per_block=allocator.bytes_per_block,
        attn_types=["full_attention"],
    )
    handler.available_memory = budget
    return handler


@scenario("cb-memory-sizing", "PagedAttentionMemoryHandler sizes the paged cache of the tiny LLaMA (float32) from a 64 MiB budget")
def run_memory_sizing(ctx: ScenarioContext) -> None:
    from transformers import LlamaConfig

    config = LlamaConfig(**SIZES)
    cb_config = batching_config(num_blocks=None, max_batch_tokens=256, max_memory_percent=0.9, max_requests_per_batch=16, return_logprobs=False)
    handler = memory_handler(config, cb_config, torch.float32, BUDGET)
    max_batch_tokens, num_sectors = handler.infer_max_batch_tokens_and_num_sectors()
    footprint = handler.compute_memory_footprint(max_batch_tokens, num_sectors)
    ctx.check(max_batch_tokens == 256, f"max_batch_tokens comes from the config: {max_batch_tokens}")
    one_more = handler.compute_memory_footprint(max_batch_tokens, num_sectors + 1)
    ctx.check(footprint <= BUDGET < one_more, f"{num_sectors} sectors fill the budget: {footprint} of {BUDGET} bytes")
    # A fixed num_blocks skips the sizing: 16 blocks of 4 tokens is 16 sectors here (one block per sector).
    fixed = memory_handler(config, batching_config(max_memory_percent=0.9, max_requests_per_batch=16), torch.float32, BUDGET)
    ctx.check(fixed.infer_max_batch_tokens_and_num_sectors() == (BATCH_TOKENS, BLOCKS), "num_blocks=16 gives 16 sectors")
    ctx.fact("num_sectors", num_sectors)
    ctx.fact("footprint", footprint)
