"""Rule cases from issue 41's set 45: repeated statements whose copies parted ways (a scheduler's two identical
``raise ValueError`` lines, one message rewritten, the other kept: ``diff-paired``), and a method moved from one mixin
to another base of the same classes (``moved-to-sibling-base``); :mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import Action, Filter, TargetRule

RAISES_OLD = """
class Mixer:
    def run(self, x):
        if x > 0:
            x = f(x)
        else:
            raise ValueError(f"{x} must be positive")
        x = x + 1
        if x > 0:
            x = f(x)
        else:
            raise ValueError(f"{x} must be positive")
        x = x + 1
        return x
"""
FIRST_EDITED = RAISES_OLD.replace('must be positive")\n        x = x + 1\n        if', 'must be above zero")\n        x = x + 1\n        if')
RAISES_NEW = FIRST_EDITED.replace("        x = x + 1\n        return x", "        x = x + 2\n        return x * 2")
# The first raise is reworded; the second is kept word for word, and what followed it was edited. The two raises had
# the same neighbours before them and none of either's after them is left: the neighbours of both steps fit the
# survivor alike. The diff of the two bodies keeps the second raise in an unchanged run, so it is the second step's,
# and the first finds its edit.

STEPS = (('raise ValueError(f"{x} must be positive")', 1), ('raise ValueError(f"{x} must be positive")', 2))

CASES: list[RuleCase] = [
    RuleCase("diff-paired", Filter.DIFF_PAIRED, {"mixer.py": RAISES_OLD}, {"mixer.py": RAISES_NEW}, STEPS, "s0", Action.REMOVED, kind="changed"),
    RuleCase("diff-paired-the-kept-copy", Filter.SURVIVING_COPY, {"mixer.py": RAISES_OLD}, {"mixer.py": RAISES_NEW}, STEPS, "s1", kind="unchanged"),
]

HELD_BACK: list[RuleCase] = [
    # What followed the second raise is kept: its neighbours alone give the survivor to the second step.
    RuleCase("diff-paired-not-when-neighbours-decide", Filter.DIFF_PAIRED, {"mixer.py": RAISES_OLD}, {"mixer.py": FIRST_EDITED}, STEPS, "s0", Action.REMOVED),
]

SIBLINGS_OLD = {
    "loaders.py": """
class UnetLoaders:
    def load(self, state):
        self.state = state

    def unfuse(self):
        for module in self.modules():
            module.unmerge()
        self.apply(self._unfuse_apply)
        self.fused = False
""",
    "peft.py": """
class PeftMixin:
    def set_adapter(self, name):
        self.adapter = name
""",
    "model.py": "from .loaders import UnetLoaders\nfrom .peft import PeftMixin\n\n\nclass Model(UnetLoaders, PeftMixin):\n    pass\n",
}
SIBLINGS_NEW = {
    **SIBLINGS_OLD,
    "loaders.py": SIBLINGS_OLD["loaders.py"].split("\n    def unfuse")[0] + "\n",
    "peft.py": SIBLINGS_OLD["peft.py"] + "\n    def unfuse(self):\n        check_backend()\n        self.apply(self._unfuse_apply)\n        self._fused = 0\n",
}
# unfuse left UnetLoaders for PeftMixin, the other base of Model, which inherits both, and was rewritten on the way.
SIBLING_HAD_IT = {**SIBLINGS_OLD, "peft.py": SIBLINGS_OLD["peft.py"] + "\n    def unfuse(self):\n        self.fused = False\n"}
# The same, but PeftMixin had an unfuse of its own at the review: a namesake, not where the target went.

CASES.append(
    RuleCase(
        "moved-to-sibling-base",
        TargetRule.MOVED_TO_SIBLING_BASE,
        SIBLINGS_OLD,
        SIBLINGS_NEW,
        ("self.apply(self._unfuse_apply)",),
        "target",
        target="demo.loaders.UnetLoaders.unfuse",
        kind="moved",
    )
)
HELD_BACK.append(
    RuleCase(
        "moved-to-sibling-base-not-a-namesake-it-had",
        TargetRule.MOVED_TO_SIBLING_BASE,
        SIBLING_HAD_IT,
        SIBLINGS_NEW,
        ("self.apply(self._unfuse_apply)",),
        "target",
        target="demo.loaders.UnetLoaders.unfuse",
    )
)
