"""A function renamed in its module while keeping its name's words, its body rewritten (rule ``renamed-keeping-words``).

A rename that also rewrites the body leaves too few identical statements for ``renamed-body-overlap``: the module-level
``_validate_yarn_parameters`` became the method ``_validate_yarn_rope_parameters`` of a config mixin, reading a dict
instead of the config, and ``_wrapped_flash_attn_3_original`` became ``_wrapped_flash_attn_3``. What still tells is the
name: the new one keeps every word of the old (or the old every word of the new), and the body still resembles the
reviewed one. As RefactoringMiner's *Rename Method* weighs names beside bodies, both must agree here.
"""

from __future__ import annotations

import re

from infralens.drift.lock.entries import AnnotationLock
from infralens.drift.lock.facts import body_of
from infralens.drift.match.imported import Relocated
from infralens.drift.match.reader import TreeReader
from infralens.drift.match.reviewed import defined_in, reviewed_texts
from infralens.drift.match.rules import CONTENTLESS, Thresholds
from infralens.drift.match.texts import ratio_at_least
from infralens.source import DefinitionKind

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def name_words(name: str) -> frozenset[str]:
    """The words of an identifier, lower-cased: its ``_``-separated and CamelCase parts, letters and digits apart
    (``stage2_denoise`` → stage, 2, denoise; ``OPTSdpaAttention`` → opt, sdpa, attention)."""
    return frozenset(word.lower() for word in _WORD.findall(name))


def words_kept(old: str, new: str) -> int:
    """How many words two names share when one name's words all appear in the other (0 otherwise, or when they are
    the same name)."""
    before, after = name_words(old), name_words(new)
    if old == new or not before or not after or not (before <= after or after <= before):
        return 0
    return len(before & after)


def renamed_keeping_words(reader: TreeReader, reviewed: TreeReader | None, entry: AnnotationLock, t: Thresholds) -> Relocated | None:
    """The function of the target's file, new since the review, whose name keeps the target's name's words (at least
    :attr:`~.rules.Thresholds.renamed_words_kept`: a one-word name tells too little) and whose body holds a close statement
    (:attr:`~.rules.Thresholds.edit_similarity`) for at least :attr:`~.rules.Thresholds.renamed_words_share` of the
    reviewed body's statements; the one sharing the most words, then resembling most, and clearly so (a tie on both
    decides nothing)."""
    texts = reviewed_texts(reviewed, entry)
    indexed = reader.indexed(entry.relpath)
    if texts is None or indexed is None:
        return None
    wanted = [text for text in texts if text not in CONTENTLESS]
    if not wanted:
        return None
    old = entry.target.rpartition(".")[2]
    source, index = indexed
    scored = []
    for definition in index.definitions:
        name = definition.qualname.rpartition(".")[2]
        shared = words_kept(old, name)
        if definition.kind is DefinitionKind.CLASS or definition.accessor is not None or shared < t.renamed_words_kept:
            continue
        if defined_in(reviewed, entry.relpath, definition.qualname):
            continue  # there at the review: a sibling, not the target under a new name
        body = [s.text for s in body_of(index, definition)]
        close = sum(1 for text in wanted if any(ratio_at_least(text, b, t.edit_similarity, t.quick_reject_similarity) is not None for b in body))
        share = close / len(wanted)
        if share >= t.renamed_words_share:
            scored.append(((shared, share), definition))
    scored.sort(key=lambda item: item[0], reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    (shared, share), definition = scored[0]
    why = f"renamed keeping its name's words ({shared} shared); {share:.0%} of the reviewed statements have a close one there"
    return Relocated(source, index, definition, why)
