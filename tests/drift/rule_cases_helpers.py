"""Rule cases for the rules of issue 41's set 17 misses: a block extracted into a helper and rewritten on its way, so
that a statement's neighbours changed with it (rule ``close-edit-in-helper``), and a class rewritten under a new name
that its users now build instead (rule ``class-renamed-at-users``), and a function renamed keeping its name's words
with its body rewritten (rule ``renamed-keeping-words``); :mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase
from test_match_synthetic import OLD

from infralens.drift.match.rules import Filter, Rule, TargetRule

EXTRACTED_AND_REWRITTEN = """
class Mixer:
    def run(self, x, scale):
        return self._mix(x, scale)

    def _mix(self, x, scale):
        h = self.norm_in(x)
        h = self.attn(h)[0]
        h = self.norm_out(h)
        total = (x + scale) * 2
        self.set_gain(scale)
        y = h * 2
        z = h * 3
        return y + z
"""
# run() handed its whole body to _mix(): five statements kept their text; the attention call, between two rewritten
# norms, now takes the first of its outputs. Its neighbours tell nothing, but the helper is where the block went.
HELPER_HELD_IT = EXTRACTED_AND_REWRITTEN  # the same new source; the old one (HELD_OLD) already had the helper
HELD_OLD = (
    OLD
    + """
    def _mix(self, x, scale):
        h = self.attn(h)[0]
        return h
"""
)
# The same helper, but it held the near twin already at the review: that statement did its own job before.
SWAPPED_OUT = EXTRACTED_AND_REWRITTEN.replace("h = self.attn(h)[0]", "h = self.conv(h, 3)")
# The attention call is gone from the helper: the nearest statement there is not close enough to stand on its text.

LOGGED_OLD = """
class Mixer:
    def run(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        h = self.norm(x)
        self.log(x, "in")
        h = self.attn(h)
        self.log(x, "out")
        y = h * 2
        return y + total
"""
LOG_DROPPED = """
class Mixer:
    def run(self, x, scale):
        return self._mix(x, scale)

    def _mix(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        h = self.norm(x)
        self.log(x, "in")
        out = self.attn(h) * scale
        self.log(out.mean(), "mid-stage", level=2)
        return out + total
"""
# The second log call is gone, the statements around it rewritten; the helper's first log call reads almost like it,
# but the reviewed run() held that one itself (it is another step's, carried over unchanged).
BUILT_OLD = """
class Block:
    def __init__(self, width):
        self.proj = Linear(width)
        self.norm = Norm(width)
        self.scale = 2

    def run(self, x):
        h = self.proj(x)
        h = self.norm(h)
        return h * self.scale


class Model:
    def __init__(self, width):
        self.block = Block(width)
        self.head = Head(width)

    def forward(self, x):
        return self.head(self.block.run(x))
"""
BUILT_NEW = """
class CompactBlock:
    def __init__(self, width, eps=1e-6):
        self.layers = Sequential(Linear(width), Norm(width, eps))

    def run(self, x):
        return self.layers(x) * 2


class Model:
    def __init__(self, width):
        self.block = CompactBlock(width, eps=1e-5)
        self.head = Head(width)

    def forward(self, x):
        return self.head(self.block.run(x))
"""
# Block was rewritten as CompactBlock: the two classes share one statement, but Model builds the new one where it built
# the old one (other arguments): the target is CompactBlock.run.
SIBLING_OLD = BUILT_OLD + BUILT_NEW.split("class Model", maxsplit=1)[0]
SIBLING_NEW = BUILT_NEW
# CompactBlock was there at the review beside Block: Model switched to a sibling, Block was not renamed to it.

WRAPPED_OLD = """
class Down:
    def __init__(self, width):
        self.conv = Conv(width, stride=2)
        self.norm = Norm(width)

    def run(self, x):
        if self.norm is not None:
            x = self.norm(x)
        x = pad(x, self.padding)
        return self.conv(x)


class Stage:
    def __init__(self, width):
        self.blocks = ModuleList([Block(width)])
        self.down = ModuleList([Down(width, padding=1)])

    def forward(self, x):
        return self.down[0].run(self.blocks[0](x))
"""
WRAPPED_NEW = """
class CompactDown:
    def __init__(self, width):
        self.conv = Conv(width, stride=2, padding=0)

    def run(self, x):
        return self.conv(pad(x, (0, 1, 0, 1)))


class CompactStage:
    def __init__(self, width):
        self.blocks = ModuleList([Block(width)])
        self.down = nn.ModuleList([CompactDown(width)])

    def forward(self, x):
        return self.down[0].run(self.blocks[0](x))
"""
# Down and the Stage that built it were both rewritten under new names: CompactStage.__init__ (a namesake of the
# gone user, new since the review) fills the same place from CompactDown, wrapped as before: the target is CompactDown.run.
WRAPPED_SIBLING_OLD = WRAPPED_OLD + WRAPPED_NEW.split("class CompactStage", maxsplit=1)[0]
# CompactDown was there at the review beside Down: the renamed stage switched to a sibling, Down was not renamed to it.

# A rotary embedding's private helper taken over by a decorator its forward now wears (as transformers 4.48 moved every
# model's _dynamic_frequency_update into dynamic_rope_update's nested dynamic_frequency_update); near misses: the
# decorator held that function at the review already, or two decorators the class wears each nest one of that name.
GROW_OLD = """
class Rotary:
    def _grow(self, ids, device):
        n = ids.max() + 1
        if n > self.cached:
            self.cached = n

    def forward(self, x, ids):
        if self.dynamic:
            self._grow(ids, device=x.device)
        return x * self.freq
"""
GROW_ROPE = """
def dynamic_update(forward):
    def grow(self, ids, device):
        n = ids.max() + 1
        if n > getattr(self, "cached"):
            setattr(self, "cached", n)

    def wrapper(self, x, ids):
        if self.dynamic:
            grow(self, ids, device=x.device)
        return forward(self, x, ids)

    return wrapper
"""
GROW_NEW = """
from .rope import dynamic_update


class Rotary:
    @dynamic_update
    def forward(self, x, ids):
        return x * self.freq
"""
GROW_TWICE = GROW_NEW.replace("from .rope import dynamic_update", "from .rope import dynamic_update, scaled_update").replace(
    "    @dynamic_update\n", "    @dynamic_update\n    @scaled_update\n"
)
GROW_TWO_ROPES = GROW_ROPE + GROW_ROPE.replace("def dynamic_update(", "def scaled_update(")
GROW = "demo.mixer.Rotary._grow"
GROW_STEP = ("n = ids.max() + 1",)

# A loader's block handed to a model mixin's method it reaches by name (``model.load_procs``), which hands it on to a
# method of its own class (``self._process``): the statements went two calls away, rewritten around a check that kept
# its words (as diffusers 0.29 moved LoraLoaderMixin.load_lora_into_unet's body into load_attn_procs -> _process_lora).
PROCS_OLD = """
class Loader:
    def load(self, model, state):
        keys = [k for k in state if k.startswith(self.prefix)]
        if not keys:
            raise ValueError("no keys for this model")
        rank = max(v.shape[1] for v in state.values())
        config = make_config(rank, alpha=self.alpha)
        model.inject(config, state)
        return model
"""
PROCS_NEW = """
class Loader:
    def load(self, model, state):
        model.load_procs(state, self.prefix, self.alpha)
        return model


class ProcsMixin:
    def load_procs(self, state, prefix, alpha):
        self.check_state(state)
        return self._process(state, prefix, alpha)

    def _process(self, state, prefix, alpha):
        wanted = sorted(key for key in state if key.startswith(prefix))
        if not wanted:
            raise ValueError("no keys for this model")
        top = self.rank_of(state, wanted)
        config = make_config(top, alpha=alpha, bias=False)
        self.attach(config)
"""
PROCS_NO_ANCHOR = PROCS_NEW.replace('raise ValueError("no keys for this model")', "raise KeyError(prefix)")
PROCS_HELD = PROCS_OLD + "\n\nclass ProcsMixin:\n    def _process(self, state, prefix, alpha):\n        return state\n"
# The same, with a _process that was there at the review: not new code (filter new-code-beyond leaves it), only the
# pairing in order finds the edit there.
PROCS_STEP = ("config = make_config(rank, alpha=self.alpha)",)
PROCS = "demo.mixer.Loader.load"


def _grow(name: str, old: dict[str, str], new: dict[str, str], *, kind: str | None = None, reviewed: bool = True) -> RuleCase:
    """A case of ``moved-into-decorator`` on ``Rotary._grow`` (its target's verdict)."""
    return RuleCase(name, TargetRule.MOVED_INTO_DECORATOR, old, new, GROW_STEP, "target", target=GROW, kind=kind, reviewed=reviewed)


RENAMED_WORDS_OLD = """
def _check_scaling(config):
    factor = config.scaling["factor"]
    low = config.scaling.get("low", 1)
    if factor < 1:
        raise ValueError("factor must be at least 1")
    return factor * low
"""
RENAMED_WORDS_NEW = """
class ScalingConfig:
    def _check_scaling_params(self, params):
        factor = params["factor"]
        low = params.get("low", 1)
        if factor < 1.0:
            raise ValueError("factor must be at least 1")
        return factor * low
"""
# The module function became a method whose name keeps its words (check, scaling); the body reads a dict now.
RENAMED_WORDS_ELSE = RENAMED_WORDS_NEW.replace("_check_scaling_params", "_validate_params")
# The same body under a name that drops "check" and "scaling": nothing says it is the target.
RENAMED_WORDS_SIBLING_OLD = RENAMED_WORDS_OLD + RENAMED_WORDS_NEW
# The method with the kept words was there at the review already: a sibling, not the target renamed.

SCALED_OLD = """
class Model:
    def forward(self, x, joint_attention_kwargs=None):
        lora_scale = 1.0
        if joint_attention_kwargs is not None:
            joint_attention_kwargs = joint_attention_kwargs.copy()
            lora_scale = joint_attention_kwargs.pop("scale", 1.0)
        scale_layers(self, lora_scale)
        h = self.proj(x)
        h = self.norm(h)
        out = self.head(h)
        unscale_layers(self, lora_scale)
        return out
"""
SCALED_NEW = """
import functools


def with_scale(name):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            lora_scale = 1.0
            attention_kwargs = kwargs.get(name)
            if attention_kwargs is not None:
                attention_kwargs = attention_kwargs.copy()
                kwargs[name] = attention_kwargs
                lora_scale = attention_kwargs.pop("scale", 1.0)
            scale_layers(self, lora_scale)
            try:
                return fn(self, *args, **kwargs)
            finally:
                unscale_layers(self, lora_scale)

        return wrapper

    return decorator


class Model:
    @with_scale("joint_attention_kwargs")
    def forward(self, x, joint_attention_kwargs=None):
        h = self.proj(x)
        h = self.norm(h)
        return self.head(h)
"""
# forward's LoRA scaling went into the wrapper of a decorator it now wears, its kwargs read under a general name.
SCALED_STEPS = (
    "if joint_attention_kwargs is not None:",
    "joint_attention_kwargs = joint_attention_kwargs.copy()",
    'lora_scale = joint_attention_kwargs.pop("scale", 1.0)',
)

CASES: list[RuleCase] = [
    RuleCase(
        "renamed-alike",
        Filter.RENAMED_ALIKE,
        {"mixer.py": SCALED_OLD},
        {"mixer.py": SCALED_NEW},
        SCALED_STEPS,
        target="demo.mixer.Model.forward",
        kind="changed",
    ),
    RuleCase("new-code-beyond", Filter.NEW_CODE_BEYOND, {"mixer.py": PROCS_OLD}, {"mixer.py": PROCS_NEW}, PROCS_STEP, target=PROCS, kind="changed"),
    RuleCase(
        "renamed-keeping-words",
        TargetRule.RENAMED_KEEPING_WORDS,
        {"mixer.py": RENAMED_WORDS_OLD},
        {"mixer.py": RENAMED_WORDS_NEW},
        ('factor = config.scaling["factor"]', 'low = config.scaling.get("low", 1)'),
        "target",
        target="demo.mixer._check_scaling",
        kind="renamed",
    ),
    RuleCase(
        "renamed-keeping-words-edit-in-the-new-function",
        Rule.EDIT,
        {"mixer.py": RENAMED_WORDS_OLD},
        {"mixer.py": RENAMED_WORDS_NEW},
        ('factor = config.scaling["factor"]', 'low = config.scaling.get("low", 1)'),
        target="demo.mixer._check_scaling",
        kind="changed",
    ),
    RuleCase(
        "aligned-in-reached-beyond-the-home",
        Rule.ALIGNED_IN_REACHED,
        {"mixer.py": PROCS_HELD},
        {"mixer.py": PROCS_NEW},
        PROCS_STEP,
        target=PROCS,
        kind="changed",
    ),
    _grow("moved-into-decorator", {"mixer.py": GROW_OLD}, {"mixer.py": GROW_NEW, "rope.py": GROW_ROPE}, kind="moved"),
    RuleCase(
        "close-edit-in-helper", Rule.CLOSE_EDIT_IN_HELPER, {"mixer.py": OLD}, {"mixer.py": EXTRACTED_AND_REWRITTEN}, ("h = self.attn(h)",), kind="changed"
    ),
    RuleCase(
        "class-renamed-at-users",
        TargetRule.CLASS_RENAMED_AT_USERS,
        {"mixer.py": BUILT_OLD},
        {"mixer.py": BUILT_NEW},
        ("def run(self, x):",),
        "target",
        target="demo.mixer.Block.run",
        kind="renamed",
    ),
    RuleCase(
        "class-renamed-with-users",
        TargetRule.CLASS_RENAMED_WITH_USERS,
        {"mixer.py": WRAPPED_OLD},
        {"mixer.py": WRAPPED_NEW},
        ("def run(self, x):",),
        "target",
        target="demo.mixer.Down.run",
        kind="renamed",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "renamed-alike-not-two-statements",
        Filter.RENAMED_ALIKE,
        {"mixer.py": SCALED_OLD},
        {"mixer.py": SCALED_NEW},
        SCALED_STEPS[:2],
        target="demo.mixer.Model.forward",
        kind="deleted",
    ),
    RuleCase("new-code-beyond-not-code-of-the-review", Filter.NEW_CODE_BEYOND, {"mixer.py": PROCS_HELD}, {"mixer.py": PROCS_NEW}, PROCS_STEP, target=PROCS),
    RuleCase(
        "renamed-keeping-words-not-when-the-words-are-gone",
        TargetRule.RENAMED_KEEPING_WORDS,
        {"mixer.py": RENAMED_WORDS_OLD},
        {"mixer.py": RENAMED_WORDS_ELSE},
        ('factor = config.scaling["factor"]',),
        "target",
        target="demo.mixer._check_scaling",
        kind="renamed",  # not by its words: by its body, all of it close in the one new method (rule folded-into-method)
    ),
    RuleCase(
        "renamed-keeping-words-not-a-sibling-of-the-review",
        TargetRule.RENAMED_KEEPING_WORDS,
        {"mixer.py": RENAMED_WORDS_SIBLING_OLD},
        {"mixer.py": RENAMED_WORDS_NEW},
        ('factor = config.scaling["factor"]',),
        "target",
        target="demo.mixer._check_scaling",
        kind="deleted",
    ),
    RuleCase(
        "aligned-in-reached-beyond-the-home-no-anchor",
        Rule.ALIGNED_IN_REACHED,
        {"mixer.py": PROCS_HELD},
        {"mixer.py": PROCS_NO_ANCHOR},
        PROCS_STEP,
        target=PROCS,
    ),
    _grow("moved-into-decorator-held-at-review", {"mixer.py": GROW_OLD, "rope.py": GROW_ROPE}, {"mixer.py": GROW_NEW, "rope.py": GROW_ROPE}),
    _grow("moved-into-decorator-two-decorators", {"mixer.py": GROW_OLD}, {"mixer.py": GROW_TWICE, "rope.py": GROW_TWO_ROPES}),
    _grow("moved-into-decorator-reviewed-release-unknown", {"mixer.py": GROW_OLD}, {"mixer.py": GROW_NEW, "rope.py": GROW_ROPE}, reviewed=False),
    RuleCase(
        "close-edit-in-helper-held-at-review",
        Rule.CLOSE_EDIT_IN_HELPER,
        {"mixer.py": HELD_OLD},
        {"mixer.py": HELPER_HELD_IT},
        ("h = self.attn(h)",),
        kind="deleted",
    ),
    RuleCase("close-edit-in-helper-not-close", Rule.CLOSE_EDIT_IN_HELPER, {"mixer.py": OLD}, {"mixer.py": SWAPPED_OUT}, ("h = self.attn(h)",), kind="deleted"),
    RuleCase(
        "close-edit-in-helper-not-another-statement",
        Rule.CLOSE_EDIT_IN_HELPER,
        {"mixer.py": LOGGED_OLD},
        {"mixer.py": LOG_DROPPED},
        ('self.log(x, "out")',),
        kind="deleted",
    ),
    RuleCase(
        "class-renamed-at-users-not-to-a-sibling",
        TargetRule.CLASS_RENAMED_AT_USERS,
        {"mixer.py": SIBLING_OLD},
        {"mixer.py": SIBLING_NEW},
        ("def run(self, x):",),
        "target",
        target="demo.mixer.Block.run",
        kind="deleted",
    ),
    RuleCase(
        "class-renamed-with-users-not-to-a-sibling",
        TargetRule.CLASS_RENAMED_WITH_USERS,
        {"mixer.py": WRAPPED_SIBLING_OLD},
        {"mixer.py": WRAPPED_NEW},
        ("def run(self, x):",),
        "target",
        target="demo.mixer.Down.run",
        kind="deleted",
    ),
]
