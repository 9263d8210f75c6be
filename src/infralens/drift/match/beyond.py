"""New code a few calls past the places the target hands its work to (filter ``new-code-beyond``).

When an attention class's flash-attention forward was folded into a registry function, its dtype handling went one
step further: ``flash_attention_forward`` calls the older ``_flash_attention_forward``, which now calls the new
``fa_peft_integration_check`` that casts query, key and value. A function new since the review, reached only through
such a chain, is code written for the work the target gave away: a step rewritten there was rewritten, not deleted.
Only new functions are searched (one the reviewed release held did that job already), and only a few calls deep.
"""

from __future__ import annotations

from infralens.drift.match.calls import Reach
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in
from infralens.drift.match.split import Reached, reached_definitions, reached_key
from infralens.drift.match.thresholds import Thresholds


def new_code_beyond(reader: TreeReader, starts: list[Reached], since: TreeReader, t: Thresholds) -> list[Reached]:
    """The functions new since the review (``since``) that ``starts`` reach in at most :attr:`~.thresholds.Thresholds.beyond_calls`
    further calls, through any function, in the order they are met (at most :attr:`~.thresholds.Thresholds.beyond_functions`
    functions are followed)."""
    seen = {reached_key(r) for r in starts}
    level, followed = list(starts), 0
    found: list[Reached] = []
    for _ in range(t.beyond_calls):
        following: list[Reached] = []
        for source, index, definition, _ in level:
            if followed >= t.beyond_functions:
                return found
            followed += 1
            for reached in reached_definitions(reader, Reach(reader, source, index, definition)):
                key = reached_key(reached)
                if key in seen or reached[3]:
                    continue  # met already, or a decorator's wrapper (it serves every function it wraps)
                seen.add(key)
                following.append(reached)
                if not defined_in(since, *key):
                    found.append(reached)
        level = following
    return found
