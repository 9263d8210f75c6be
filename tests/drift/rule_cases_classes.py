"""Rule cases for a target whose module became a package, whose class was copied into another module, or whose
class was folded into its base (the container rules of issue 41's set 16 misses); :mod:`rule_cases` adds them to
its tables."""

from __future__ import annotations

from rule_cases import RuleCase
from test_match_reviewed import RENAMED_CLASS_NEW, RENAMED_CLASS_OLD
from test_match_synthetic import OLD

from infralens.drift.match.rules import Action, Filter, TargetRule

FAST_OLD = """
class Base:
    def run(self, x):
        a = self.prepare(x)
        b = self.project(a)
        c = self.mix(b)
        return self.out(c)


class Fast(Base):
    def run(self, x):
        a = self.prepare(x)
        b = self.project(a)
        b = b.contiguous()
        c = self.fast_mix(b)
        return self.out(c)


KINDS = {"base": Base, "fast": Fast}
"""
FOLDED = """
class Base:
    def run(self, x):
        a = self.prepare(x)
        b = self.project(a)
        mix = self.fast_mix if self.fast else self.mix
        c = mix(b)
        return self.out(c)
"""
# The variant subclass is gone; its base, still here, runs its work (three of its statements, the rest dispatched).
REWRITTEN_BASE = """
class Base:
    def run(self, x):
        a = self.load(x)
        return self.out(a)
"""
# The base is still here, but shares one statement with the gone subclass's method: nothing says it took its work.
IMPORTING_USER = "from .encoders import TextEncoderV2\n\n\ndef encode(config, ids):\n    return TextEncoderV2(config).run(ids)\n"
ENCODER_USER = "\n\ndef encode(config, ids):\n    return Encoder(config).run(ids)\n"

CASES: list[RuleCase] = [
    RuleCase(
        "re-exported-from-a-package",
        TargetRule.RE_EXPORTED,
        {"mixer.py": OLD},
        {"mixer/__init__.py": "from .core import Mixer\n", "mixer/core.py": OLD.replace("return y + z", "return y - z")},
        ("y = h * 2",),
        "target",
        kind="moved",
    ),
    RuleCase(
        "class-copied-not-renamed",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": RENAMED_CLASS_OLD + ENCODER_USER},
        {"mixer.py": "def encode(config, ids):\n    return build_model(config)(ids)\n", "encoders.py": RENAMED_CLASS_NEW},
        ("out = self.model(ids)",),
        "target",
        Action.VETOED,
        target="demo.mixer.Encoder.run",
        kind="deleted",
    ),
    RuleCase(
        "folded-into-base",
        TargetRule.FOLDED_INTO_BASE,
        {"mixer.py": FAST_OLD},
        {"mixer.py": FOLDED},
        ("a = self.prepare(x)", "c = self.fast_mix(b)"),
        "target",
        target="demo.mixer.Fast.run",
        kind="moved",
    ),
]

HELD_BACK: list[RuleCase] = [
    # The old module imports the class's new module: a class renamed and moved there, not a copy.
    RuleCase(
        "class-copied-not-renamed-not-when-imported",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": RENAMED_CLASS_OLD + ENCODER_USER},
        {"mixer.py": IMPORTING_USER, "encoders.py": RENAMED_CLASS_NEW},
        ("out = self.model(ids)",),
        "target",
        Action.VETOED,
        target="demo.mixer.Encoder.run",
        kind="renamed",
    ),
    RuleCase(
        "folded-into-base-not-without-a-block",
        TargetRule.FOLDED_INTO_BASE,
        {"mixer.py": FAST_OLD},
        {"mixer.py": REWRITTEN_BASE},
        ("a = self.prepare(x)",),
        "target",
        target="demo.mixer.Fast.run",
        kind="deleted",
    ),
]
