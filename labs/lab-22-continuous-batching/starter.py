"""Lab 22 starter: continuous batching and the paged KV cache — scheduler, request states, blocks, prefix sharing.

Run:  .venv/bin/python labs/lab-22-continuous-batching/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds a 2-layer LLaMA with random weights from a config and serves five greedy requests through transformers'
continuous-batching machinery on CPU (``paged|eager`` attention): a paged cache of 16 blocks of 4 tokens, at most
12 tokens per forward, requests arriving at steps 0, 2 and 3. The generation loop runs here, in the main thread,
one batch per step, so you see each batch (which requests, how many tokens each brings, prefill or decode), the
blocks each request holds, what a finished request gives back, and a prefix match that reuses blocks. Then the
memory handler sizes a cache from a 64 MiB budget, and the bytes of one block at Llama-3.1-8B's published sizes.
"""

from __future__ import annotations

import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "e_first_step": None,
    "batch1_tokens": None,
    "c_tokens_prefilled": None,
    "c_blocks_shared_with_a": None,
    "d_first_chunk": None,
    "d_status_after_first_chunk": None,
    "d_blocks_at_finish": None,
    "blocks_to_pool_when_a_b_finish": None,
    "tiny_sectors_for_64mib": None,
    "kv_share_of_budget": None,
    "llama8b_block_bytes_bf16": None,
}

PRECISION = {"kv_share_of_budget": Decimals(2, share=True)}

SIZES = dict(
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
PAGE, BLOCKS, BATCH_TOKENS, NEW = 4, 16, 12, 4
A = [3, 17, 29, 41, 53, 65, 77, 89, 101]
ARRIVALS = {
    0: [("a", A), ("b", [5, 9, 14]), ("e", [33, 44, 55, 66, 77])],
    2: [("c", A[:8] + [120])],
    3: [("d", list(range(40, 54)))],
}
"""Requests by the step they arrive at. ``c`` starts with ``a``'s first 8 tokens; ``d`` is longer than a batch."""
BUDGET = 64 * 2**20


def build(device: str):
    """The tiny model and a continuous-batching manager whose batch processor is driven from this thread."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
    from transformers.generation.configuration_utils import ContinuousBatchingConfig
    from transformers.generation.continuous_batching.continuous_api import ContinuousBatchingManager

    torch.manual_seed(220)
    model = LlamaForCausalLM(LlamaConfig(attn_implementation="eager", **SIZES)).to(device).eval()
    generation = GenerationConfig(max_new_tokens=NEW, do_sample=False, eos_token_id=-1, pad_token_id=0)
    settings = ContinuousBatchingConfig(
        page_size=PAGE, num_blocks=BLOCKS, max_batch_tokens=BATCH_TOKENS, use_async_batching=False, use_cuda_graph=False, max_blocks_per_request=0
    )
    manager = ContinuousBatchingManager(model, generation, settings)
    processor = manager._create_batch_processor()
    manager.batch_processor = processor
    return manager, processor


def free_blocks(pool) -> set[int]:
    """The block ids in the pool's free lists (blocks of sectors already handed to the allocator)."""
    return {block for tree in pool._free_blocks[0].trees.values() for block in tree}


def show_batches(device: str, steps: int) -> dict:
    manager, processor = build(device)
    cache = processor.cache
    allocator = cache.cache_allocators["full_attention"]
    scheduler = processor.scheduler
    attention = manager.model.config._attn_implementation
    print(f"paged cache: {cache.num_blocks} blocks of {allocator.tokens_per_page} tokens, attention {attention}, batch budget {cache.max_batch_tokens} tokens")
    facts: dict = {}
    step = 0
    while True:
        for request_id, prompt in ARRIVALS.get(step, []):
            manager.add_request(prompt, request_id=request_id, max_new_tokens=NEW)
        if not processor.prepare_next_batch():
            break
        io = processor.inputs_and_outputs
        batch = [(f.state.request_id, f.query_length, f.has_new_token, f.state.status.name) for f in io.requests_in_batch]
        waiting = list(scheduler.waiting_requests_order)
        parts = ", ".join(f"{r} {'decode' if n == 1 and r in facts.get('decoding', set()) else 'prefill'} {n}" for r, n, _, _ in batch)
        tables_before = {r: list(t) for r, t in allocator.block_table.items()}
        pool_before = free_blocks(cache.pool)
        processor._generation_step(manager.model)
        processor.update_batch()
        finished = [r for r in tables_before if r not in allocator.block_table]
        decoding = facts.setdefault("decoding", set())
        decoding.update(r for r, _, has_new, _ in batch if has_new)
        for request_id, tokens, _, status in batch:
            facts.setdefault(("first", request_id), step)
            if request_id == "d":
                facts.setdefault("d_chunks", []).append(tokens)
                facts.setdefault("d_statuses", []).append(status)
        facts.setdefault("tokens", []).append(sum(n for _, n, _, _ in batch))
        if "c" in allocator.block_table and "c_table" not in facts:
            facts["c_table"] = list(allocator.block_table["c"])
            facts["a_table"] = tables_before["a"]
            facts["c_prefilled"] = next(n for r, n, _, _ in batch if r == "c")
        if "d" in tables_before:
            facts["d_blocks"] = len(tables_before["d"])
        if step < steps:
            held = ", ".join(f"{r}:{t}" for r, t in allocator.block_table.items())
            print(f"step {step}: [{parts}] = {sum(n for _, n, _, _ in batch)} tokens; waiting {waiting}")
            print(f"        block tables after: {held or '(none)'}")
        if finished:
            returned = free_blocks(cache.pool) - pool_before
            kept = [b for r in finished for b in tables_before[r] if b in allocator.ledger.cached_blocks]
            shared = [b for r in finished for b in tables_before[r] if any(b in t for t in allocator.block_table.values())]
            facts.setdefault("returned", {})[tuple(finished)] = len(returned)
            gone = " and ".join(finished)
            print(f"step {step}: {gone} finished; blocks to the free pool {reveal(len(returned))}, kept cached for reuse {kept}, still used by others {shared}")
        step += 1
    shared = [b for b in facts["c_table"] if b in facts["a_table"]]
    c_table, a_first = facts["c_table"], facts["a_table"][:2]
    print(f"c's block table {c_table} begins with a's {a_first}: {reveal(len(shared))} blocks shared; c prefilled {reveal(facts['c_prefilled'])} token(s)")
    print(f"e waited until step {reveal(facts[('first', 'e')])}; batch 1 held {reveal(facts['tokens'][1])} tokens")
    first, second = facts["d_chunks"][:2]
    print(f"d's prompt went through in chunks of {reveal(first)} then {second}; status after the first chunk {reveal(facts['d_statuses'][0])}")
    print(f"d held {reveal(facts['d_blocks'])} blocks in its last step; every table freed at the end: {allocator.block_table == {}}")
    return {
        "e_first_step": facts[("first", "e")],
        "batch1_tokens": facts["tokens"][1],
        "c_tokens_prefilled": facts["c_prefilled"],
        "c_blocks_shared_with_a": len(shared),
        "d_first_chunk": facts["d_chunks"][0],
        "d_status_after_first_chunk": facts["d_statuses"][0],
        "d_blocks_at_finish": facts["d_blocks"],
        "blocks_to_pool_when_a_b_finish": facts["returned"][("a", "b")],
    }


def show_sizing() -> dict:
    from math import lcm

    import torch
    from transformers import LlamaConfig
    from transformers.generation.configuration_utils import ContinuousBatchingConfig
    from transformers.generation.continuous_batching.cache import PagedAttentionMemoryHandler
    from transformers.generation.continuous_batching.cache_allocators import FullAttentionCacheAllocator

    config = LlamaConfig(**SIZES)
    allocator = FullAttentionCacheAllocator(0, config, config.num_key_value_heads, torch.float32, PAGE, [0, 1], True)
    sector = lcm(allocator.bytes_per_block, 128)
    settings = ContinuousBatchingConfig(
        page_size=PAGE, max_batch_tokens=256, max_memory_percent=0.9, max_requests_per_batch=16, use_async_batching=False, max_blocks_per_request=0
    )
    handler = PagedAttentionMemoryHandler(config, settings, torch.float32, sector, PAGE, allocator.bytes_per_block, ["full_attention"])
    handler.available_memory = BUDGET
    tokens, sectors = handler.infer_max_batch_tokens_and_num_sectors()
    share = sectors * sector / BUDGET
    print(f"64 MiB budget, tiny model, float32: a sector is {sector} bytes of KV; {reveal(sectors)} sectors with a {tokens}-token batch")
    print(f"  per sector the handler also reserves {handler.bytes_per_cache_sector - sector} bytes (keys and values read back, read indices)")
    print(f"  the KV blocks themselves are {reveal(share, '.2%')} of the budget")
    big = LlamaConfig(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, head_dim=128)
    big_block = FullAttentionCacheAllocator(0, big, 8, torch.bfloat16, 256, list(range(32)), True).bytes_per_block
    print(f"Llama-3.1-8B, bf16, 256-token pages: one block (every layer's keys and values) is {reveal(big_block)} bytes")
    return {"tiny_sectors_for_64mib": sectors, "kv_share_of_budget": share, "llama8b_block_bytes_bf16": big_block}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=8, steps_help="how many batches to print").parse_args(argv)
    device = setup_torch(args.device)
    answers: dict = {}
    answers.update(show_batches(device, args.steps))
    answers.update(show_sizing())
    return finish(args, ANSWERS, answers, tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
