"""Lab 13 starter: Flux — packed latents, position ids, the shifted schedule, guidance embedding, true CFG; DiffSynth's DiT.

Run:  .venv/bin/python labs/lab-13-flux/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Builds the tiny FluxPipeline (2 double-stream + 2 single-stream blocks, width 32) and prints: how a
16x16 latent becomes tokens and ids, the shift mu and the timesteps it gives, what the transformer
receives as guidance, how many transformer calls a step costs with and without true CFG, and the
RoPE layout. Then it loads DiffSynth's flux_dit by path, copies the diffusers weights into its
blocks and compares the outputs. ``--check`` recomputes the answers to the exercises in index.md.
"""

from __future__ import annotations

import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "packed_tokens": None,
    "token_features": None,
    "image_ids_of_token_9": None,
    "mu_for_64_tokens": None,
    "second_timestep_2_steps": None,
    "guidance_seen_by_embedding": None,
    "calls_per_step_plain": None,
    "calls_per_step_true_cfg": None,
    "text_ids_all_zero": None,
    "rope_channels_per_head": None,
    "diffsynth_blocks_match_1e-5": None,
    "diffsynth_single_fused_width": None,
    "cost_flux_pipeline_peak_512_gib": None,
    "cost_flux_true_cfg_image_tflop": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {"mu_for_64_tokens": Decimals(4), "second_timestep_2_steps": Decimals(1), "guidance_seen_by_embedding": Decimals(1)}


class Calls:
    """Forward pre-hooks on the transformer and on its time/guidance embedding."""

    def __init__(self, transformer) -> None:
        self.batches: list[int] = []
        self.guidance: list[float] = []
        transformer.register_forward_pre_hook(self._model, with_kwargs=True)
        transformer.time_text_embed.register_forward_pre_hook(self._embed)

    def _model(self, module, args, kwargs) -> None:
        self.batches.append(int(kwargs["hidden_states"].shape[0]))

    def _embed(self, module, args) -> None:
        self.guidance.append(float(args[1].flatten()[0]))


def show_packing(pipe, device) -> dict:
    import torch

    print("== 1. Packing: 2x2 latent patches become tokens, with (0, row, col) ids")
    latents = torch.randn(1, 1, 16, 16, generator=torch.Generator().manual_seed(0)).to(device)
    tokens = pipe._pack_latents(latents, 1, 1, 16, 16)
    ids = pipe._prepare_latent_image_ids(1, 8, 8, device, torch.float32)
    back = pipe._unpack_latents(tokens, 16, 16, pipe.vae_scale_factor)
    print(f"  latent {tuple(latents.shape)} -> tokens {reveal(tuple(tokens.shape))}; ids {reveal(tuple(ids.shape))}, token 9 has ids {reveal(ids[9].tolist())}")
    print(f"  unpack(pack(x)) == x: {torch.equal(back, latents)}")
    return {"packed_tokens": tokens.shape[1], "token_features": tokens.shape[2], "image_ids_of_token_9": [int(v) for v in ids[9].tolist()]}


def show_schedule(pipe) -> dict:
    from diffusers.pipelines.flux.pipeline_flux import calculate_shift

    print("== 2. The shifted schedule: mu grows with the token count")
    config = pipe.scheduler.config
    for tokens in (64, 256, 4096):
        mu = calculate_shift(tokens, config.base_image_seq_len, config.max_image_seq_len, config.base_shift, config.max_shift)
        print(f"  {tokens} tokens: mu = {reveal(mu, '.4f') if tokens == 64 else format(mu, '.4f')}")
    mu = calculate_shift(64, config.base_image_seq_len, config.max_image_seq_len, config.base_shift, config.max_shift)
    pipe.scheduler.set_timesteps(sigmas=[1.0, 0.5], mu=mu)
    timesteps = [round(float(t), 1) for t in pipe.scheduler.timesteps]
    print(f"  2 steps at 64 tokens: sigmas [1.0, 0.5] -> timesteps {reveal(timesteps)}")
    return {"mu_for_64_tokens": round(mu, 4), "second_timestep_2_steps": timesteps[1]}


def show_calls(pipe, device, steps: int) -> dict:
    import torch

    print("== 3. Guidance embedding and true CFG")
    calls = Calls(pipe.transformer)
    common = dict(height=16, width=16, num_inference_steps=steps, max_sequence_length=16, guidance_scale=3.5, output_type="np")
    plain = pipe("a red cat", generator=torch.Generator(device).manual_seed(0), **common).images
    plain_calls = len(calls.batches)
    print(f"  guidance_scale 3.5 reaches the embedding as {reveal(calls.guidance[0])}; {reveal(plain_calls)} transformer calls for {steps} steps")
    calls.batches.clear()
    guided = pipe("a red cat", negative_prompt="blurry", true_cfg_scale=4.0, generator=torch.Generator(device).manual_seed(0), **common).images
    print(f"  true_cfg_scale 4.0 + negative_prompt: {reveal(len(calls.batches))} calls, batch sizes {reveal(calls.batches)}")
    print(f"  image change from true CFG: {float(abs(guided - plain).max()):.4f}")
    _, _, text_ids = pipe.encode_prompt("a red cat", None, device=device, max_sequence_length=16)
    print(f"  text ids {tuple(text_ids.shape)}, all zero: {reveal(not bool(text_ids.any()))}")
    return {
        "guidance_seen_by_embedding": calls.guidance[0],
        "calls_per_step_plain": plain_calls // steps,
        "calls_per_step_true_cfg": len(calls.batches) // steps,
        "text_ids_all_zero": not bool(text_ids.any()),
    }


def show_diffsynth(transformer, device) -> dict:
    import torch

    from infralens.tiny import load_diffsynth_module, tiny_ds_flux_dit

    print("== 4. RoPE and DiffSynth's FluxDiT with the same weights")
    module = load_diffsynth_module("diffsynth.models.flux_dit")
    dit = tiny_ds_flux_dit(module, transformer).to(device)
    generator = torch.Generator().manual_seed(1)
    text, image, temb = (torch.randn(*shape, generator=generator).to(device) for shape in ((1, 16, 32), (1, 64, 32), (1, 32)))
    latents = torch.zeros(1, 1, 16, 16, device=device)
    ids = torch.cat([torch.zeros(1, 16, 3, device=device), dit.prepare_image_ids(latents)], dim=1)
    cos, sin = transformer.pos_embed(ids[0])
    rope = dit.pos_embedder(ids)
    print(
        f"  diffusers RoPE cos {reveal(tuple(cos.shape))} (axes {list(transformer.config.axes_dims_rope)}); "
        f"DiffSynth rotation matrices {reveal(tuple(rope.shape))}"
    )
    with torch.no_grad():
        ref_text, ref_image = transformer.transformer_blocks[0](image, text, temb, (cos, sin))
        got_image, got_text = dit.blocks[0](image, text, temb, rope)
        ref_text2, ref_image2 = transformer.single_transformer_blocks[0](ref_image, ref_text, temb, (cos, sin))
        joint, _ = dit.single_blocks[0](torch.cat([got_text, got_image], 1), got_text, temb, rope)
    double = max(float((got_image - ref_image).abs().max()), float((got_text - ref_text).abs().max()))
    single = float((joint - torch.cat([ref_text2, ref_image2], 1)).abs().max())
    fused = dit.single_blocks[0].to_qkv_mlp.out_features
    print(f"  double-stream block max |diff| = {reveal(double, '.1e')}; single-stream block max |diff| = {reveal(single, '.1e')}")
    print(f"  DiffSynth single block fuses q, k, v and the MLP input: to_qkv_mlp out_features = {reveal(fused)}")
    return {"rope_channels_per_head": cos.shape[1], "diffsynth_blocks_match_1e-5": max(double, single) < 1e-5, "diffsynth_single_fused_width": fused}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=2, steps_help="denoising steps of the FluxPipeline calls").parse_args(argv)
    device = setup_torch(args.device)
    from diffusers import FluxPipeline

    from infralens.tiny import tiny_flux_components

    pipe = FluxPipeline(**tiny_flux_components(seed=0)).to(device)
    pipe.set_progress_bar_config(disable=True)
    answers = show_packing(pipe, device)
    answers.update(show_schedule(pipe))
    answers.update(show_calls(pipe, device, max(args.steps, 1)))
    answers.update(show_diffsynth(pipe.transformer, device))
    from infralens.cost import cost_tolerances, show_cost_exercises

    answers.update(show_cost_exercises("13", reveal))
    return finish(args, ANSWERS, answers, tolerances={**PRECISION, **cost_tolerances("13")})


if __name__ == "__main__":
    sys.exit(main())
