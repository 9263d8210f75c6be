"""Lab 19 starter: the generation loop — prefill against decode, logits processors and warpers, stopping.

Run:  .venv/bin/python labs/lab-19-generation-loop/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds a 2-layer LLaMA with random weights from a config (4 query heads over 2 key/value heads, vocabulary 128),
records every forward that ``generate`` makes (how many positions go in, how long the cache is), compares greedy
decoding with a cache-free recomputation, runs the sampling processors on one row of logits, and stops one row
with an end-of-sequence id; the cost exercises are worked out from reports/cost.json. ``--check`` recomputes the
answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "forwards_for_4_tokens": None,
    "prefill_positions_in": None,
    "prefill_logits_positions": None,
    "decode_positions_in": None,
    "all_ones_mask_reaches_model": None,
    "first_processor": None,
    "top_k_then_top_p_kept": None,
    "penalised_negative_logit": None,
    "eos_row_next_token": None,
    "greedy_matches_no_cache": None,
    "cost_llama8b_bound_tokens_s_batch8_8k": None,
    "cost_llama8b_flops_per_byte_large_batch_4k": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"penalised_negative_logit": Decimals(2)}

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


def tiny_llama(device: str):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(190)
    return LlamaForCausalLM(LlamaConfig(**SIZES)).to(device).eval()


def record_forwards(model) -> list[dict]:
    """A forward pre-hook that notes, per call, the positions fed in, the cache length before it and the mask."""
    calls: list[dict] = []

    def note(module, args, kwargs):
        cache = kwargs.get("cache")
        mask = kwargs.get("attention_mask")
        calls.append(
            {
                "ids": tuple(kwargs["input_ids"].shape),
                "cached_before": int(cache.get_seq_length()) if cache is not None else 0,
                "mask": None if mask is None else tuple(mask.shape),
            }
        )

    model.register_forward_pre_hook(note, with_kwargs=True)
    return calls


def show_loop(model, device: str, new_tokens: int) -> dict:
    import torch

    prompt = torch.randint(3, 128, (1, 5), generator=torch.Generator().manual_seed(191)).to(device)
    calls = record_forwards(model)
    with torch.no_grad():
        out = model.generate(prompt, max_new_tokens=new_tokens, do_sample=False, return_dict_in_generate=True, output_logits=True)
    for index, call in enumerate(calls):
        kind = "prefill" if index == 0 else "decode "
        print(f"forward {index} ({kind}): input_ids {reveal(call['ids'])}, cache held {call['cached_before']} positions, mask {reveal(call['mask'])}")
    print(f"{len(out.sequences[0]) - 5} new tokens: {out.sequences[0, 5:].tolist()}; cache after: {out.cache.get_seq_length()} positions per layer")
    # The exercises use 4 new tokens, whatever --steps says.
    calls.clear()
    with torch.no_grad():
        four = model.generate(prompt, max_new_tokens=4, do_sample=False, return_dict_in_generate=True)
        forwards, prefill_in, decode_in = len(calls), calls[0]["ids"][1], calls[1]["ids"][1]
        mask_seen = any(call["mask"] is not None for call in calls)
        first_logits = model(input_ids=prompt, logits_to_keep=1).logits
        # The cache-free oracle: the whole sequence through the model for every token.
        ids = prompt
        for _ in range(4):
            ids = torch.cat([ids, model(input_ids=ids, use_cache=False).logits[:, -1].argmax(-1, keepdim=True)], dim=-1)
    matches = bool(torch.equal(ids, four.sequences))
    print(f"4 new tokens: {reveal(forwards)} forwards; prefill feeds {reveal(prefill_in)} positions, a decode step {reveal(decode_in)}")
    print(f"prefill logits with logits_to_keep=1: {reveal(first_logits.shape[1])} position(s) of {first_logits.shape[-1]} scores")
    print(f"all-ones attention mask passed to the model: {reveal(mask_seen)}")
    print(f"greedy generate equals the cache-free recomputation: {reveal(matches)}")
    return {
        "forwards_for_4_tokens": forwards,
        "prefill_positions_in": prefill_in,
        "prefill_logits_positions": int(first_logits.shape[1]),
        "decode_positions_in": decode_in,
        "all_ones_mask_reaches_model": mask_seen,
        "greedy_matches_no_cache": matches,
    }


def show_processors(model, device: str) -> dict:
    import torch
    from transformers import GenerationConfig

    config = GenerationConfig(do_sample=True, temperature=0.7, top_k=20, top_p=0.9, repetition_penalty=1.3)
    processors = model._get_logits_processor(config, input_ids_seq_length=5, device=device)
    names = [type(p).__name__ for p in processors]
    print("processors, in the order they run:", ", ".join(reveal(n) if i == 0 else n for i, n in enumerate(names)))
    ids = torch.randint(3, 128, (1, 5), generator=torch.Generator().manual_seed(193)).to(device)
    with torch.no_grad():
        logits = model(input_ids=ids).logits[:, -1].float()
    scores = logits
    for index, processor in enumerate(processors):
        scores = processor(ids, scores)
        name = reveal(type(processor).__name__) if index == 0 else type(processor).__name__
        finite = int(torch.isfinite(scores).sum())
        print(f"  after processor {index + 1} ({name}): finite scores {reveal(finite) if index == len(processors) - 1 else finite}")
    kept = int(torch.isfinite(scores).sum())
    print(f"tokens left to sample from: {reveal(kept)}")
    penalty = processors[0]
    probe = torch.full((1, 128), -2.0)
    penalised = float(penalty(torch.tensor([[7]]), probe)[0, 7])
    print(f"repetition penalty 1.3 on a seen token with logit -2.0 -> {reveal(penalised, '.2f')}")
    return {"first_processor": names[0], "top_k_then_top_p_kept": kept, "penalised_negative_logit": penalised}


def show_eos(model, device: str) -> dict:
    import torch

    prompt = torch.randint(3, 128, (2, 5), generator=torch.Generator().manual_seed(194)).to(device)
    with torch.no_grad():
        free = model.generate(prompt, max_new_tokens=4, do_sample=False, pad_token_id=0)
        eos = int(free[0, 6])  # row 0's second new token becomes the end-of-sequence id
        stopped = model.generate(prompt, max_new_tokens=4, do_sample=False, eos_token_id=eos, pad_token_id=0)
    print(f"without eos: {free[:, 5:].tolist()}; with eos={eos}: {stopped[:, 5:].tolist()}")
    after = int(stopped[0, 7]) if stopped.shape[1] > 7 else None
    print(f"row 0 after its eos gets token {reveal(after)}")
    return {"eos_row_next_token": after}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=6, steps_help="how many new tokens the traced generate call makes").parse_args(argv)
    device = setup_torch(args.device)
    model = tiny_llama(device)
    answers: dict = {}
    answers.update(show_loop(model, device, args.steps))
    answers.update(show_processors(model, device))
    answers.update(show_eos(model, device))
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("19", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("19")})


if __name__ == "__main__":
    sys.exit(main())
