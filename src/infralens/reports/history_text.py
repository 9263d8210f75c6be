"""Words for a row of release states: where a step holds, and what it is before and after that span.

Shared by ``infralens history`` (text table) and the site (strips and the compatibility matrix).
"""

from __future__ import annotations

from collections.abc import Collection

from infralens.reports.vocabulary import ReleaseState

STATE_WORDS = {
    ReleaseState.UNCHANGED: "holds",
    ReleaseState.MOVED: "moved",
    ReleaseState.CHANGED: "changed",
    ReleaseState.DELETED: "deleted",
    ReleaseState.ABSENT: "not yet present",
    ReleaseState.UNREADABLE: "unreadable",
}


def holding_span(states: tuple[ReleaseState, ...], releases: tuple[str, ...], baseline: str) -> tuple[str | None, str | None, str | None]:
    """``(first, last, before)``: the run of releases where the step holds that holds the baseline (else the last run)."""
    runs: list[tuple[int, int]] = []
    for position, state in enumerate(states):
        if state.holds:
            if runs and runs[-1][1] == position - 1:
                runs[-1] = (runs[-1][0], position)
            else:
                runs.append((position, position))
    if not runs:
        return None, None, None
    chosen = next((r for r in runs if baseline in releases[r[0] : r[1] + 1]), runs[-1])
    before = releases[chosen[0] - 1] if chosen[0] > 0 else None
    return releases[chosen[0]], releases[chosen[1]], before


def release_ranges(chosen: Collection[str], releases: tuple[str, ...]) -> str:
    """``0.30.0–0.33.1, 0.35.0``: the chosen releases as runs of consecutive ones."""
    runs: list[list[str]] = []
    previous = -2
    for position, release in enumerate(releases):
        if release not in chosen:
            continue
        if position == previous + 1:
            runs[-1].append(release)
        else:
            runs.append([release])
        previous = position
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)


def describe_holding(states: tuple[ReleaseState, ...], releases: tuple[str, ...], baseline: str) -> str:
    """``holds in 0.35.0–0.42.1; changed in 0.34.0`` (the state just before, and just after, the span)."""
    first, last, before = holding_span(states, releases, baseline)
    if first is None or last is None:
        return "holds in none of these releases"
    text = f"holds in {first}" if first == last else f"holds in {first}–{last}"
    if before is not None:
        text += f"; {STATE_WORDS[states[releases.index(before)]]} in {before}"
    end = releases.index(last)
    if end + 1 < len(releases):
        text += f"; {STATE_WORDS[states[end + 1]]} in {releases[end + 1]}"
    return text
