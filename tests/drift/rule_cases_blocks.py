"""Rule cases for a gone target folded into a function that was there at the review (set 34's first-run misses:
``_get_logits_warper`` now inside ``_get_logits_processor``): its steps rewritten on the way are edits where its block
went (rule ``edited-with-block``); and a ``with`` block whose context manager is now built first and kept in a name
(rule ``same-action``: ``with tqdm ( … ) as pbar :`` became ``pbar_cm = tqdm ( … )``, entered beside another); and a
call whose result is now returned where it was assigned (``loss = loss_fct ( … )`` now ``return loss_fct ( … )``); and a
class turned into a dataclass, whose ``__init__``'s work is now in ``__post_init__`` (rule ``init-as-post-init``).
:mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import Rule, TargetRule

FOLDED_OLD = """
class Sampler:
    def pick_warpers(self, config):
        warpers = []
        keep = 1
        if config.num_beams > 1:
            keep = 2
        if config.temperature is not None and config.temperature != 1.0:
            warpers.append(Temperature(config.temperature))
        if config.top_k is not None and config.top_k != 0:
            warpers.append(TopK(config.top_k, keep=keep))
        if config.top_p is not None and config.top_p < 1.0:
            warpers.append(TopP(config.top_p, keep=keep))
        return warpers

    def pick_processors(self, config):
        processors = []
        if config.penalty is not None:
            processors.append(Penalty(config.penalty))
        return processors
"""
FOLDED_NEW = """
class Sampler:
    def pick_processors(self, config):
        processors = []
        if config.penalty is not None:
            processors.append(Penalty(config.penalty))
        keep = 1
        if config.num_beams > 1:
            keep = 2
        if config.temperature is not None and config.temperature != 1.0:
            processors.append(Temperature(config.temperature))
        if config.top_k is not None and config.top_k != 0:
            processors.append(TopK(config.top_k, keep=keep))
        if config.top_p is not None and config.top_p < 1.0:
            processors.append(TopP(config.top_p, keep=keep))
        return processors
"""
# The warper picks now run in the processor picks, each ``warpers.append`` rewritten as ``processors.append``.
FOLDED_HELD = FOLDED_OLD.replace(
    "            processors.append(Penalty(config.penalty))\n",
    "            processors.append(Penalty(config.penalty))\n        if config.top_k is not None and config.top_k != 0:\n"
    "            processors.append(TopK(config.top_k, keep=keep))\n",
)
# The same, but the processor picks held the rewritten statement already at the review: it did that job before.
FOLDED_ALONE = (
    FOLDED_NEW.replace("        keep = 1\n", "        keep = 0\n")
    .replace("        if config.num_beams > 1:\n            keep = 2\n", "        if config.beams:\n            keep = 3\n")
    .replace("        if config.temperature is not None and config.temperature != 1.0:\n", "        if config.temperature:\n")
    .replace("        if config.top_p is not None and config.top_p < 1.0:\n", "        if config.top_p:\n")
)
# Only one of the warper's tests arrived verbatim: no block of its steps went there, so no place to look.
FOLDED_GREEDY = FOLDED_OLD.replace("            keep = 2\n", "            keep = 2\n        elif config.greedy:\n            keep = 3\n")
# The warper also kept one token when greedy; that branch is gone, and ``keep = 2`` beside it in the processor picks is
# the target's own other statement carried over, not this one rewritten.
FOLDED_STEPS = (
    "if config.num_beams > 1:",
    "keep = 2",
    "if config.temperature is not None and config.temperature != 1.0:",
    "if config.top_k is not None and config.top_k != 0:",
    "if config.top_p is not None and config.top_p < 1.0:",
    "warpers.append(TopK(config.top_k, keep=keep))",
)
FOLDED = "demo.mixer.Sampler.pick_warpers"

HELD_OLD = """
class Runner:
    def solve(self, inputs, progress):
        results = {}
        with tqdm(total=len(inputs), disable=not progress) as progress_bar_handle:
            for item in inputs:
                results[item] = self.step(item)
                progress_bar_handle.update(1)
        return results
"""
HELD_NEW = """
class Runner:
    def solve(self, inputs, progress):
        results = {}
        bar_cm = tqdm(total=len(inputs), disable=not progress)
        with self.manager() as manager, bar_cm as progress_bar_handle:
            for item in inputs:
                results[item] = manager.step(item)
                progress_bar_handle.update(1)
        return results
"""
# The progress bar is built first and entered beside the manager: the same context manager, held in a name.
HELD_OTHER = HELD_NEW.replace("bar_cm = tqdm(total=len(inputs), disable=not progress)", "bar_cm = tqdm(total=len(inputs))")
# The same, but the bar is built with other arguments: not the same context manager.
HELD_STEP = ("with tqdm(total=len(inputs), disable=not progress) as progress_bar_handle:",)
SOLVE = "demo.mixer.Runner.solve"

VALUE_OLD = """
class Scorer:
    def loss(self, logits, labels, kind):
        self.check(labels)
        if kind == "single":
            loss_for_one_label_with_its_inputs_squeezed = loss_fct(logits.squeeze(), labels.squeeze())
        else:
            loss_for_one_label_with_its_inputs_squeezed = loss_fct(logits, labels)
        return loss_for_one_label_with_its_inputs_squeezed
"""
VALUE_NEW = """
class Scorer:
    def loss(self, logits, labels, kind):
        self.check(labels)
        if kind == "single":
            return loss_fct(logits.squeeze(), labels.squeeze())
        return loss_fct(logits, labels)
"""
# Each branch now returns the loss it computed: the same call, its result returned instead of assigned.
VALUE_OTHER = VALUE_NEW.replace("return loss_fct(logits.squeeze(), labels.squeeze())", "return loss_fct(logits.squeeze(-1), labels)")
# The same, but the call now takes other arguments: not the same value.
VALUE_STEP = ("loss_for_one_label_with_its_inputs_squeezed = loss_fct(logits.squeeze(), labels.squeeze())",)
SCORER = "demo.mixer.Scorer.loss"

CONFIG_OLD = """
class Config:
    def __init__(self, heads=8, kv_heads=None, width=512):
        self.heads = heads
        self.width = width
        if kv_heads is None:
            kv_heads = heads
        self.kv_heads = kv_heads
"""
CONFIG_NEW = """
@dataclass
class Config:
    heads: int = 8
    kv_heads: int | None = None
    width: int = 512

    def __post_init__(self):
        if self.kv_heads is None:
            self.kv_heads = self.heads
"""
# The configuration became a dataclass: its fields are declared, the default it derived is set after the fields.
CONFIG_HAD_HOOK = (
    CONFIG_OLD
    + """
    def __post_init__(self):
        self.width = self.width or 512
"""
)
# The same, but the class had a ``__post_init__`` already at the review: that method kept its own job.
CONFIG_STEP = ("if kv_heads is None:",)
CONFIG = "demo.mixer.Config.__init__"

CASES: list[RuleCase] = [
    RuleCase("init-as-post-init", TargetRule.INIT_AS_POST_INIT, {"mixer.py": CONFIG_OLD}, {"mixer.py": CONFIG_NEW}, CONFIG_STEP, "target", target=CONFIG),
    RuleCase("same-action-value-kept", Rule.SAME_ACTION, {"mixer.py": VALUE_OLD}, {"mixer.py": VALUE_NEW}, VALUE_STEP, target=SCORER, kind="changed"),
    RuleCase("same-action-context-held", Rule.SAME_ACTION, {"mixer.py": HELD_OLD}, {"mixer.py": HELD_NEW}, HELD_STEP, target=SOLVE, kind="changed"),
    RuleCase(
        "edited-with-block", Rule.EDITED_WITH_BLOCK, {"mixer.py": FOLDED_OLD}, {"mixer.py": FOLDED_NEW}, FOLDED_STEPS, "s5", target=FOLDED, kind="changed"
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "init-as-post-init-not-a-hook-there-before",
        TargetRule.INIT_AS_POST_INIT,
        {"mixer.py": CONFIG_HAD_HOOK},
        {"mixer.py": CONFIG_NEW},
        CONFIG_STEP,
        "target",
        target=CONFIG,
        kind="deleted",
    ),
    RuleCase("same-action-value-kept-not-another-value", Rule.SAME_ACTION, {"mixer.py": VALUE_OLD}, {"mixer.py": VALUE_OTHER}, VALUE_STEP, target=SCORER),
    RuleCase("same-action-context-held-not-another-manager", Rule.SAME_ACTION, {"mixer.py": HELD_OLD}, {"mixer.py": HELD_OTHER}, HELD_STEP, target=SOLVE),
    RuleCase(
        "edited-with-block-not-held-at-review",
        Rule.EDITED_WITH_BLOCK,
        {"mixer.py": FOLDED_HELD},
        {"mixer.py": FOLDED_NEW},
        FOLDED_STEPS,
        "s5",
        target=FOLDED,
        kind="deleted",
    ),
    RuleCase(
        "edited-with-block-not-another-of-the-target-statements",
        Rule.EDITED_WITH_BLOCK,
        {"mixer.py": FOLDED_GREEDY},
        {"mixer.py": FOLDED_NEW},
        (*FOLDED_STEPS, "keep = 3"),
        "s6",
        target=FOLDED,
        kind="deleted",
    ),
    RuleCase(
        "edited-with-block-needs-a-block",
        Rule.EDITED_WITH_BLOCK,
        {"mixer.py": FOLDED_OLD},
        {"mixer.py": FOLDED_ALONE},
        FOLDED_STEPS,
        "s5",
        target=FOLDED,
        kind="deleted",
    ),
]
