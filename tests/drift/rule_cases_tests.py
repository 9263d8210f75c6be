"""Rule cases for a block header that gained a test or lost one (issue 41's seen sets: LTX-2's `if run_a2v :` became
`if run_a2v and not perturbations ... :`, a LoRA loader's `if _pipeline is not None :` gained a device-map test):
``kept-condition``; :mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import Rule

TESTS_OLD = """
class Block:
    def run(self, x, audio, video):
        h = self.norm(x)
        if self.mix_audio:
            h = h + self.cross(h, audio)
        out = self.project(h)
        return out
"""
TESTS_NEW = """
class Block:
    def run(self, x, audio, video, skip=None):
        h = self.norm(x)
        gate = self.gate_for(skip)
        if self.mix_audio and not (skip is not None and skip.all_audio()):
            h = h + gate * self.cross(h, audio)
        out = self.project(h)
        return out
"""
# The header kept its one test and gained another: the only header left that holds all the step's tests.
VIDEO_BRANCH = "        if self.mix_audio and not (video is None or skip is not None and skip.all_video()):\n            h = h + self.cross(h, video)\n"
TWO_HEADERS_NEW = TESTS_NEW.replace("        out = self.project(h)\n", VIDEO_BRANCH + "        out = self.project(h)\n")
# Two headers now hold the step's test and more: which one is its edit, the tests do not say.

CASES: list[RuleCase] = [
    RuleCase(
        "kept-condition",
        Rule.KEPT_CONDITION,
        {"mixer.py": TESTS_OLD},
        {"mixer.py": TESTS_NEW},
        ("if self.mix_audio:",),
        target="demo.mixer.Block.run",
        kind="changed",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "kept-condition-not-when-two-headers-keep-it",
        Rule.KEPT_CONDITION,
        {"mixer.py": TESTS_OLD},
        {"mixer.py": TWO_HEADERS_NEW},
        ("if self.mix_audio:",),
        target="demo.mixer.Block.run",
    ),
]
