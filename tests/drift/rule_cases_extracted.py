"""Rule cases for a statement whose work a helper of its file now does, called in its place (set 38's LTX-2 block:
``ada_values = self.scale_shift_table[…] + temb.reshape(…)`` became ``self.get_mod_params(self.scale_shift_table, temb,
batch_size)``): ``extracted-and-called``; and a literal now computed (``if height % 8 != 0 …`` became ``… % (self.scale *
2) …``), a replacement ``same-action`` weighs; and an error turned into a warning, its message kept and extended (set
38's ``get_generation_mode``), and a checkpointed call whose wrapper around the block was dropped (set 41's
``WuerstchenPrior.forward``). :mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import Action, Filter, Rule

HELPER = """
    @staticmethod
    def modulation(table, emb, batch):
        count = table.shape[0]
        values = table[None, None].to(emb.device) + emb.reshape(batch, emb.size(1), count, -1)
        return values.unbind(dim=2)
"""
BLOCK_OLD = """
class Block:
    def run(self, x, emb, emb_audio, batch):
        values = self.table[None, None].to(emb.device) + emb.reshape(batch, emb.size(1), 6, -1)
        shift, scale = values.unbind(dim=2)[:2]
        audio_values = self.audio_table[None, None].to(emb_audio.device) + emb_audio.reshape(batch, emb_audio.size(1), 6, -1)
        audio_shift, audio_scale = audio_values.unbind(dim=2)[:2]
        return x * scale + shift, audio_scale + audio_shift
"""
BLOCK_NEW = f"""
class Block:{HELPER}
    def run(self, x, emb, emb_audio, batch):
        params = self.modulation(self.table, emb, batch)
        shift, scale = params[:2]
        audio_params = self.modulation(self.audio_table, emb_audio, batch)
        audio_shift, audio_scale = audio_params[:2]
        return x * scale + shift, audio_scale + audio_shift
"""
# Each inline computation is now a call of the helper: read with the call's arguments, the helper's statement is close
# to the video step through the first call and to the audio step through the second.
ONE_CALL_NEW = BLOCK_NEW.replace("self.modulation(self.audio_table, emb_audio, batch)", "self.modulation(self.table, emb, batch)")
# Two calls with the same arguments: neither is clearly the step's.
ELSEWHERE_OLD = {"block.py": BLOCK_OLD}
ELSEWHERE_NEW = {
    "block.py": """
from .helpers import modulation


class Block:
    def run(self, x, emb, emb_audio, batch):
        params = modulation(self.table, emb, batch)
        shift, scale = params[:2]
        audio_params = modulation(self.audio_table, emb_audio, batch)
        audio_shift, audio_scale = audio_params[:2]
        return x * scale + shift, audio_scale + audio_shift
""",
    "helpers.py": "import torch\n\n\ndef modulation(table, emb, batch):\n" + "\n".join(HELPER.splitlines()[3:]).replace("        ", "    ") + "\n",
}
# The helper lives in another module: only the target's own file is read.

CHECK_OLD = """
class Pipeline:
    def check(self, height, width):
        if height % 8 != 0 or width % 8 != 0:
            raise ValueError("not divisible")
        return height * width
"""
CHECK_NEW = """
class Pipeline:
    def check(self, height, width):
        if height % (self.scale * 2) != 0 or width % (self.scale * 2) != 0:
            raise ValueError(f"not divisible by {self.scale * 2}")
        return height * width
"""
# Every 8 is now the same expression, nothing else changed: the action is kept.
TWO_VALUES_NEW = CHECK_NEW.replace("width % (self.scale * 2)", "width % self.width_scale")
# 8 became two different expressions: no single value was made computed.
MESSAGE_NEW = CHECK_OLD.replace('raise ValueError("not divisible")', 'raise ValueError(f"the size {height} by {width} must be a multiple of the scale")')
VALUE_OLD = CHECK_OLD.replace("        return height * width\n", "        return self.device_name(height)\n")
VALUE_NEW = CHECK_OLD.replace("        return height * width\n", '        return "npu"\n')
# A message reworded into an f-string, and a computed value now a literal: neither is a constant made computed.
WARN_OLD = """
class Config:
    def validate(self):
        total = self.top_k + 1
        if self.top_k is not None:
            warnings.warn(WRONG.format(flag="top_k", value=self.top_k), UserWarning)
        return total
"""
WARN_NEW = """
class Config:
    def validate(self):
        issues = {}
        total = self.top_k + 1
        if self.top_k is not None:
            issues["top_k"] = WRONG.format(flag="top_k", value=self.top_k)
        self.report(issues)
        return total
"""
# The warning is now collected with the others: the message built for it is what the new statement assigns.
NAME_OLD = WARN_OLD.replace('warnings.warn(WRONG.format(flag="top_k", value=self.top_k), UserWarning)', "print(total)")
NAME_NEW = WARN_NEW.replace('issues["top_k"] = WRONG.format(flag="top_k", value=self.top_k)', 'issues["top_k"] = total')
# A name passed on says too little: any statement may read it.

CASES: list[RuleCase] = [
    RuleCase(
        "extracted-and-called",
        Rule.EXTRACTED_AND_CALLED,
        {"block.py": BLOCK_OLD},
        {"block.py": BLOCK_NEW},
        ("audio_values = self.audio_table[None, None].to(emb_audio.device) + emb_audio.reshape(batch, emb_audio.size(1), 6, -1)",),
        target="demo.block.Block.run",
        kind="changed",
    ),
    RuleCase(
        "same-action-constant-computed",
        Rule.SAME_ACTION,
        {"pipe.py": CHECK_OLD},
        {"pipe.py": CHECK_NEW},
        ("if height % 8 != 0 or width % 8 != 0:",),
        target="demo.pipe.Pipeline.check",
        kind="changed",
    ),
]

CASES.append(
    RuleCase(
        "same-action-argument-kept",
        Rule.SAME_ACTION,
        {"config.py": WARN_OLD},
        {"config.py": WARN_NEW},
        ('warnings.warn(WRONG.format(flag="top_k", value=self.top_k), UserWarning)',),
        target="demo.config.Config.validate",
        kind="changed",
    )
)

MODE_OLD = """
class Config:
    def mode(self):
        if self.assistant is not None and self.mode_name not in ("greedy", "sample"):
            raise ValueError("Setting `assistant` triggers assisted decoding. " "It only supports greedy and sample.")
        return self.mode_name
"""
MODE_NEW = """
class Config:
    def mode(self):
        if self.assistant is not None and self.mode_name not in ("greedy", "sample", "beam"):
            logger.warning("Setting `assistant` triggers assisted decoding. " "It only supports greedy and sample. " f"{self.mode_name} wins.")
        return self.mode_name
"""
# The error is a warning now; its message opens the warning's, extended with the mode that wins.
SHORT_OLD = MODE_OLD.replace('"Setting `assistant` triggers assisted decoding. " "It only supports greedy and sample."', '"bad mode"')
SHORT_NEW = MODE_NEW.replace(
    '"Setting `assistant` triggers assisted decoding. " "It only supports greedy and sample. " f"{self.mode_name} wins."',
    '"bad mode" f" {self.mode_name} of {self.assistant}"',
)
# A short string opening another says too little.

CASES.append(
    RuleCase(
        "same-action-message-kept-extended",
        Rule.SAME_ACTION,
        {"config.py": MODE_OLD},
        {"config.py": MODE_NEW},
        ('raise ValueError("Setting `assistant` triggers assisted decoding. " "It only supports greedy and sample.")',),
        target="demo.config.Config.mode",
        kind="changed",
    )
)

CHECKPOINT_OLD = """
class Prior:
    def run(self, x, emb):
        for block in self.blocks:
            if self.checkpointing:
                x = torch.utils.checkpoint.checkpoint(wrap_forward(block), x, emb, use_reentrant=False)
            else:
                x = block(x, emb)
        return self.out(x)
"""
CHECKPOINT_NEW = CHECKPOINT_OLD.replace(
    "x = torch.utils.checkpoint.checkpoint(wrap_forward(block), x, emb, use_reentrant=False)", "x = self._checkpointed(block, x, emb)"
).replace("return self.out(x)", "x = self.norm(x)\n        return self.out(x)")
# The block is handed to one checkpointing helper: the wrapper around it and the keyword are gone.
CACHED_NEW = CHECKPOINT_OLD.replace(
    "x = torch.utils.checkpoint.checkpoint(wrap_forward(block), x, emb, use_reentrant=False)",
    "x, cache[i] = self._checkpointed(block, x, emb, cache.get(i))",
).replace("x = block(x, emb)", "x, cache[i] = block(x, emb, cache.get(i))")
# The same, the block now also given and returning its cache (set 42's CogVideoX up block): the output comes first.
OTHER_ARGUMENTS_NEW = CHECKPOINT_NEW.replace("x = self._checkpointed(block, x, emb)", "x = self._checkpointed(block, emb, x)")
# The same helper given the arguments in another order: not the same call.

CASES.append(
    RuleCase(
        "same-action-wrapper-dropped",
        Rule.SAME_ACTION,
        {"prior.py": CHECKPOINT_OLD},
        {"prior.py": CHECKPOINT_NEW},
        ("x = torch.utils.checkpoint.checkpoint(wrap_forward(block), x, emb, use_reentrant=False)",),
        target="demo.prior.Prior.run",
        kind="changed",
    )
)

CASES.append(
    RuleCase(
        "same-action-wrapper-dropped-cache-added",
        Rule.SAME_ACTION,
        {"prior.py": CHECKPOINT_OLD},
        {"prior.py": CACHED_NEW},
        ("x = torch.utils.checkpoint.checkpoint(wrap_forward(block), x, emb, use_reentrant=False)",),
        target="demo.prior.Prior.run",
        kind="changed",
    )
)

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "same-action-not-when-a-name-was-passed-on",
        Rule.SAME_ACTION,
        {"config.py": NAME_OLD},
        {"config.py": NAME_NEW},
        ("print(total)",),
        target="demo.config.Config.validate",
    ),
    RuleCase(
        "extracted-and-called-not-when-two-calls-are-as-close",
        Rule.EXTRACTED_AND_CALLED,
        {"block.py": BLOCK_OLD},
        {"block.py": ONE_CALL_NEW},
        ("values = self.table[None, None].to(emb.device) + emb.reshape(batch, emb.size(1), 6, -1)",),
        target="demo.block.Block.run",
    ),
    RuleCase(
        "extracted-and-called-not-into-another-module",
        Rule.EXTRACTED_AND_CALLED,
        ELSEWHERE_OLD,
        ELSEWHERE_NEW,
        ("audio_values = self.audio_table[None, None].to(emb_audio.device) + emb_audio.reshape(batch, emb_audio.size(1), 6, -1)",),
        target="demo.block.Block.run",
    ),
    RuleCase(
        "same-action-not-when-a-constant-became-two-values",
        Rule.SAME_ACTION,
        {"pipe.py": CHECK_OLD},
        {"pipe.py": TWO_VALUES_NEW},
        ("if height % 8 != 0 or width % 8 != 0:",),
        target="demo.pipe.Pipeline.check",
    ),
    RuleCase(
        "same-action-not-when-a-message-became-an-f-string",
        Rule.SAME_ACTION,
        {"pipe.py": CHECK_OLD},
        {"pipe.py": MESSAGE_NEW},
        ('raise ValueError("not divisible")',),
        target="demo.pipe.Pipeline.check",
    ),
    RuleCase(
        "same-action-not-when-a-value-became-a-literal",
        Rule.SAME_ACTION,
        {"pipe.py": VALUE_OLD},
        {"pipe.py": VALUE_NEW},
        ("return self.device_name(height)",),
        target="demo.pipe.Pipeline.check",
    ),
]

FIELDS_OLD = """
class Config:
    def __init__(self, **kwargs):
        self.top_k = kwargs.pop("top_k", 50)
        self.legacy_cache = kwargs.pop("legacy_cache", None)
        self.top_p = kwargs.pop("top_p", 1.0)
"""
FIELDS_NEW = """
class Config:
    def __init__(self, **kwargs):
        self.top_k = kwargs.pop("top_k", 50)
        self.stop_strings = kwargs.pop("stop_strings", None)
        self.top_p = kwargs.pop("top_p", 1.0)
"""
# legacy_cache is gone; the new line in its place reads another key into another field: not its edit.
RENAMED_KEY_NEW = FIELDS_NEW.replace('self.stop_strings = kwargs.pop("stop_strings", None)', 'self.cache = kwargs.pop("cache", None)')
# legacy_cache became cache, its key renamed with it (a word kept): an edit.
CASES.append(
    RuleCase(
        "another-field",
        Filter.ANOTHER_FIELD,
        {"config.py": FIELDS_OLD},
        {"config.py": FIELDS_NEW},
        ('self.legacy_cache = kwargs.pop("legacy_cache", None)',),
        "s0",
        Action.REMOVED,
        target="demo.config.Config.__init__",
        kind="deleted",
    )
)
HELD_BACK.append(
    RuleCase(
        "another-field-not-when-a-word-is-kept",
        Filter.ANOTHER_FIELD,
        {"config.py": FIELDS_OLD},
        {"config.py": RENAMED_KEY_NEW},
        ('self.legacy_cache = kwargs.pop("legacy_cache", None)',),
        "s0",
        Action.REMOVED,
        target="demo.config.Config.__init__",
        kind="changed",
    )
)
HELD_BACK.append(
    RuleCase(
        "same-action-not-when-a-short-message-opens-another",
        Rule.SAME_ACTION,
        {"config.py": SHORT_OLD},
        {"config.py": SHORT_NEW},
        ('raise ValueError("bad mode")',),
        target="demo.config.Config.mode",
    )
)
HELD_BACK.append(
    RuleCase(
        "same-action-not-when-the-arguments-differ-once-unwrapped",
        Rule.SAME_ACTION,
        {"prior.py": CHECKPOINT_OLD},
        {"prior.py": OTHER_ARGUMENTS_NEW},
        ("x = torch.utils.checkpoint.checkpoint(wrap_forward(block), x, emb, use_reentrant=False)",),
        target="demo.prior.Prior.run",
    )
)
