"""transformers' assisted (speculative) decoding on tiny random-weight LLaMAs: a draft model, prompt lookup, sampling.

The target is lab 19's 2-layer LLaMA. Its draft is one layer shorter and shares the target's embeddings, first
decoder layer, final norm and LM head (a layer-skip draft), so it agrees with the target often enough for rounds to
accept some of its tokens and reject others. Every greedy run is checked against plain greedy ``generate`` on the
same target: assisted decoding must change how many target forwards are run, never which tokens come out.
"""

from __future__ import annotations

from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

from .transformers_generation import SIZES, tiny_llama

IMPORTS = (
    "torch",
    "transformers",
    "transformers.generation.utils",
    "transformers.generation.candidate_generator",
    "transformers.generation.stopping_criteria",
    "transformers.cache_utils",
    "transformers.models.llama.modeling_llama",
    "transformers.models.whisper.modeling_whisper",
)

PROMPT, NEW, DRAFT_TOKENS = 6, 12, 4
TARGET_SEED, PROMPT_SEED = 240, 242


def layer_skip_draft(target: Any, tokens: int = DRAFT_TOKENS, schedule: str = "heuristic", threshold: float = 0.0) -> Any:
    """A 1-layer LLaMA holding the target's embeddings, first layer, final norm and LM head (same vocabulary).

    ``threshold`` is the draft's ``assistant_confidence_threshold``: 0 turns the confidence stop off, so every round
    drafts ``num_assistant_tokens`` tokens unless the length budget is smaller."""
    from transformers import LlamaConfig, LlamaForCausalLM

    draft: Any = LlamaForCausalLM(LlamaConfig(**dict(SIZES, num_hidden_layers=1)))
    shared = {name: value for name, value in target.state_dict().items() if not name.startswith("model.layers.1.")}
    draft.load_state_dict(shared)
    draft = draft.to(target.device).eval()
    draft.generation_config.num_assistant_tokens = tokens
    draft.generation_config.num_assistant_tokens_schedule = schedule
    draft.generation_config.assistant_confidence_threshold = threshold
    return draft


def small_draft(device: str, seed: int = 243) -> Any:
    """An unrelated 1-layer LLaMA of half the width with the same vocabulary, random weights, default draft settings."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    sizes = dict(SIZES, num_hidden_layers=1, hidden_size=32, intermediate_size=48, num_attention_heads=2, num_key_value_heads=1)
    model: Any = LlamaForCausalLM(LlamaConfig(**sizes))
    return model.to(device).eval()


def watch_forwards(model: Any) -> tuple[list[tuple[int, int]], Any]:
    """A pre-hook noting, for every forward of ``model``, (positions fed in, positions already cached)."""
    seen: list[tuple[int, int]] = []

    def note(module: Any, args: Any, kwargs: dict[str, Any]) -> None:
        cache = kwargs.get("cache")
        seen.append((int(kwargs["input_ids"].shape[1]), int(cache.get_seq_length()) if cache is not None else 0))

    return seen, model.register_forward_pre_hook(note, with_kwargs=True)


def rounds_of(seen: list[tuple[int, int]], final_length: int) -> list[dict[str, int]]:
    """Per verifying forward: candidates it checked and candidates accepted, from what each forward fed and found cached.

    A forward feeds the uncached tokens (the prompt or the last accepted token) plus the candidates; the next
    forward finds every token but the newest cached, so the tokens a round added are the difference."""
    rounds = []
    ends = [cached + 1 for _, cached in seen[1:]] + [final_length]
    for (fed, cached), end in zip(seen, ends, strict=True):
        start, candidates = (cached + 1, fed - 1) if cached else (PROMPT, fed - PROMPT)
        rounds.append({"candidates": candidates, "accepted": end - start - 1})
    return rounds


def greedy(model: Any, ids: torch.Tensor, **kwargs: Any) -> Any:
    with torch.no_grad():
        return model.generate(ids, max_new_tokens=NEW, do_sample=False, **kwargs)


def prompt_of(ctx: ScenarioContext, seed: int = PROMPT_SEED) -> torch.Tensor:
    return torch.randint(3, SIZES["vocab_size"], (1, PROMPT), generator=ctx.generator(seed)).to(ctx.device)


@scenario("llm-assisted-draft", "tiny LLaMA with a 1-layer layer-skip draft, greedy, heuristic draft length; equals plain greedy")
def run_assisted_draft(ctx: ScenarioContext) -> None:
    target = tiny_llama(ctx.device, TARGET_SEED)
    ids = prompt_of(ctx)
    plain = greedy(target, ids)
    draft = layer_skip_draft(target)
    seen, hook = watch_forwards(target)
    assisted = greedy(target, ids, assistant_model=draft)
    hook.remove()
    ctx.check(torch.equal(assisted, plain), f"assisted greedy {assisted.tolist()} equals plain greedy {plain.tolist()}")
    rounds = rounds_of(seen, assisted.shape[1])
    ctx.check(len(seen) < NEW, f"{len(seen)} target forwards for {NEW} tokens (plain greedy runs {NEW})")
    ctx.check(sum(r["accepted"] + 1 for r in rounds) == NEW, f"each round adds its accepted candidates plus one: {rounds}")
    ctx.check(any(r["accepted"] == 0 for r in rounds) and any(r["accepted"] > 0 for r in rounds), "some rounds reject, some accept")
    ctx.fact("rounds", rounds)
    ctx.fact("draft_tokens_after", draft.generation_config.num_assistant_tokens)


WHISPER: dict[str, Any] = dict(
    vocab_size=SIZES["vocab_size"],
    num_mel_bins=10,
    d_model=64,
    encoder_layers=1,
    decoder_layers=2,
    encoder_attention_heads=4,
    decoder_attention_heads=4,
    encoder_ffn_dim=96,
    decoder_ffn_dim=96,
    max_source_positions=8,
    max_target_positions=64,
    pad_token_id=0,
    bos_token_id=1,
    eos_token_id=2,
    decoder_start_token_id=1,
    tie_word_embeddings=False,
)
"""A tiny Whisper: 10 mel bins over 16 frames (8 encoder positions), one encoder layer, two decoder layers. Untied output projection: with
the random embeddings tied, each position's top token is the token fed in, and every run repeats its start token."""


def whisper_and_draft(device: str, seed: int = 245) -> tuple[Any, Any]:
    """A WhisperForConditionalGeneration and a decoder-only draft laid out as DistilWhisper's: a 1-layer
    WhisperForCausalLM holding the target's decoder embeddings, first decoder layer, final norm and projection."""
    from transformers import WhisperConfig, WhisperForCausalLM, WhisperForConditionalGeneration

    torch.manual_seed(seed)
    target: Any = WhisperForConditionalGeneration(WhisperConfig(**WHISPER))
    draft: Any = WhisperForCausalLM(WhisperConfig(**dict(WHISPER, decoder_layers=1)))
    weights = target.state_dict()
    draft.load_state_dict({name: weights[name] for name in draft.state_dict()})
    draft.generation_config.num_assistant_tokens = DRAFT_TOKENS
    draft.generation_config.assistant_confidence_threshold = 0.0
    return target.to(device).eval(), draft.to(device).eval()


@scenario(
    "llm-assisted-encoder-draft",
    "tiny Whisper (encoder-decoder) with a 1-layer decoder-only draft on its encoder outputs, then the LLaMA with its layer-skip draft; both equal greedy",
)
def run_assisted_encoder_draft(ctx: ScenarioContext) -> None:
    target, draft = whisper_and_draft(ctx.device)
    features = torch.randn(1, WHISPER["num_mel_bins"], 2 * WHISPER["max_source_positions"], generator=ctx.generator(246)).to(ctx.device)
    # eos 127, which this target never emits here: every run decodes NEW tokens (with eos 2 it stops after two;
    # 2 is then an ordinary token).
    settings: dict[str, Any] = dict(max_new_tokens=NEW, do_sample=False, eos_token_id=SIZES["vocab_size"] - 1)
    with torch.no_grad():
        plain = target.generate(features, **settings)
        assisted = target.generate(features, assistant_model=draft, **settings)
    ctx.check(torch.equal(assisted, plain), f"Whisper assisted greedy {assisted.tolist()} equals plain greedy {plain.tolist()}")
    ctx.check(plain.shape[1] == NEW and len(set(plain[0].tolist())) > 2, f"{NEW} varied tokens (Whisper drops the start token): {plain.tolist()}")
    llama = tiny_llama(ctx.device, TARGET_SEED)
    ids = prompt_of(ctx)
    ctx.check(torch.equal(greedy(llama, ids, assistant_model=layer_skip_draft(llama)), greedy(llama, ids)), "LLaMA assisted greedy equals plain greedy")
    ctx.fact("whisper_tokens", plain[0].tolist())


@scenario("llm-assisted-self", "tiny LLaMA drafting for itself: every candidate is accepted and one verifying forward does the rest")
def run_assisted_self(ctx: ScenarioContext) -> None:
    target = tiny_llama(ctx.device, TARGET_SEED)
    ids = prompt_of(ctx)
    plain = greedy(target, ids)
    target.generation_config.assistant_confidence_threshold = 0.0
    seen, hook = watch_forwards(target)
    assisted = greedy(target, ids, assistant_model=target)
    hook.remove()
    ctx.check(torch.equal(assisted, plain), f"self-assisted greedy {assisted.tolist()} equals plain greedy")
    # The assistant's own generate runs the same model, so its forwards are seen too: a prefill, one per drafted
    # token but the last, then the target's single verifying forward over prompt + every candidate.
    ctx.check(seen[-1] == (PROMPT + NEW - 1, 0), f"the last forward verifies prompt + {NEW - 1} candidates at once: {seen[-1]}")
    ctx.fact("forwards", seen)


@scenario("llm-assisted-confidence", "tiny LLaMA with an unrelated small random draft at the default confidence threshold")
def run_assisted_confidence(ctx: ScenarioContext) -> None:
    target = tiny_llama(ctx.device, TARGET_SEED)
    ids = prompt_of(ctx)
    plain = greedy(target, ids)
    draft = small_draft(ctx.device)
    seen, hook = watch_forwards(target)
    assisted = greedy(target, ids, assistant_model=draft)
    hook.remove()
    ctx.check(torch.equal(assisted, plain), f"assisted greedy {assisted.tolist()} equals plain greedy")
    rounds = rounds_of(seen, assisted.shape[1])
    ctx.check(all(r["candidates"] <= 1 for r in rounds), f"an unsure draft stops after one token each round: {rounds}")
    ctx.fact("rounds", rounds)


RUN_END = [5, 9, 14, 33, 44, 77, 77, 77]
"""A prompt whose last 2-gram ``77 77`` first occurs three positions from its end: the continuation found there is
one token (the last ``77``), cut from three by the sequence's end."""


@scenario("llm-prompt-lookup", "tiny LLaMA with prompt lookup on a prompt whose match runs into its end, then one that repeats itself; equals plain greedy")
def run_prompt_lookup(ctx: ScenarioContext) -> None:
    target = tiny_llama(ctx.device, TARGET_SEED)
    # First a lookup whose continuation the sequence's end clips. Two new tokens: after the first round the next call
    # is one token short of max_length and returns before looking anything up.
    short = torch.tensor([RUN_END], device=ctx.device)
    with torch.no_grad():
        short_plain = target.generate(short, max_new_tokens=2, do_sample=False)
        short_looked_up = target.generate(short, max_new_tokens=2, do_sample=False, prompt_lookup_num_tokens=3)
    ctx.check(torch.equal(short_looked_up, short_plain), f"prompt lookup on {RUN_END} gives plain greedy's {short_plain[0, -2:].tolist()}")
    # A repetitive prompt: the target's own greedy text from a random start, which falls into a loop.
    with torch.no_grad():
        text = target.generate(prompt_of(ctx), max_new_tokens=14, do_sample=False)
    ctx.check(text.shape[1] == PROMPT + 14, "the prompt is the start plus 14 greedy tokens")
    plain = greedy(target, text)
    seen, hook = watch_forwards(target)
    looked_up = greedy(target, text, prompt_lookup_num_tokens=3)
    hook.remove()
    ctx.check(torch.equal(looked_up, plain), f"prompt lookup {looked_up[0, -NEW:].tolist()} equals plain greedy {plain[0, -NEW:].tolist()}")
    ctx.check(len(seen) < NEW, f"{len(seen)} target forwards for {NEW} tokens")
    ctx.fact("forwards", seen)


@scenario("llm-assisted-sampling", "tiny LLaMA sampling with the layer-skip draft: speculative sampling accepts with p/q")
def run_assisted_sampling(ctx: ScenarioContext) -> None:
    target = tiny_llama(ctx.device, TARGET_SEED)
    ids = prompt_of(ctx)
    draft = layer_skip_draft(target, schedule="constant")
    outs = []
    for _ in range(2):
        torch.manual_seed(244)
        with torch.no_grad():
            outs.append(target.generate(ids, max_new_tokens=NEW, do_sample=True, temperature=0.5, assistant_model=draft))
    ctx.check(torch.equal(outs[0], outs[1]), "the same seed gives the same speculative samples")
    ctx.check(outs[0].shape == (1, PROMPT + NEW), f"shape {tuple(outs[0].shape)}")
