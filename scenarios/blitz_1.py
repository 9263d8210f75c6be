"""A cross-attention variant of ``attention-dispatch`` (issue 39, blitz 1).

The parent scenario calls ``dispatch_attention_fn`` with self-attention, where query and key have the same
shape, so a query/key mix-up in the layout change cannot be seen. Here the query has 6 tokens and the keys
and values 4, through ``native`` (with a key-padding mask), ``_native_math`` and ``_native_flash``.
"""

from __future__ import annotations

import torch

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = ("torch", "diffusers")


@scenario("blitz1-attention-cross", "dispatch_attention_fn cross-attention (6 queries, 4 keys) on native, _native_math, _native_flash")
def run_attention_cross(ctx: ScenarioContext) -> None:
    """Cross-attention through three native backends, each compared with softmax(QK^T/sqrt(d) + mask) V."""
    from diffusers.models import attention_dispatch as ad

    registry, names = ad._AttentionBackendRegistry, ad.AttentionBackendName
    saved = (registry._active_backend, registry._checks_enabled)
    generator = torch.Generator().manual_seed(152)
    query = torch.randn(1, 6, 2, 16, generator=generator).to(ctx.device)
    key, value = (torch.randn(1, 4, 2, 16, generator=generator).to(ctx.device) for _ in range(2))
    mask = torch.ones(1, 4, dtype=torch.bool, device=ctx.device)
    mask[:, -1] = False  # the last key is padding

    def reference(with_mask: bool) -> torch.Tensor:
        scores = query.transpose(1, 2) @ key.transpose(1, 2).transpose(-1, -2) / 4.0
        if with_mask:
            scores = scores + torch.where(mask, 0.0, float("-inf"))[:, None, None]
        return (torch.softmax(scores, -1) @ value.transpose(1, 2)).transpose(1, 2)

    try:
        registry._checks_enabled = False
        native = ad.dispatch_attention_fn(query, key, value, attn_mask=mask, backend=names.NATIVE)
        ctx.check(
            native.shape == query.shape and torch.allclose(native, reference(True), atol=1e-5), "native cross-attention should equal the masked reference"
        )
        math = ad.dispatch_attention_fn(query, key, value, backend=names._NATIVE_MATH)
        ctx.check(torch.allclose(math, reference(False), atol=1e-5), "_native_math cross-attention should equal the reference")
        if ctx.device == "cuda":  # CUDA's flash kernel takes only half types
            halves = [tensor.to(torch.bfloat16) for tensor in (query, key, value)]
            flash = ad.dispatch_attention_fn(halves[0], halves[1], halves[2], backend=names._NATIVE_FLASH).float()
            ctx.check(torch.allclose(flash, reference(False), atol=3e-2), "_native_flash (bf16) cross-attention should match the reference")
        else:
            flash = ad.dispatch_attention_fn(query, key, value, backend=names._NATIVE_FLASH)
            ctx.check(torch.allclose(flash, reference(False), atol=1e-5), "_native_flash cross-attention should equal the reference")
    finally:
        registry._active_backend, registry._checks_enabled = saved
