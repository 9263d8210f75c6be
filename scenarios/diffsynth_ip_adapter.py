"""DiffSynth's Flux IP-Adapter: ``FluxImageUnit_IPAdapter.process`` builds per-block K/V that a tiny FluxDiT consumes.

Runs in the ``diffsynth-full`` process (the unit lives in ``pipelines/flux_image.py``). The SigLIP image encoder is a
stand-in with the same interface (``.pooler_output`` of width 1152, the width ``MLPProjModel`` expects); everything else
is DiffSynth's real code on small sizes.
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.tiny import StandInImageEncoder, import_full_diffsynth
from infralens.verify import ScenarioContext

from .diffsynth_full import _tiny_flux_dit

PROCESS = "diffsynth-full"
IMPORTS = ("torch", "transformers", "peft", "PIL.Image")


def _randn(*shape: int, seed: int, device: str) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(device)


def _picture(seed: int):
    from PIL import Image

    pixels = torch.randint(0, 256, (20, 24, 3), generator=torch.Generator().manual_seed(seed), dtype=torch.uint8)
    return Image.fromarray(pixels.numpy(), mode="RGB")


@scenario("diffsynth-ip-adapter", "FluxIpAdapter on a tiny FluxDiT through FluxImageUnit_IPAdapter.process")
def run_diffsynth_ip_adapter(ctx: ScenarioContext) -> None:
    """The unit encodes two pictures, projects them to 2 x 4 tokens, and hands each DiT block its own K/V and scale."""
    import_full_diffsynth()
    from diffsynth.models.flux_ipadapter import FluxIpAdapter
    from diffsynth.pipelines.flux_image import FluxImagePipeline, FluxImageUnit_IPAdapter, model_fn_flux_image

    device = ctx.device
    dit = _tiny_flux_dit(device)  # 64 wide, 2 heads of 32, one joint block (id 0) and one single block (id 1)
    torch.manual_seed(184)
    pipe = FluxImagePipeline(device=device, torch_dtype=torch.float32)
    pipe.ipadapter = FluxIpAdapter(num_attention_heads=2, attention_head_dim=32, cross_attention_dim=24, num_tokens=4, num_blocks=2).to(device).eval()
    pipe.ipadapter_image_encoder = StandInImageEncoder().to(device).eval()
    shared = {"ipadapter_images": [_picture(185), _picture(186)], "ipadapter_scale": 0.6, "cfg_scale": 3.0}
    with torch.no_grad():
        _, posi, nega = FluxImageUnit_IPAdapter().process(pipe, shared, {}, {})
    kv = posi["ipadapter_kwargs_list"]
    ctx.fact("blocks with K/V", sorted(kv))
    ctx.fact("ip_k shape", tuple(kv[0]["ip_k"].shape))
    ctx.check(sorted(kv) == [0, 1] and tuple(kv[0]["ip_k"].shape) == (1, 2, 8, 32), f"K/V blocks {sorted(kv)}, ip_k {tuple(kv[0]['ip_k'].shape)}")
    ctx.check(kv[1]["scale"] == 0.6 and nega["ipadapter_kwargs_list"][1]["scale"] == 1.0, "scales: positive 0.6, negative keeps the default 1.0")

    latents = _randn(1, 4, 6, 10, seed=187, device=device)
    common = dict(
        timestep=torch.tensor([500.0], device=device),
        prompt_emb=_randn(1, 6, 32, seed=188, device=device),
        pooled_prompt_emb=_randn(1, 32, seed=189, device=device),
        guidance=torch.tensor([3.5], device=device),
        text_ids=torch.zeros(1, 6, 3, device=device),
    )
    silent = {block: dict(entry, scale=0.0) for block, entry in kv.items()}
    with torch.no_grad():
        plain = model_fn_flux_image(dit, latents=latents, **common)
        off = model_fn_flux_image(dit, latents=latents, ipadapter_kwargs_list=silent, **common)
        on = model_fn_flux_image(dit, latents=latents, ipadapter_kwargs_list=kv, **common)
    change = float((on - plain).abs().max())
    ctx.fact("scale 0 vs no adapter", float((off - plain).abs().max()))
    ctx.fact("scale 0.6 change", change)
    ctx.check(torch.equal(off, plain), "scale 0 K/V changed the DiT output")
    ctx.check(change > 1e-4, "the IP-Adapter K/V did not change the DiT output")
