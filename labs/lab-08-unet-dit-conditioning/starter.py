"""Lab 08 starter: how time and text reach the denoiser — UNet (SD), DiT, SD3 and DiffSynth.

Run:  .venv/bin/python labs/lab-08-unet-dit-conditioning/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Prints the sinusoidal timestep embedding, the tiny UNet's conditioning shapes (time vector,
text tokens, attention processors) and how much its output moves when only the text or only
the timestep changes; the tiny DiT's token grid and class conditioning; SD3's pooled and
token-level text routes; and DiffSynth's SD UNet running the same weights (loaded from source).
``--check`` recomputes the answers to the exercises in index.md and exits 1 if one is wrong.
"""

from __future__ import annotations

import sys

from infralens.tiny.labkit import finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "first_channel_is_cos_t": None,  # flip_sin_to_cos=True puts cos(t * 1) first
    "unet_time_embed_dim": None,  # 4 * block_out_channels[0]
    "unet_attention_processors": None,  # 2 transformer layers x 2 attns (down) + 3 x 2 (up) + 1 x 2 (mid)
    "unet_processor_type": None,
    "dit_tokens_8x8_p2": None,
    "sd3_tokens_32x32_p2": None,
    "adaln_zero_vectors": None,
    "dit_out_channels": None,  # noise + variance (learn_sigma)
    "diffsynth_unet_matches_1e-4": None,
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION: dict = {}


def capture_output(module):
    """Register a forward hook that stores the module's last output; returns (store, handle)."""
    store = {}
    handle = module.register_forward_hook(lambda m, i, o: store.__setitem__("out", o))
    return store, handle


def show_timestep_embedding(steps: int) -> dict:
    import torch
    from diffusers.models.embeddings import get_timestep_embedding

    print("== 1. Sinusoidal timestep embedding (dim 32, cos first, freq_shift 0 — the tiny UNet's settings)")
    t = torch.linspace(0, 999, max(steps, 2)).round()
    emb = get_timestep_embedding(t, 32, flip_sin_to_cos=True, downscale_freq_shift=0)
    for value, row in zip(t.tolist(), emb, strict=True):
        print(f"  t={value:5.0f}: first 4 channels {[round(float(x), 3) for x in row[:4]]}")
    near = get_timestep_embedding(torch.tensor([500.0, 501.0, 999.0]), 32, flip_sin_to_cos=True, downscale_freq_shift=0)
    cos = torch.nn.functional.cosine_similarity
    print(f"  cosine(emb(500), emb(501)) = {float(cos(near[0], near[1], dim=0)):.3f}; cosine(emb(500), emb(999)) = {float(cos(near[0], near[2], dim=0)):.3f}")
    return {"first_channel_is_cos_t": bool(torch.allclose(emb[:, 0], torch.cos(t), atol=1e-5))}


def show_unet(device: str) -> dict:
    import torch

    from infralens.tiny import tiny_unet

    print("== 2. Tiny SD UNet: time is added everywhere, text is read by cross-attention")
    unet = tiny_unet(seed=0).to(device).eval()
    store, handle = capture_output(unet.time_embedding)
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(2, 4, 32, 32, generator=generator).to(device)
    text = torch.randn(2, 77, 32, generator=generator).to(device)
    other_text = torch.randn(2, 77, 32, generator=generator).to(device)
    with torch.no_grad():
        base = unet(x, 500, encoder_hidden_states=text).sample
        emb_shape = tuple(store["out"].shape)
        text_delta = float((unet(x, 500, encoder_hidden_states=other_text).sample - base).abs().mean())
        time_delta = float((unet(x, 100, encoder_hidden_states=text).sample - base).abs().mean())
    handle.remove()
    processors = unet.attn_processors
    kinds = sorted({type(p).__name__ for p in processors.values()})
    print(f"  latent {tuple(x.shape)}, text tokens {tuple(text.shape)} (cross_attention_dim {unet.config.cross_attention_dim})")
    print(f"  time embedding after the MLP: {reveal(emb_shape)} = (B, 4 * block_out_channels[0])")
    print(f"  {reveal(len(processors))} attention processors, types {reveal(kinds)}: attn1 = self-attention, attn2 = cross-attention to text")
    print(f"  mean |output change|: other text {text_delta:.4f}, timestep 500 -> 100 {time_delta:.4f}")
    return {
        "unet_time_embed_dim": emb_shape[-1],
        "unet_attention_processors": len(processors),
        "unet_processor_type": kinds[0] if len(kinds) == 1 else str(kinds),
        "unet": unet,
    }


def show_dit(device: str) -> dict:
    import torch

    from infralens.tiny import tiny_dit

    print("== 3. Tiny DiT: patch tokens, conditioning by adaLN-Zero (no cross-attention)")
    dit = tiny_dit(seed=0).to(device).eval()
    tokens, handle = capture_output(dit.pos_embed)
    ada, ada_handle = capture_output(dit.transformer_blocks[0].norm1.linear)
    x = torch.randn(2, 4, 8, 8, generator=torch.Generator().manual_seed(1)).to(device)
    t = torch.tensor([500, 500], device=device)
    with torch.no_grad():
        out = dit(x, timestep=t, class_labels=torch.tensor([3, 3], device=device)).sample
        other = dit(x, timestep=t, class_labels=torch.tensor([7, 7], device=device)).sample
    handle.remove()
    ada_handle.remove()
    print(f"  latent {tuple(x.shape)}, patch {dit.config.patch_size} -> tokens {reveal(tuple(tokens['out'].shape))} (B, (8/2)^2, inner_dim)")
    print(f"  adaLN-Zero linear output {reveal(tuple(ada['out'].shape))} = {reveal(6)} x inner_dim: shift/scale/gate for attention and MLP")
    print(
        f"  output {reveal(tuple(out.shape))}: {reveal(dit.config.out_channels)} channels = noise + variance; class 3 -> 7 changes it by "
        f"{float((out - other).abs().mean()):.4f}"
    )
    return {"dit_tokens_8x8_p2": tokens["out"].shape[1], "adaln_zero_vectors": ada["out"].shape[-1] // dit.inner_dim, "dit_out_channels": out.shape[1]}


def show_sd3(device: str) -> dict:
    import torch

    from infralens.tiny import tiny_sd3

    print("== 4. Tiny SD3 (MM-DiT): pooled text joins the timestep, text tokens join the image tokens")
    model = tiny_sd3(seed=0).to(device).eval()
    tokens, handle = capture_output(model.pos_embed)
    generator = torch.Generator().manual_seed(2)
    x = torch.randn(1, 4, 32, 32, generator=generator).to(device)
    text = torch.randn(1, 7, 32, generator=generator).to(device)
    pooled = torch.randn(1, 64, generator=generator).to(device)
    with torch.no_grad():
        base = model(x, encoder_hidden_states=text, pooled_projections=pooled, timestep=torch.tensor([500.0], device=device)).sample
        pooled_delta = float(
            (model(x, encoder_hidden_states=text, pooled_projections=pooled * 0, timestep=torch.tensor([500.0], device=device)).sample - base).abs().mean()
        )
    handle.remove()
    print(f"  latent {tuple(x.shape)} -> {reveal(tokens['out'].shape[1])} image tokens; 7 text tokens share the joint attention")
    print(f"  zeroing only the pooled text vector changes the output by {pooled_delta:.4f} (it modulates every block)")
    return {"sd3_tokens_32x32_p2": tokens["out"].shape[1]}


def show_diffsynth(unet) -> dict:
    import torch
    from diffusers.models.embeddings import get_timestep_embedding

    from infralens.tiny import ds_tiny_unet, load_diffsynth_module

    print("== 5. DiffSynth (loaded from source): its own SD UNet and timestep embedding")
    module = load_diffsynth_module("diffsynth.models.stable_diffusion_unet")
    ds_unet = ds_tiny_unet(module)
    missing, unexpected = ds_unet.load_state_dict(unet.cpu().state_dict(), strict=False)
    generator = torch.Generator().manual_seed(3)
    x, text = torch.randn(1, 4, 32, 32, generator=generator), torch.randn(1, 77, 32, generator=generator)
    t = torch.tensor([500])
    with torch.no_grad():
        diff = float((ds_unet(x, t, text) - unet(x, t, encoder_hidden_states=text).sample).abs().max())
    general = load_diffsynth_module("diffsynth.models.general_modules")
    ts = torch.tensor([1.0, 500.0, 999.0])
    emb_diff = float((general.get_timestep_embedding(ts, 64) - get_timestep_embedding(ts, 64)).abs().max())
    print(f"  diffusers UNet weights -> DiffSynth UNet: {len(missing)} missing, {len(unexpected)} unexpected; max |diff| = {reveal(diff, '.1e')}")
    print(f"  general_modules.get_timestep_embedding vs diffusers: max |diff| = {emb_diff}")
    return {"diffsynth_unet_matches_1e-4": diff < 1e-4}


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=3, steps_help="how many timesteps to embed in part 1").parse_args(argv)
    device = setup_torch(args.device)
    answers = show_timestep_embedding(args.steps)
    answers.update(show_unet(device))
    answers.update(show_dit(device))
    answers.update(show_sd3(device))
    answers.update(show_diffsynth(answers.pop("unet")))
    return finish(args, ANSWERS, answers, tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
