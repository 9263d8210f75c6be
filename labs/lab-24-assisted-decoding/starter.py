"""Lab 24 starter: speculative (assisted) decoding — a draft model, prompt lookup and the acceptance rule.

Run:  .venv/bin/python labs/lab-24-assisted-decoding/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds a 2-layer LLaMA (the target) with random weights from a config and a 1-layer draft that shares its
embeddings, first layer, final norm and LM head. Generates 12 tokens greedily with and without the draft and prints
every verifying forward of the target: how many positions it fed, how many candidates it checked, how many it
accepted and how long the cache is after the crop. Then the target drafting for itself, an unrelated small draft at
the default confidence threshold, prompt lookup on a repetitive prompt, transformers' speculative-sampling rule on a
4-token toy distribution, and the weight bytes Llama-3.1-8B reads per forward (built on the meta device).
``--check`` recomputes the answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import sys

from infralens.tiny.labkit import Decimals, Significant, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "target_forwards_with_draft": None,
    "tokens_per_target_forward": None,
    "first_round_cache_after_crop": None,
    "draft_allowance_after_call": None,
    "assisted_equals_greedy": None,
    "self_draft_verifying_forwards": None,
    "self_draft_total_forwards": None,
    "default_threshold_candidates": None,
    "prompt_lookup_target_forwards": None,
    "acceptance_rate_p02_q05": None,
    "share_of_token_1": None,
    "verify_weight_reads_vs_decode": None,
    "verify_ms_bound_3350": None,
    "bound_tokens_per_s_3_per_forward": None,
}

PRECISION = {
    "tokens_per_target_forward": Decimals(2),
    "acceptance_rate_p02_q05": Decimals(1),
    "share_of_token_1": Decimals(1),
    "verify_ms_bound_3350": Decimals(2),
    "bound_tokens_per_s_3_per_forward": Significant(3),
}

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
PROMPT, NEW = 6, 12
DRAWS = 4000
"""Draws of the toy speculative-sampling round: enough for the shares to settle to about 0.01."""
HBM_GB_PER_S = 3350
"""An H100 SXM's published HBM3 bandwidth, GB/s: the bounds in exercises 12 and 13 are bounds, not measurements."""
PER_FORWARD = 3
"""Tokens a round yields in exercise 13: 2 accepted candidates and the target's own token."""


def models(device: str):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(240)
    target = LlamaForCausalLM(LlamaConfig(**SIZES)).to(device).eval()
    draft = LlamaForCausalLM(LlamaConfig(**dict(SIZES, num_hidden_layers=1)))
    draft.load_state_dict({k: v for k, v in target.state_dict().items() if not k.startswith("model.layers.1.")})
    draft = draft.to(device).eval()
    # A 4-token allowance that adapts ("heuristic"), and no confidence stop, so every round drafts its allowance.
    draft.generation_config.num_assistant_tokens = 4
    draft.generation_config.num_assistant_tokens_schedule = "heuristic"
    draft.generation_config.assistant_confidence_threshold = 0.0
    prompt = torch.randint(3, 128, (1, PROMPT), generator=torch.Generator().manual_seed(242)).to(device)
    return target, draft, prompt


def traced(model, prompt, **kwargs):
    """Greedy generate of NEW tokens; returns the ids and, per forward of ``model``, (positions fed, positions cached)."""
    import torch

    seen: list[tuple[int, int]] = []

    def note(module, args, kw):
        cache = kw.get("cache")
        seen.append((kw["input_ids"].shape[1], cache.get_seq_length() if cache is not None else 0))

    handle = model.register_forward_pre_hook(note, with_kwargs=True)
    with torch.no_grad():
        ids = model.generate(prompt, max_new_tokens=NEW, do_sample=False, **kwargs)
    handle.remove()
    return ids, seen


def rounds(seen, final_length: int, prompt: int = PROMPT) -> list[dict]:
    """Per verifying forward: candidates checked, candidates accepted, and the cache length after the crop.

    The next forward finds every token but the newest cached, so the cache after a round's crop is what the next
    forward finds (or the final length less one)."""
    after = [cached for _, cached in seen[1:]] + [final_length - 1]
    out = []
    for (fed, cached), cache_after in zip(seen, after, strict=True):
        start, candidates = (cached + 1, fed - 1) if cached else (prompt, fed - prompt)
        out.append({"fed": fed, "cached": cached, "candidates": candidates, "accepted": cache_after - start, "cache_after": cache_after})
    return out


def show_draft(device: str, steps: int) -> dict:
    target, draft, prompt = models(device)
    plain, plain_seen = traced(target, prompt)
    assisted, seen = traced(target, prompt, assistant_model=draft)
    table = rounds(seen, assisted.shape[1])
    print(f"plain greedy: {len(plain_seen)} target forwards for {NEW} tokens")
    for index, r in enumerate(table[:steps]):
        accepted = reveal(r["accepted"]) if index == 0 else r["accepted"]
        cache = reveal(r["cache_after"]) if index == 0 else r["cache_after"]
        cached = reveal(r["cached"]) if index == 1 else r["cached"]  # round 1 starts from round 0's crop
        print(
            f"round {index}: target fed {r['fed']} positions on a cache of {cached}; "
            f"{r['candidates']} candidates, {accepted} accepted; cache after crop {cache}"
        )
    equal = bool((assisted == plain).all())
    print(f"with the draft: {reveal(len(seen))} target forwards for {NEW} tokens, {reveal(NEW / len(seen), '.2f')} tokens per target forward")
    print(f"assisted output equals plain greedy: {reveal(equal)}")
    allowance = draft.generation_config.num_assistant_tokens
    print(f"draft allowance: 4 at the start, {reveal(allowance)} written back after the call")
    return {
        "target_forwards_with_draft": len(seen),
        "tokens_per_target_forward": NEW / len(seen),
        "first_round_cache_after_crop": table[0]["cache_after"],
        "draft_allowance_after_call": allowance,
        "assisted_equals_greedy": equal,
    }


def show_self_and_confidence(device: str) -> dict:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    target, _, prompt = models(device)
    target.generation_config.assistant_confidence_threshold = 0.0
    _, seen = traced(target, prompt, assistant_model=target)
    verifying = [s for s in seen if s[0] > 1]  # the draft's own forwards feed 1 token after its prefill of 6
    print(f"target drafting for itself: {reveal(len(verifying) - 1)} verifying forward(s) {verifying[1:]}, {reveal(len(seen))} forwards of the model in all")
    target.generation_config.assistant_confidence_threshold = 0.4
    torch.manual_seed(243)
    small = dict(SIZES, num_hidden_layers=1, hidden_size=32, intermediate_size=48, num_attention_heads=2, num_key_value_heads=1)
    other = LlamaForCausalLM(LlamaConfig(**small)).to(device).eval()
    assisted, seen = traced(target, prompt, assistant_model=other)
    table = rounds(seen, assisted.shape[1])
    most = max(r["candidates"] for r in table)
    print(f"an unrelated random draft at the default threshold 0.4: at most {reveal(most)} candidate(s) per round, {len(seen)} target forwards")
    return {"self_draft_verifying_forwards": len(verifying) - 1, "self_draft_total_forwards": len(seen), "default_threshold_candidates": most}


def show_prompt_lookup(device: str) -> dict:
    import torch

    target, _, prompt = models(device)
    with torch.no_grad():
        text = target.generate(prompt, max_new_tokens=14, do_sample=False)  # the model's own text: it loops
    print(f"repetitive prompt ({text.shape[1]} tokens): {text[0].tolist()}")
    plain, _ = traced(target, text)
    looked_up, seen = traced(target, text, prompt_lookup_num_tokens=3)
    table = rounds(seen, looked_up.shape[1], prompt=text.shape[1])
    hits = [r["candidates"] for r in table]
    accepted = [r["accepted"] for r in table]
    same = bool((looked_up == plain).all())
    print(f"prompt lookup: candidates per round {reveal(hits)}, accepted {reveal(accepted)}; equals plain greedy: {reveal(same)}")
    print(f"prompt lookup: {reveal(len(seen))} target forwards for {NEW} tokens")
    return {"prompt_lookup_target_forwards": len(seen)}


def show_sampling_rule() -> dict:
    """transformers' _speculative_sampling on one drafted token over a 4-token vocabulary, DRAWS rounds."""
    import torch
    from transformers.generation.utils import _speculative_sampling

    q = torch.tensor([0.5, 0.3, 0.1, 0.1])  # the draft's distribution at the candidate's position
    p = torch.tensor([[0.2, 0.5, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]])  # the target's, there and one position later
    torch.manual_seed(245)
    proposed = accepted = 0
    first = torch.zeros(4)
    for _ in range(DRAWS):
        candidate = torch.multinomial(q, 1)  # the draft samples its token from q, as a sampling draft does
        ids = torch.cat([torch.tensor([7]), candidate])[None]  # one token of context, then the candidate
        tokens, n = _speculative_sampling(ids, q.log()[None, None], 1, p.log()[None], None)
        if int(candidate) == 0:
            proposed += 1
            accepted += int(n)
        first[int(tokens[0, 0])] += 1
    rate = accepted / proposed
    shares = (first / DRAWS).tolist()
    print(f"toy round: q = {[round(x, 2) for x in q.tolist()]}, p = {[round(x, 2) for x in p[0].tolist()]}")
    print(f"token 0 (q 0.5, p 0.2) was drafted {proposed} times and accepted in {reveal(rate, '.3f')} of them")
    print(f"the first token's shares over {DRAWS} rounds: {reveal([round(x, 3) for x in shares])}")
    return {"acceptance_rate_p02_q05": rate, "share_of_token_1": shares[1]}


def linear_calls(model, ids, cache) -> int:
    """How many times a forward of ``ids`` on ``cache`` calls a Linear layer, i.e. reads a weight matrix."""
    import torch

    calls = [0]
    handles = [m.register_forward_hook(lambda *_: calls.__setitem__(0, calls[0] + 1)) for m in model.modules() if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        model(input_ids=ids, cache=cache)
    for handle in handles:
        handle.remove()
    return calls[0]


def show_cost(device: str) -> dict:
    import torch
    from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

    target, _, prompt = models(device)
    cache = DynamicCache(config=target.config)
    with torch.no_grad():
        target(input_ids=prompt, cache=cache)
    decode = linear_calls(target, prompt[:, :1], cache)
    cache.crop(-1)
    verify = linear_calls(target, prompt[:, :5], cache)
    reads = verify / decode
    print(f"tiny target: a 1-token decode forward runs {decode} weight matrices, a 5-token verifying forward {reveal(verify)}:", end=" ")
    print(f"{reveal(reads, '.0f')}x the weight reads")
    # Llama-3.1-8B's published sizes; built on the meta device, so no memory is allocated.
    config = LlamaConfig(
        hidden_size=4096,
        intermediate_size=14336,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        vocab_size=128256,
        tie_word_embeddings=False,
    )
    with torch.device("meta"):
        model = LlamaForCausalLM(config)
    params = sum(p.numel() for p in model.parameters())
    gigabytes = params * torch.tensor([], dtype=torch.bfloat16).element_size() / 1e9
    bound = gigabytes / HBM_GB_PER_S * 1e3
    rate = PER_FORWARD / bound * 1e3
    print(f"Llama-3.1-8B: {params:,} parameters = {gigabytes:.2f} GB of bf16 weights, read once per forward at batch 1")
    print(f"weights alone at {HBM_GB_PER_S} GB/s: a forward of 1 or of 5 tokens takes at least {reveal(bound, '.2f')} ms")
    print(f"at {PER_FORWARD} tokens per target forward: at most {reveal(rate, '.0f')} tokens/s from the weight reads")
    return {"verify_weight_reads_vs_decode": round(reads), "verify_ms_bound_3350": bound, "bound_tokens_per_s_3_per_forward": rate}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=3, steps_help="how many rounds of the draft run to print").parse_args(argv)
    device = setup_torch(args.device)
    answers: dict = {}
    answers.update(show_draft(device, args.steps))
    answers.update(show_self_and_confidence(device))
    answers.update(show_prompt_lookup(device))
    answers.update(show_sampling_rule())
    answers.update(show_cost(device))
    return finish(args, ANSWERS, answers, tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
