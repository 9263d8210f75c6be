"""Rule cases for a function replaced at its callers by a new one of another name, its call's arguments rewritten too
(issue 41's set 29 misses: ``_validate_assistant`` folded into ``_validate_generation_mode``, ``_prefill_chunking``
into ``_prefill``): ``replaced-at-callers``; :mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import TargetRule

CHECKS = """
        if helper is not None and tokenizer is None:
            raise ValueError("a helper needs a tokenizer")
        if helper is not None and helper.vocab != self.vocab:
            raise ValueError("the helper's vocabulary differs")
        self.log("helper checked")
"""
NEW_CHECKS = (
    CHECKS.replace("tokenizer is None", "tokenizer is None and mode.needs_tokens")
    .replace("helper.vocab != self.vocab", "helper.config.vocab != self.config.vocab")
    .replace("helper checked", "helper checked for the mode")
)
VALIDATE = f"""
    def _validate_mode(self, mode, helper=None, tokenizer=None):
        if mode is None:
            return{NEW_CHECKS}"""
REPLACED_OLD = f"""
class Generator:
    def generate(self, x, helper=None, tokenizer=None):
        self._check_helper(helper, tokenizer)
        return self.loop(x)

    def _check_helper(self, helper, tokenizer):{CHECKS}"""
REPLACED_NEW = f"""
class Generator:
    def generate(self, x, helper=None, tokenizer=None):
        mode = self.mode_for(helper)
        self._validate_mode(mode, helper=helper, tokenizer=tokenizer)
        return self.loop(x)
{VALIDATE}"""
# The caller no longer calls _check_helper and newly calls _validate_mode, whose checks are its own, reworded: the
# target renamed, its call's arguments rewritten.
KEPT_SIBLING_OLD = REPLACED_OLD + VALIDATE
# The same, but _validate_mode was there at the review: the caller now calls another function, not the target renamed.

CASES: list[RuleCase] = [
    RuleCase(
        "replaced-at-callers",
        TargetRule.REPLACED_AT_CALLERS,
        {"mixer.py": REPLACED_OLD},
        {"mixer.py": REPLACED_NEW},
        ('raise ValueError("a helper needs a tokenizer")',),
        "target",
        target="demo.mixer.Generator._check_helper",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "replaced-at-callers-not-by-a-function-there-at-the-review",
        TargetRule.REPLACED_AT_CALLERS,
        {"mixer.py": KEPT_SIBLING_OLD},
        {"mixer.py": REPLACED_NEW},
        ('raise ValueError("a helper needs a tokenizer")',),
        "target",
        target="demo.mixer.Generator._check_helper",
    ),
]
