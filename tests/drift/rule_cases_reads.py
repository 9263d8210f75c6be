"""Rule cases for a statement rewritten around the one value it alone read (issue 41's set 28 misses: a set
comprehension over file names became a call of a new filtering helper, given the same compiled pattern):
``sole-reader``; :mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import Rule

READS_OLD = """
class Loader:
    def pick(self, files, variant):
        pattern = self.compile(variant)
        names = self.listing(files)
        chosen = {f for f in names if pattern.match(f) is not None}
        rest = self.others(names)
        return chosen, rest
"""
READS_NEW = """
class Loader:
    def pick(self, files, variant):
        pattern = self.compile(variant)
        names = self.listing(files)
        folders = {name.split("/")[0] for name in names}
        per_folder = split_by_folder(names, pattern)
        rest = self.remaining(names, strict=True)
        return per_folder, rest
"""
# The comprehension was the only statement reading `pattern`, which a kept line sets; now only the helper call reads it.
READ_TWICE_OLD = READS_OLD.replace("        rest = self.others(names)\n", "        rest = self.others(names, pattern)\n")
# The same, but another statement read `pattern` as well at the review: that the edit reads it now tells nothing.

CASES: list[RuleCase] = [
    RuleCase(
        "sole-reader",
        Rule.SOLE_READER,
        {"mixer.py": READS_OLD},
        {"mixer.py": READS_NEW},
        ("chosen = {f for f in names if pattern.match(f) is not None}",),
        target="demo.mixer.Loader.pick",
        kind="changed",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "sole-reader-not-for-a-value-others-read-too",
        Rule.SOLE_READER,
        {"mixer.py": READ_TWICE_OLD},
        {"mixer.py": READS_NEW},
        ("chosen = {f for f in names if pattern.match(f) is not None}",),
        target="demo.mixer.Loader.pick",
    ),
]
