"""A gone function whose body a function new in its own file holds, grown around it (rule ``renamed-holding-body``).

``renamed-body-overlap`` weighs a renamed function by the Jaccard overlap of the two bodies, so a rename that also
gained many statements falls short: diffusers 0.32 replaced ``create_scheduler_from_ldm`` with
``_legacy_load_scheduler``, which keeps two thirds of the old statements word for word among twenty new ones. Here
the measure is one-way: the share of the reviewed body the new function holds. Only the target's own file is
searched, in the target's own scope (module level, or its class), and only functions its release did not define at the
review, so a new model file's copy of a shared helper, or a new class's clone of a method, is never taken; a second
function holding about as much leaves the target deleted (a body copied into two).
"""

from __future__ import annotations

from collections import Counter

from infralens.drift.lock.entries import AnnotationLock, short_hash
from infralens.drift.lock.facts import body_hashes
from infralens.drift.match.imported import Relocated
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in
from infralens.drift.match.rules import CONTENTLESS, Thresholds


def renamed_holding_body(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The one definition of the target's kind and scope (module level, or its class), new since the review in the
    target's file, that holds at least
    :attr:`~.rules.Thresholds.held_body_share` of the reviewed body's statements with content, clearly more than any
    other (by :attr:`~.rules.Thresholds.target_renamed_margin`)."""
    indexed = reader.indexed(entry.relpath)
    if reviewed is None or indexed is None:
        return None
    contentless = {short_hash(text) for text in CONTENTLESS}
    wanted = Counter(h for h in entry.body if h not in contentless)
    total = sum(wanted.values())
    if not total:
        return None
    source, index = indexed
    owner = entry.target.rpartition(".")[0]
    scored = []
    for definition in index.definitions:
        if definition.kind is not entry.kind or definition.accessor is not None or definition.qualname.rpartition(".")[0] != owner:
            continue  # a function of another scope (a new class's method) is as often a copy of it: not a rename
        if defined_in(reviewed, entry.relpath, definition.qualname):
            continue
        share = sum((wanted & Counter(body_hashes(index, definition))).values()) / total
        if share >= t.held_body_share:
            scored.append((share, definition))
    scored.sort(key=lambda item: item[0], reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] >= scored[0][0] - t.target_renamed_margin):
        return None
    share, definition = scored[0]
    return Relocated(source, index, definition, f"new in its file since the review, it holds {share:.0%} of the reviewed statements")
