"""Correct answers for lab 22 (merged into ``solutions.SOLUTIONS``)."""

LAB = "22-continuous-batching"
SOLUTION = {
    "e_first_step": 1,
    "batch1_tokens": 7,
    "c_tokens_prefilled": 1,
    "c_blocks_shared_with_a": 2,
    "d_first_chunk": 8,
    "d_status_after_first_chunk": "PREFILLING",
    "d_blocks_at_finish": 5,
    "blocks_to_pool_when_a_b_finish": 2,
    "tiny_sectors_for_64mib": 7608,
    "kv_share_of_budget": 0.232177734375,  # 7608 × 2048 / 67,108,864; the page writes 0.23
    "llama8b_block_bytes_bf16": 33554432,
}
