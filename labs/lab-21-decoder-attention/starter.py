"""Lab 21 starter: attention in a decoder — causal and padding masks, RoPE, grouped-query attention, eager vs sdpa.

Run:  .venv/bin/python labs/lab-21-decoder-attention/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds a 2-layer LLaMA with 6 query heads over 2 key/value heads and a Mistral with a 3-token sliding window,
random weights, from configs. Prints the mask transformers builds for a left-padded batch (prefill and first decode
step), RoPE's cos/sin at a few positions, what repeat_kv does to the key heads, how far eager and sdpa attention
differ on real and on pad positions, and a sliding-window mask. ``--check`` recomputes the answers to the
exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import sys

from infralens.tiny.labkit import finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "empty_rows_with_5_pads": None,
    "last_query_keys_with_5_pads": None,
    "decode_mask_shape": None,
    "unpadded_mask_is_none": None,
    "rope_frequencies": None,
    "rope_score_depends_on_offset_only": None,
    "kv_head_of_query_head_4": None,
    "repeat_kv_shape": None,
    "eager_sdpa_agree_on_real_tokens": None,
    "eager_sdpa_agree_on_pads": None,
    "sliding_keys_last_query": None,
    "llama8b_query_heads_per_kv_head": None,
}

PRECISION: dict = {}

SIZES = dict(
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
PROMPT, PADS, WINDOW = 7, 3, 3
ASKED_PADS = 5
"""The padding exercises 1 and 2 ask about: the printed mask shows the rule at 3 pads, the exercises apply it at 5."""
TOLERANCE = 1e-5
"""How close eager and sdpa must be to count as equal (float32, different summation order)."""


def llama(device: str, attention: str = "sdpa"):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(210)
    return LlamaForCausalLM(LlamaConfig(attn_implementation=attention, **SIZES)).to(device).eval()


def prompts(device: str, pads: int = PADS):
    """Two 7-token prompts; the second left-padded with ``pads`` pad ids (mask 0)."""
    import torch

    ids = torch.randint(3, 128, (2, PROMPT), generator=torch.Generator().manual_seed(211))
    mask = torch.ones_like(ids)
    ids[1, :pads], mask[1, :pads] = 0, 0
    return ids.to(device), mask.to(device)


def mask_for(model, ids, mask, cache=None):
    """The mask LlamaModel.forward would build, from the real create_causal_mask."""
    from transformers.masking_utils import create_causal_mask

    embeds = model.model.embed_tokens(ids)
    return create_causal_mask(config=model.config, inputs_embeds=embeds, attention_mask=mask, cache=cache)


def show_masks(device: str, steps: int) -> dict:
    import torch
    from transformers import DynamicCache

    model = llama(device)
    ids, mask = prompts(device)
    cache = DynamicCache(config=model.config)
    built = mask_for(model, ids, mask, cache)
    print(f"prefill mask (sdpa): {tuple(built.shape)}, {built.dtype}; row 1 has {PADS} pads (1 = may attend):")
    for query in range(min(PROMPT, max(steps, 1) + PADS)):
        print(f"  row 1, query {query}: {' '.join(str(int(v)) for v in built[1, 0, query])}")
    asked = mask_for(model, *prompts(device, pads=ASKED_PADS), DynamicCache(config=model.config))
    empty_rows = int((~asked[1, 0].any(-1)).sum())
    last_keys = int(asked[1, 0, -1].sum())
    print(f"with {ASKED_PADS} pads: {reveal(empty_rows)} query rows see no key at all; the last prompt query sees {reveal(last_keys)} keys")
    with torch.no_grad():
        model(input_ids=ids, attention_mask=mask, cache=cache)
    step_mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=-1)
    decode = mask_for(model, ids[:, -1:], step_mask, cache)
    print(f"first decode step: the mask is {reveal(list(decode.shape))}, row 1 = {reveal(decode[1, 0, 0].int().tolist())}")
    full_ids, full_mask = prompts(device, pads=0)
    unpadded = mask_for(model, full_ids, full_mask, DynamicCache(config=model.config))
    print(f"unpadded prompts under sdpa: create_causal_mask returns {reveal(unpadded)}")
    return {
        "empty_rows_with_5_pads": empty_rows,
        "last_query_keys_with_5_pads": last_keys,
        "decode_mask_shape": list(decode.shape),
        "unpadded_mask_is_none": unpadded is None,
    }


def show_rope(device: str) -> dict:
    import torch
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

    model = llama(device)
    rope = model.model.rotary_emb
    positions = torch.tensor([[0, 1, 2, 5]], device=device)
    x = torch.zeros(1, 4, SIZES["hidden_size"], device=device)
    cos, sin = rope(x, position_ids=positions)
    print(f"RoPE: {rope.inv_freq.numel()} frequencies for head dim {SIZES['head_dim']}: {[round(f, 4) for f in rope.inv_freq.tolist()]}")
    for index, position in enumerate(positions[0].tolist()):
        print(f"  position {position}: cos[0] {cos[0, index, 0]:+.4f}, sin[0] {sin[0, index, 0]:+.4f}, cos[7] {cos[0, index, 7]:+.4f}")
    # One query vector and one key vector, placed at positions (5, 2) and then (9, 6): the same offset, 3.
    generator = torch.Generator().manual_seed(214)
    q = torch.randn(1, 1, 1, SIZES["head_dim"], generator=generator).to(device)
    k = torch.randn(1, 1, 1, SIZES["head_dim"], generator=generator).to(device)

    def score(query_at: int, key_at: int) -> float:
        c, s = rope(x[:, :2], position_ids=torch.tensor([[query_at, key_at]], device=device))
        rq, _ = apply_rotary_pos_emb(q, q, c[:, :1], s[:, :1])
        rk, _ = apply_rotary_pos_emb(k, k, c[:, 1:], s[:, 1:])
        return float((rq * rk).sum())

    rotated, _ = apply_rotary_pos_emb(q, k, cos[:, 3:], sin[:, 3:])
    print(f"|q| before {q.norm():.4f}, after rotating to position 5: {rotated.norm():.4f}")
    first, second = score(5, 2), score(9, 6)
    same = abs(first - second) < TOLERANCE
    print(f"q·k with q at 5, k at 2: {first:.5f}; at 9 and 6: {second:.5f}; equal: {reveal(same)}")
    return {"rope_frequencies": int(rope.inv_freq.numel()), "rope_score_depends_on_offset_only": same}


def show_repeat_kv(device: str) -> dict:
    import torch
    from transformers.models.llama.modeling_llama import repeat_kv

    model = llama(device)
    groups = model.model.layers[0].self_attn.num_key_value_groups
    keys = torch.randn(1, SIZES["num_key_value_heads"], 5, SIZES["head_dim"], generator=torch.Generator().manual_seed(215)).to(device)
    repeated = repeat_kv(keys, groups)
    reads = [next(h for h in range(keys.shape[1]) if torch.equal(repeated[:, j], keys[:, h])) for j in range(repeated.shape[1])]
    print(f"repeat_kv with n_rep = {groups}: keys {tuple(keys.shape)} -> {reveal(tuple(repeated.shape))}")
    print(f"query head j reads KV head: {' '.join(f'{j}->{reveal(h)}' for j, h in enumerate(reads))}")
    from transformers import LlamaConfig

    # Llama-3.1-8B's published attention sizes (nothing is downloaded or allocated).
    big = LlamaConfig(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8)
    per_kv = big.num_attention_heads // big.num_key_value_heads
    print(f"Llama-3.1-8B: {big.num_attention_heads} query heads, {big.num_key_value_heads} KV heads: {reveal(per_kv)} query heads per KV head")
    return {"kv_head_of_query_head_4": reads[4], "repeat_kv_shape": list(repeated.shape), "llama8b_query_heads_per_kv_head": per_kv}


def show_eager_vs_sdpa(device: str) -> dict:
    import torch

    ids, mask = prompts(device)
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    outputs = {}
    for attention in ("eager", "sdpa"):
        with torch.no_grad():
            outputs[attention] = llama(device, attention)(input_ids=ids, attention_mask=mask, position_ids=positions).logits
    difference = (outputs["eager"] - outputs["sdpa"]).abs()
    real, pads = float(difference[mask.bool()].max()), float(difference[~mask.bool()].max())
    print(f"eager vs sdpa, max |difference| of logits: real tokens {real:.1e}, pad positions {pads:.1e}")
    print(f"agree within {TOLERANCE:g}: real tokens {reveal(real < TOLERANCE)}, pads {reveal(pads < TOLERANCE)}")
    return {"eager_sdpa_agree_on_real_tokens": real < TOLERANCE, "eager_sdpa_agree_on_pads": pads < TOLERANCE}


def show_sliding(device: str) -> dict:
    import torch
    from transformers import DynamicCache, MistralConfig, MistralForCausalLM
    from transformers.masking_utils import create_sliding_window_causal_mask

    torch.manual_seed(212)
    model = MistralForCausalLM(MistralConfig(sliding_window=WINDOW, **SIZES)).to(device).eval()
    ids, mask = prompts(device, pads=0)
    built = create_sliding_window_causal_mask(
        config=model.config, inputs_embeds=model.model.embed_tokens(ids), attention_mask=mask, cache=DynamicCache(config=model.config)
    )
    last = built[0, 0, -1]
    print(f"sliding window {WINDOW}, last prompt query: {' '.join(str(int(v)) for v in last)} ({reveal(int(last.sum()))} keys)")
    return {"sliding_keys_last_query": int(last.sum())}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=PROMPT - PADS, steps_help="how many real query rows of the padded mask to print").parse_args(argv)
    device = setup_torch(args.device)
    answers: dict = {}
    answers.update(show_masks(device, args.steps))
    answers.update(show_rope(device))
    answers.update(show_repeat_kv(device))
    answers.update(show_eager_vs_sdpa(device))
    answers.update(show_sliding(device))
    return finish(args, ANSWERS, answers, tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
