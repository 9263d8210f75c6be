"""How long each scenario took last time (CPU seconds), kept in the cache to balance ``--mutate`` work.

A hint only: a missing or unreadable file gives no hints, and a write that fails is ignored.
"""

from __future__ import annotations

import json
import os

from infralens.atomic import write_quietly
from infralens.cachedir import cache_root, read_cache_entry

DEFAULT_S = 1.0
"""CPU seconds assumed for a scenario with no recorded time."""


def _path(device: str) -> str:
    return os.path.join(cache_root(), "verify-timings", f"{device}.json")


def load_timings(device: str) -> dict[str, float]:
    """Scenario name → CPU seconds of its last plain run on *device* (empty when unknown)."""
    raw = read_cache_entry(_path(device))  # a FIFO there is removed, never waited on
    try:
        data = json.loads(raw) if raw is not None else None
    except (ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(name): float(value) for name, value in data.items() if isinstance(value, (int, float)) and 0 < value < 1e9}


def save_timings(device: str, seconds: dict[str, float]) -> None:
    """Merge *seconds* into the recorded times (atomically; failures are ignored)."""
    merged = {**load_timings(device), **{name: round(value, 3) for name, value in seconds.items() if value > 0}}
    write_quietly(_path(device), json.dumps(merged, indent=1, sort_keys=True))
