"""Lab 20 starter: the KV cache — DynamicLayer against StaticLayer, sliding windows, what grows per token.

Run:  .venv/bin/python labs/lab-20-kv-cache/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds a 2-layer LLaMA and a 2-layer Mistral with a 4-token sliding window, random weights, from configs. Generates
with the default DynamicCache and with a StaticCache and prints, after every forward, each cache's stored length,
buffer shape and whether the buffer is still the same tensor; then the sliding layers' kept positions, the bytes
one token costs in the tiny cache, and the same formula at Llama-3.1-8B's published sizes; the cost exercises are
worked out from reports/cost.json. ``--check`` recomputes
the answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import itertools
import sys

from infralens.tiny.labkit import finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "dynamic_positions_after": None,
    "static_buffer_positions": None,
    "static_same_tensor": None,
    "dynamic_same_tensor": None,
    "static_mask_key_length": None,
    "sliding_dynamic_kept": None,
    "sliding_static_kept": None,
    "tiny_kv_bytes_per_token": None,
    "llama8b_kv_bytes_per_token_bf16": None,
    "cost_llama8b_requests_8k_80gib": None,
    "cost_llama70b_requests_4k_two_80gib": None,
}

PRECISION: dict = {}

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
PROMPT, NEW = 5, 4
ASKED_NEW = 10
"""The new tokens exercises 1 and 2 ask about: the trace shows the rule at 4, the exercises apply it at 10."""


def watch_cache(model) -> list[dict]:
    """A forward hook noting, after every forward, layer 0's stored length, buffer shape and data pointer."""
    seen: list[dict] = []

    def note(module, args, kwargs, output):
        layer = output.cache.layers[0]
        seen.append({"stored": int(output.cache.get_seq_length()), "shape": tuple(layer.keys.shape), "ptr": layer.keys.data_ptr()})

    handle = model.register_forward_hook(note, with_kwargs=True)
    seen.append({"handle": handle})
    return seen


def run(model, prompt, new: int = NEW, **kwargs) -> list[dict]:
    import torch

    seen = watch_cache(model)
    with torch.no_grad():
        model.generate(prompt, max_new_tokens=new, do_sample=False, **kwargs)
    seen.pop(0)["handle"].remove()
    return seen


def show_dynamic_and_static(device: str, steps: int) -> dict:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(200)
    model = LlamaForCausalLM(LlamaConfig(**SIZES)).to(device).eval()
    prompt = torch.randint(3, 128, (1, PROMPT), generator=torch.Generator().manual_seed(201)).to(device)
    dynamic = run(model, prompt)
    static = run(model, prompt, cache_implementation="static")
    for name, seen in (("dynamic", dynamic), ("static ", static)):
        for index, step in enumerate(seen[: steps + 1]):
            same = "" if index == 0 else f", same tensor as before: {reveal(step['ptr'] == seen[index - 1]['ptr'])}"
            print(f"{name} forward {index}: {step['stored']} positions stored, layer 0 keys {step['shape']}{same}")
    dynamic_same = all(a["ptr"] == b["ptr"] for a, b in itertools.pairwise(dynamic[1:]))
    static_same = all(a["ptr"] == b["ptr"] for a, b in itertools.pairwise(static[1:]))
    dynamic_asked = run(model, prompt, ASKED_NEW)[-1]["shape"][-2]
    static_asked = run(model, prompt, ASKED_NEW, cache_implementation="static")[-1]["shape"][-2]
    print(f"after {ASKED_NEW} new tokens: dynamic keys hold {reveal(dynamic_asked)} positions; static buffer {reveal(static_asked)}")
    print(f"decode steps reuse the same key tensor: static {reveal(static_same)}, dynamic {reveal(dynamic_same)}")
    from transformers import StaticCache

    cache = StaticCache(config=model.config, max_cache_len=16)
    mask_length = cache.layers[0].get_mask_sizes(1)[0]
    print(f"a StaticCache(max_cache_len=16) asks for a mask over {reveal(mask_length)} keys at every decode step")
    return {
        "dynamic_positions_after": dynamic_asked,
        "static_buffer_positions": static_asked,
        "static_same_tensor": static_same,
        "dynamic_same_tensor": dynamic_same,
        "static_mask_key_length": int(mask_length),
    }


def show_sliding(device: str) -> dict:
    import torch
    from transformers import MistralConfig, MistralForCausalLM

    torch.manual_seed(202)
    model = MistralForCausalLM(MistralConfig(sliding_window=4, **SIZES)).to(device).eval()
    prompt = torch.randint(3, 128, (1, 6), generator=torch.Generator().manual_seed(203)).to(device)
    kept = {}
    for name, kwargs in (("dynamic", {}), ("static", {"cache_implementation": "static"})):
        with torch.no_grad():
            out = model.generate(prompt, max_new_tokens=NEW, do_sample=False, return_dict_in_generate=True, **kwargs)
        layer = out.cache.layers[0]
        kept[name] = int(layer.keys.shape[-2])
        print(f"sliding window 4, {name}: {type(layer).__name__}, {reveal(kept[name])} positions kept of {out.cache.get_seq_length()} seen")
    return {"sliding_dynamic_kept": kept["dynamic"], "sliding_static_kept": kept["static"]}


def show_bytes(device: str) -> dict:
    import torch
    from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

    torch.manual_seed(204)
    model = LlamaForCausalLM(LlamaConfig(**SIZES)).to(device).eval()
    cache = DynamicCache(config=model.config)
    with torch.no_grad():
        model(input_ids=torch.arange(3, 3 + PROMPT, device=device)[None], cache=cache)
    stored = sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers)
    per_token = stored // cache.get_seq_length()
    print(f"tiny cache: {stored} bytes for {cache.get_seq_length()} positions = {reveal(per_token)} bytes per token (float32)")
    # Llama-3.1-8B's published sizes: 32 layers, 8 key/value heads of 128 dims; bf16 is 2 bytes.
    big = LlamaConfig(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8)
    head_dim = big.hidden_size // big.num_attention_heads
    llama = 2 * big.num_hidden_layers * big.num_key_value_heads * head_dim * torch.tensor([], dtype=torch.bfloat16).element_size()
    print(f"Llama-3.1-8B, bf16: {reveal(llama)} bytes per token; a 128k-token context: {reveal(llama * 131072 / 2**30, '.0f')} GiB per sequence")
    return {"tiny_kv_bytes_per_token": int(per_token), "llama8b_kv_bytes_per_token_bf16": int(llama)}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=NEW, steps_help="how many forwards per cache to print").parse_args(argv)
    device = setup_torch(args.device)
    answers: dict = {}
    answers.update(show_dynamic_and_static(device, args.steps))
    answers.update(show_sliding(device))
    answers.update(show_bytes(device))
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("20", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("20")})


if __name__ == "__main__":
    sys.exit(main())
