"""DiffSynth's attention_forward (core/attention/attention.py), loaded path-based: which kernel each call reaches.

The module picks ``ATTENTION_IMPLEMENTATION`` once at import; here no optional kernel is installed, so it is
``"torch"``. The scenario also sets the module global to ``"sage_attention"``, ``"xformers"`` and
``"flash_attention_2"`` for single calls whose arguments send them back to PyTorch SDPA (causal, sliding window, a
mask), so those branches run on CPU without the kernels. Runs in the ``diffsynth-path`` worker process.
"""

from __future__ import annotations

from typing import Any

import torch

from infralens.scenarios import scenario
from infralens.tiny import load_diffsynth_module
from infralens.verify import ScenarioContext

PROCESS = "diffsynth-path"
IMPORTS = ("torch", "einops", "torch._dynamo", "torch.nn.attention.flex_attention")


def _reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """softmax(q k^T / sqrt(d) + bias) v on "b n s d" tensors, written out."""
    scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    if bias is not None:
        scores = scores + bias
    return torch.softmax(scores, -1) @ v


@scenario("diffsynth-attention", "DiffSynth attention_forward: SDPA, GQA, sliding window, fallbacks")
def run_diffsynth_attention(ctx: ScenarioContext) -> None:
    """attention_forward: torch path with "b s n d" patterns, GQA, a sliding window, and the kernel fallbacks."""
    module: Any = load_diffsynth_module("diffsynth.core.attention.attention")
    device = ctx.device
    ctx.fact("ATTENTION_IMPLEMENTATION at import", module.ATTENTION_IMPLEMENTATION)
    ctx.fact("TORCH_SUPPORT_GQA", module.TORCH_SUPPORT_GQA)  # False on torch 2.13: SDPA is a builtin without a signature
    generator = torch.Generator().manual_seed(156)
    q, k, v = (torch.randn(1, 6, 2, 16, generator=generator).to(device) for _ in range(3))  # b s n d
    out = module.attention_forward(q, k, v, q_pattern="b s n d", k_pattern="b s n d", v_pattern="b s n d", out_pattern="b s n d")
    expected = _reference(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)).transpose(1, 2)
    ctx.check(torch.allclose(out, expected, atol=1e-5), "torch path should equal softmax(QK^T/sqrt(d))V in the caller's layout")

    q4 = torch.randn(1, 4, 6, 16, generator=generator).to(device)  # 4 query heads, 2 key/value heads
    k2, v2 = k.transpose(1, 2), v.transpose(1, 2)
    gqa = module.attention_forward(q4, k2, v2)
    expected = _reference(q4, k2.repeat_interleave(2, dim=1), v2.repeat_interleave(2, dim=1))
    ctx.check(torch.allclose(gqa, expected, atol=1e-5), "grouped-query attention: heads 0,1 share key/value head 0")
    ctx.check(module.TORCH_SUPPORT_GQA or gqa.shape == q4.shape, "without enable_gqa the einops repeat fallback ran")

    qn = q.transpose(1, 2)
    window = module.attention_forward(qn, k2, v2, window_size=2)
    positions = torch.arange(6, device=device)
    band = torch.where((positions[:, None] - positions[None, :]).abs() <= 2, 0.0, float("-inf"))
    ctx.check(torch.allclose(window, _reference(qn, k2, v2, band), atol=1e-5), "sliding window 2: each query sees keys within 2 positions")

    saved = module.ATTENTION_IMPLEMENTATION
    try:
        module.ATTENTION_IMPLEMENTATION = "sage_attention"
        causal = module.attention_forward(qn, k2, v2, is_causal=True)
        triangle = torch.triu(torch.full((6, 6), float("-inf"), device=device), diagonal=1)
        ctx.check(torch.allclose(causal, _reference(qn, k2, v2, triangle), atol=1e-5), "sage + causal falls back to causal SDPA")
        module.ATTENTION_IMPLEMENTATION = "xformers"
        xwindow = module.attention_forward(qn, k2, v2, window_size=2)
        ctx.check(torch.allclose(xwindow, window, atol=1e-6), "xformers + window falls back to the torch sliding window")
        module.ATTENTION_IMPLEMENTATION = "flash_attention_2"
        mask = torch.zeros(1, 1, 6, 6, device=device)
        mask[..., -1] = float("-inf")
        masked = module.attention_forward(qn, k2, v2, attn_mask=mask)
        ctx.check(torch.allclose(masked, _reference(qn, k2, v2, mask), atol=1e-5), "a mask sends even a flash setting to SDPA")
        module.ATTENTION_IMPLEMENTATION = "no_such_kernel"
        try:
            module.attention_forward(qn, k2, v2)
            ctx.check(False, "an unknown implementation should raise")
        except NotImplementedError as error:
            ctx.fact("unknown implementation", str(error))
    finally:
        module.ATTENTION_IMPLEMENTATION = saved
