"""Bytes moved between host and GPU per denoising step under each diffusers offload mode, and what First Block Cache skips.

The rules follow the installed code:

- **model CPU offload** (``enable_model_cpu_offload``, accelerate's ``cpu_offload_with_hook``): a whole model is
  moved to the GPU when it is called and back to the host when the next model in the chain runs. The denoiser
  stays on the GPU across steps, so a step moves nothing; a generation moves every component once each way.
- **sequential offload** (``enable_sequential_cpu_offload``, accelerate's ``cpu_offload``): weights live on the host;
  every leaf module's parameters are copied to the GPU before its forward and dropped after it (the host copy is
  kept, nothing is copied back). Each forward pass moves all weights host→device.
- **group offload** (``hooks/group_offloading.py``): at ``block_level`` each block of a top-level ``ModuleList`` or
  ``Sequential`` is a group, everything else one "unmatched" group held for the whole forward; at ``leaf_level``
  each Conv/Linear/Embedding is a group and leftover parameters are grouped by their parent. Every group is
  onloaded once per forward. Offloading without a stream is ``module.to(offload_device)``, a device→host copy;
  with ``use_stream=True`` the pinned host copies are swapped back in and nothing is copied back.

Under classifier-free guidance the pipelines batch the two predictions into one forward, so a step is one pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

OFFLOAD_MODES = ("model", "sequential", "group-block", "group-block-stream", "group-leaf", "group-leaf-stream")


@dataclass(frozen=True)
class OffloadRow:
    """One offload mode applied to one denoiser."""

    mode: str
    h2d_per_step: int
    d2h_per_step: int
    transfers_per_step: int
    """Groups (or modules) moved per step: how many separate copies the step waits on."""
    peak_resident_bytes: int
    """Weights on the GPU at the worst moment of a step (streams prefetch the next group: two groups)."""
    h2d_per_generation: int


def _bytes(tensors: list[torch.Tensor]) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def _leaf_groups(model: torch.nn.Module) -> list[int]:
    from diffusers.hooks._common import _GO_LC_SUPPORTED_PYTORCH_LAYERS

    sizes: list[int] = []
    covered: set[str] = set()
    for name, module in model.named_modules():
        if isinstance(module, _GO_LC_SUPPORTED_PYTORCH_LAYERS):
            sizes.append(_bytes([*module.parameters(), *module.buffers()]))
            covered.add(name)
    parents: dict[str, int] = {}
    for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
        owner = name.rpartition(".")[0]
        if any(owner == c or owner.startswith(c + ".") for c in covered):
            continue
        parents[owner] = parents.get(owner, 0) + tensor.numel() * tensor.element_size()
    return sizes + list(parents.values())


def _block_groups(model: torch.nn.Module) -> tuple[list[int], int]:
    """(sizes of the block groups, size of the unmatched group) at ``num_blocks_per_group=1``."""
    import torch

    blocks: list[int] = []
    unmatched = _bytes([*model.parameters(recurse=False), *model.buffers(recurse=False)])
    for child in model.children():
        if isinstance(child, (torch.nn.ModuleList, torch.nn.Sequential)):
            blocks.extend(_bytes([*block.parameters(), *block.buffers()]) for block in child)
        else:
            unmatched += _bytes([*child.parameters(), *child.buffers()])
    return blocks, unmatched


def offload_rows(denoiser: torch.nn.Module, others: int, steps: int) -> tuple[OffloadRow, ...]:
    """Each offload mode for *denoiser* (its parameters in their storage dtype); *others* is the text encoders' and VAE's bytes."""
    weights = _bytes(list(denoiser.parameters()))
    everything = weights + _bytes(list(denoiser.buffers()))
    leaf = _leaf_groups(denoiser)
    blocks, unmatched = _block_groups(denoiser)
    biggest_block = max(blocks, default=0)
    second_block = sorted(blocks)[-2] if len(blocks) > 1 else 0
    biggest_leaf = max(leaf, default=0)
    second_leaf = sorted(leaf)[-2] if len(leaf) > 1 else 0
    largest_module = max((_bytes(list(m.parameters(recurse=False))) for m in denoiser.modules()), default=0)
    rows = [
        OffloadRow("model", 0, 0, 0, everything, everything + others),
        OffloadRow(
            "sequential", weights, 0, sum(1 for m in denoiser.modules() if any(True for _ in m.parameters(recurse=False))), largest_module, steps * weights
        ),
        OffloadRow("group-block", everything, everything, len(blocks) + 1, unmatched + biggest_block, steps * everything),
        OffloadRow("group-block-stream", everything, 0, len(blocks) + 1, unmatched + biggest_block + second_block, steps * everything),
        OffloadRow("group-leaf", everything, everything, len(leaf), biggest_leaf, steps * everything),
        OffloadRow("group-leaf-stream", everything, 0, len(leaf), biggest_leaf + second_leaf, steps * everything),
    ]
    return tuple(rows)


@dataclass(frozen=True)
class CacheRow:
    """First Block Cache on one denoiser at one resolution."""

    resolution: str
    always_flops: int
    """Runs every step: the first block, the embeddings and the output layers."""
    skippable_flops: int
    """The blocks after the first, which a cache hit skips."""
    steps: int

    def generation_flops(self, skipped_fraction: float) -> float:
        """FLOPs of a whole generation when *skipped_fraction* of the steps hit the cache."""
        return self.steps * (self.always_flops + (1.0 - skipped_fraction) * self.skippable_flops)

    def saved_fraction(self, skipped_fraction: float) -> float:
        total = self.always_flops + self.skippable_flops
        return skipped_fraction * self.skippable_flops / total if total else 0.0


def first_block_split(by_module: tuple[tuple[str, int], ...], total: int, block_lists: tuple[str, ...]) -> tuple[int, int]:
    """(always, skippable) FLOPs: of the blocks in the lists *block_lists* (in order), all but the very first are skippable."""
    skippable = 0
    first_seen = False
    for list_name in block_lists:
        index = 0
        while True:
            key = next((name for name, _ in by_module if name.endswith(f".{list_name}.{index}")), None)
            if key is None:
                break
            flops = dict(by_module)[key]
            if first_seen:
                skippable += flops
            first_seen = True
            index += 1
    return total - skippable, skippable
