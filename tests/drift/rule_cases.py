"""Each rule of the drift matcher's rule book with its own cases: a release 1.0, a release 2.0, the annotated steps,
and what the rule must do (fire, veto, remove or decline) on one step or on the target, in the trace of a real check.

As Fixit's rules carry their valid and invalid examples, every rule of :data:`infralens.drift.match.rulebook.SPECS` has at
least one case here (``test_rule_cases.py`` proves it and runs them all through one parametrised test). Sources come
from the matcher's other synthetic tests where one already shows the rule; the rest are written here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drift_samples import OLD_CORE
from test_classify import CASES as CLASSIFY
from test_match_reviewed import (
    BRANCHES_NEW,
    BRANCHES_OLD,
    CAPABILITY_NEW,
    CAPABILITY_OLD,
    CONVERT_NEW,
    CONVERT_OLD,
    ENABLE_NEW,
    ENABLE_OLD,
    FOLDED_OLD,
    MIXIN,
    NESTED_ELSE_NEW,
    NESTED_ELSE_OLD,
    PROCESSOR_NEW,
    PROCESSOR_OLD,
    RENAMED_CLASS_NEW,
    RENAMED_CLASS_OLD,
    ROPE,
    ROPE_COPY,
    ROPE_NOW,
    ROPE_STEPS,
    RUN_BY_MIXIN,
    RUN_BY_NAME,
    SIGMAS,
    UNRELATED,
)
from test_match_synthetic import DELEGATED, OLD, SHIM, SPLIT, TWINS, WRAPPED

from infralens.drift.match.rules import Action, AnyRule, Filter, Rule, TargetRule

Step = str | tuple[str, int]
"""A step's selector: its text, or its text and which occurrence (1-based)."""

RUN = "demo.mixer.Mixer.run"
SAMPLER = "demo.core.Sampler.step"
SAMPLER_STEPS = ("alpha = math.cos(t / self.steps)", "sigma = math.sin(t / self.steps)", "guided = x * alpha + sigma * 0.5", "out = guided / (alpha + sigma)")
SAMPLER_KEYS = ("s0", "s1", "s2", "s3")
"""The sampler annotation of :mod:`drift_samples`, as steps ``s0``–``s3`` (alpha, sigma, guided, out)."""


@dataclass(frozen=True)
class RuleCase:
    """One before/after pair and what ``rule`` must do on ``item`` (a step key such as ``s0``, or ``target``)."""

    name: str
    rule: AnyRule
    old: dict[str, str]
    new: dict[str, str]
    steps: tuple[Step, ...]
    item: str = "s0"
    action: Action = Action.FIRED
    target: str = RUN
    kind: str | None = None
    """The kind the item must get as well (None: only the trace is asked)."""
    reviewed: bool = True
    """Whether release 1.0 is at hand as the reviewed release."""
    same_file: bool = field(default=False)
    """Check release 1.0 itself (a byte-identical file)."""


def _classify(name: str, rule: AnyRule, item: str, kind: str, action: Action = Action.FIRED) -> RuleCase:
    """A row of ``test_classify``'s table (the sampler tree) as a rule case."""
    return RuleCase(
        f"sampler-{name}", rule, {"core.py": OLD_CORE}, CLASSIFY[name][0], SAMPLER_STEPS, item, action, SAMPLER, kind, same_file=name == "identical"
    )


ATTN_EDITED = OLD.replace("        h = self.attn(h)\n", "        h = self.attn(h, mask)\n")
CLOSE_EDITS = OLD.replace("        h = self.attn(h)\n", "        h = self.attn1(h)\n        h = self.attn2(h)\n")
BLOCK_COPIED_OUT = OLD.replace("        h = self.norm(x)\n        h = self.attn(h)\n        h = self.norm(h)\n", "")
GROWN_RUN = """
def helper():
    return 1


class Mixer:
    def run(self, x, scale):
        x = self.check(x)
        scale = self.clip(scale)
        gain = self.gain_for(scale)
        self.apply(gain)
        h = self.norm(x)
        h = self.attend(h, gain)
        h = self.project(h)
        y = h * 2
        return y
"""
# run() left mixer.py for tools.py, which mixer.py now imports from, and grew there: too little overlap for moved-module.
ROLE_KEPT = OLD.replace(
    "        total = (x + scale) * 2\n        self.set_gain(scale)\n",
    "        total = (x + scale) * 3\n        scale = self.limit(scale)\n        self.set_gain(self.clip(scale, 0, 1) * self.ratio)\n",
)
# The setter call kept its role (the only call of self.set_gain left), its arguments and a neighbour rewritten.
SPLIT_AND_EDITED = """
class Mixer:
    def run(self, x, scale):
        total = self._prepare(x, scale)
        h = self._mix(x)
        y = h * 2
        z = h * 3
        return y + z

    def _prepare(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale, smooth=True)
        return total

    def _mix(self, x):
        h = self.norm(x)
        h = self.attn(h)
        h = self.norm(h)
        return h
"""
# run() split into two helpers; the setter call was rewritten on its way into the first.
NEW_CLONE_OF_PREPARE = """
class Mixer:
    def run(self, x):
        y = x * 2
        return y


class NewPipeline:
    def prepare_inputs(self, x, scale):
        x = self.check(x)
        scale = self.clip(scale)
        total = (x + scale) * 2
        self.set_gain(scale)
        h = self.norm(x)
        h = self.attend(h)
        return h * 3
"""
# prepare() went; two functions that were there at the review each gained its block alike: neither is told apart.
TWO_CARRIERS_OLD = (
    FOLDED_OLD
    + """

class Left:
    def run(self, x):
        return x


class Right:
    def run(self, x):
        return x
"""
)
TWO_CARRIERS_NEW = """
class Mixer:
    def run(self, x):
        y = x * 2
        return y


class Left:
    def run(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        h = self.norm(x)
        return x


class Right:
    def run(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        h = self.norm(x)
        return x
"""
EULER = {"mixer.py": SIGMAS.format(name="Euler", method="_compute_sigmas"), "other.py": SIGMAS.format(name="Heun", method="_compute_sigmas")}
EULER_RENAMED = {
    "mixer.py": SIGMAS.format(name="Euler", method="_compute_karras_sigmas"),
    "other.py": SIGMAS.format(name="Heun", method="_compute_karras_sigmas"),
}
MASKS = """
def mask_recent(x, n):
    a = x + n
    b = a * 2
    return b


def mask_older(x, n):
    return x


mask = mask_recent if NEW_TORCH else mask_older
"""
MASK_NOW = """
def mask(x, n, offset=0):
    a = x + n + offset
    b = a * 2
    return b
"""
# Both choices of the alias went: the public name is one definition holding the recent body and the older one's fix.
MASK_MERGED = """
def mask(x, n, offset=0):
    a = x + n + offset
    b = a * 2
    if OLD_TORCH:
        b = fix(b)
    return b
"""
MASKS_WITH_FIX = MASKS.replace("def mask_older(x, n):\n    return x\n", "def mask_older(x, n):\n    b = fix(x)\n    return b\n")
# run() handed its gain handling to a decorator whose wrapper sets the gain with a keyword more.
WRAPPED_EDIT = WRAPPED.replace("        self.set_gain(scale)\n        return function", "        self.set_gain(scale, smooth=True)\n        return function")
# The same wrapper, but run() does not carry the decorator: nothing of run() went there.
NOT_WRAPPED = WRAPPED_EDIT.replace("    @with_gain\n", "")
# run() hands its work to a new helper, where the projection takes the gain under another name and its neighbours
# were rewritten around it.
HANDED_OLD = """
class Mixer:
    def run(self, x, scale):
        acc = 0
        for part in x.parts:
            acc = acc + part
        out = self.project(acc, scale, dim=1)
        self.calls += 1
        return out
"""
APPLY = """
    def _apply(self, x, gain):
        self.check(x)
        self.log.debug("applying")
        out = self.project(acc, gain, dim=1)
        if self.twice:
            out = self.project(out, gain, dim=0)
        return self.finish(out)
"""
HANDED_NEW = (
    """
class Mixer:
    def run(self, x, scale):
        return self._apply(x, scale)
"""
    + APPLY
)
# The helper loops over the parts under another name: a block header, told by its body rather than its words.
HANDED_LOOP = HANDED_NEW.replace("        self.check(x)\n", "        self.reset()\n        for piece in x.parts:\n            acc = acc.merge(piece)\n")
# The helper was there at the review and already projected with the gain: it did that job before, nothing came to it.
HANDED_HELD_OLD = HANDED_OLD + APPLY
# run() now doubles through a local bound to a module function (chosen at run time); a look-alike is not reached.
EAGER = (
    OLD.replace("        y = h * 2\n", "        double = eager_double\n        y = double(h)\n")
    + """

def eager_double(h):
    y = h * 2
    return y


def other_double(h):
    y = h * 2
    return y
"""
)
# The cache hands each update to a per-layer object; the layer class of its own module now does the work.
LAYERED_OLD = """
class Cache:
    def update(self, key, idx):
        self.keys[idx] = cat(self.keys[idx], key)
        self.count += 1
        out = self.keys[idx] * 2
        return out
"""
LAYERED_NEW = """
class Layer:
    def update(self, key):
        self.keys = cat(self.keys, key)
        self.count += 1
        out = self.keys * 2
        return out


class Cache:
    def update(self, key, idx):
        return self.layers[idx].update(key)
"""
# A loop over the cache's per-index state became one method of the per-layer object (its neighbours rewritten too).
REPEAT_OLD = """
class Cache:
    def repeat(self, n):
        for idx in range(len(self.keys)):
            self.keys[idx] = self.keys[idx].repeat(n)
            self.values[idx] = self.values[idx].repeat(n)
"""
REPEAT_NEW = """
class Layer:
    def repeat(self, n):
        if self.ready:
            self.key_states = self.key_states.repeat(n)
            self.value_states = self.value_states.repeat(n)


class Cache:
    def __init__(self):
        self.layers = [Layer()]

    def repeat(self, n):
        for idx in range(len(self.layers)):
            self.layers[idx].repeat(n)
"""
# The same, but the layer repeats along another axis: a different statement, not the per-layer one.
REPEAT_ELSEWHERE = REPEAT_NEW.replace("self.key_states.repeat(n)", "self.key_states.repeat(n, axis=1)").replace(
    "self.value_states.repeat(n)", "self.value_states.repeat(n, axis=1)"
)
LAYERS_OF_OWNER = """
class Layer:
    def update(self, key):
        self.keys = cat(self.keys, key)
        self.count += 1
        out = self.keys * 2
        return out


class SlidingLayer(Layer):
    def update(self, key):
        full = cat(self.keys, key)
        self.keys = full[-4:]
        self.count += 1
        out = self.keys * 2
        return out


class QuantLayer:
    def update(self, key):
        self.keys = cat(self.keys, quant(key))
        self.count += 1
        self.count += 1
        out = self.keys * 2
        return out


class Cache:
    def __init__(self, sliding):
        self.layers = [SlidingLayer() if sliding else Layer()]

    def update(self, key, idx):
        return self.layers[idx].update(key)
"""
PROCESSED_OLD = """
class QuantCache:
    def update(self, key, idx):
        self.keys[idx] = cat(self.keys[idx], key)
        self.count += 1
        out = self.keys[idx] * 2
        return out
"""
PROCESSED_NEW = """
def apply(fn):
    def wrapped(self, key, idx):
        out = fn(self, key, idx)
        return self.processor.post_update(self, out, idx)

    return wrapped


class Processor:
    def post_update(self, cache, key, idx):
        cache.keys[idx] = cat(cache.keys[idx], key)
        cache.count += 1
        out = cache.keys[idx] * 2
        return out


class FastProcessor(Processor):
    def tune(self):
        return 1


class OtherProcessor:
    def post_update(self, cache, key, idx):
        return key


class Cache:
    @apply
    def update(self, key, idx):
        return key


class QuantCache(Cache):
    def __init__(self):
        self.processor = FastProcessor()
"""
# QuantCache.update now runs Cache.update, whose decorator's wrapper hands the work to the processor QuantCache builds;
# that processor inherits post_update from Processor (OtherProcessor's is another class's).
SURVIVOR = TWINS.replace("        x = f(x)\n        y = g(x)\n", "        y = g(x)\n", 1)
SPLIT_STEPS = ("h = self.attn(h)", "y = h * 2")

CASES: list[RuleCase] = [
    # -- the container --------------------------------------------------------------------------------------------
    RuleCase("file-unchanged", TargetRule.FILE_UNCHANGED, {"mixer.py": OLD}, {"mixer.py": OLD}, ("y = h * 2",), "target", same_file=True),
    RuleCase("unreadable", TargetRule.UNREADABLE, {"mixer.py": OLD}, {"mixer.py": "class Mixer(:\n"}, ("y = h * 2",), "target", kind="unreadable"),
    RuleCase("same-place", TargetRule.SAME_PLACE, {"mixer.py": OLD}, {"mixer.py": OLD + "\n\ndef later():\n    return 1\n"}, ("y = h * 2",), "target"),
    RuleCase("body-changed", TargetRule.BODY_CHANGED, {"mixer.py": OLD}, {"mixer.py": OLD.replace("return y + z", "return y - z")}, ("y = h * 2",), "target"),
    RuleCase("moved-module", TargetRule.MOVED_MODULE, {"mixer.py": OLD}, {"mixer.py": "X = 1\n", "elsewhere.py": OLD}, ("y = h * 2",), "target", kind="moved"),
    RuleCase(
        "re-exported",
        TargetRule.RE_EXPORTED,
        {"mixer.py": OLD},
        {"mixer.py": "from .mixing import Blender as Mixer\n", "mixing.py": OLD.replace("class Mixer:", "class Blender:")},
        ("y = h * 2",),
        "target",
        kind="renamed",
    ),
    RuleCase(
        "moved-with-imports",
        TargetRule.MOVED_WITH_IMPORTS,
        {"mixer.py": OLD},
        {"mixer.py": "from .tools import helper\n\nX = helper()\n", "tools.py": GROWN_RUN},
        ("y = h * 2",),
        "target",
        kind="moved",
    ),
    RuleCase(
        "moved-to-class",
        TargetRule.MOVED_TO_CLASS,
        {"mixer.py": OLD},
        {
            "mixer.py": "class Mixer:\n    def other(self):\n        return 1\n\n"
            + OLD.replace("class Mixer:", "class Unit:").replace("return y + z", "return y - z")
        },
        ("y = h * 2",),
        "target",
        kind="moved",
    ),
    RuleCase(
        "moved-same-name",
        TargetRule.MOVED_SAME_NAME,
        {"mixer.py": ENABLE_OLD},
        {"mixer.py": ENABLE_NEW},
        ('raise ValueError("Encoder not found.")',),
        "target",
        target="demo.mixer.Mixer.enable",
    ),
    RuleCase(
        "renamed-behind-shim",
        TargetRule.RENAMED_BEHIND_SHIM,
        {"mixer.py": OLD},
        {"mixer.py": SHIM, "mixing.py": OLD.replace("class Mixer:", "class NewMixer:")},
        ("y = h * 2",),
        "target",
        kind="renamed",
    ),
    RuleCase(
        "renamed-to-alias",
        TargetRule.RENAMED_TO_ALIAS,
        {"mixer.py": MASKS},
        {"mixer.py": MASK_NOW},
        ("b = a * 2",),
        "target",
        target="demo.mixer.mask_recent",
        kind="renamed",
    ),
    RuleCase(
        "merged-into-alias",
        TargetRule.MERGED_INTO_ALIAS,
        {"mixer.py": MASKS_WITH_FIX},
        {"mixer.py": MASK_MERGED},
        ("b = fix(x)",),
        "target",
        target="demo.mixer.mask_older",
        kind="renamed",
    ),
    RuleCase(
        "renamed-body-overlap",
        TargetRule.RENAMED_BODY_OVERLAP,
        {"mixer.py": OLD},
        {"mixer.py": OLD.replace("def run(", "def forward(")},
        ("y = h * 2",),
        "target",
    ),
    RuleCase(
        "renamed-and-split",
        TargetRule.RENAMED_AND_SPLIT,
        {"mixer.py": CONVERT_OLD},
        {"mixer.py": CONVERT_NEW},
        ('name = name.replace("middle.block", "mid_block")', "out = {}"),
        "target",
        target="demo.mixer.convert",
    ),
    RuleCase(
        "renamed-at-callers",
        TargetRule.RENAMED_AT_CALLERS,
        {"mixer.py": CAPABILITY_OLD},
        {"mixer.py": CAPABILITY_NEW},
        ("if not torch.cuda.is_available():",),
        "target",
        target="demo.mixer.Config._is_cuda_at_least_8_9",
    ),
    RuleCase(
        "class-renamed",
        TargetRule.CLASS_RENAMED,
        {"mixer.py": RENAMED_CLASS_OLD},
        {"encoders.py": RENAMED_CLASS_NEW},
        ("out = self.model(ids)",),
        "target",
        target="demo.mixer.Encoder.run",
    ),
    RuleCase(
        "moved-to-receiver",
        TargetRule.MOVED_TO_RECEIVER,
        {"mixer.py": PROCESSOR_OLD},
        {"mixer.py": PROCESSOR_NEW},
        ("q = attn.to_q(x)",),
        "target",
        target="demo.mixer.Processor.__call__",
    ),
    RuleCase("deleted", TargetRule.DELETED, {"mixer.py": OLD}, {"mixer.py": "X = 1\n"}, ("y = h * 2",), "target", kind="deleted"),
    RuleCase("split-into-helpers", TargetRule.SPLIT_INTO_HELPERS, {"mixer.py": OLD}, {"mixer.py": SPLIT}, SPLIT_STEPS, "target"),
    RuleCase("wrapped-by-decorator", TargetRule.WRAPPED_BY_DECORATOR, {"mixer.py": OLD}, {"mixer.py": WRAPPED}, ("self.set_gain(scale)",), "target"),
    RuleCase(
        "decorators-changed",
        TargetRule.DECORATORS_CHANGED,
        {"mixer.py": OLD},
        {"mixer.py": OLD.replace("    def run(", "    @cached\n    def run(")},
        ("y = h * 2",),
        "target",
        kind="decorators-changed",
    ),
    RuleCase("beside-the-target", TargetRule.BESIDE_THE_TARGET, EULER, EULER_RENAMED, ("return sigmas",), "target", target="demo.mixer.Euler._compute_sigmas"),
    # -- candidates -----------------------------------------------------------------------------------------------
    _classify("deleted-beside-a-similar-sibling", Filter.ADMISSION, "s1", "deleted", Action.REMOVED),
    RuleCase(
        "one-to-one",
        Filter.ONE_TO_ONE,
        {"mixer.py": OLD.replace("        y = h * 2\n        z = h * 3\n", "        a = h * 2\n        a = h * 4\n        y = a\n        z = a\n")},
        {"mixer.py": OLD.replace("        y = h * 2\n        z = h * 3\n", "        a = h * 3\n        y = a\n        z = a\n")},
        ("a = h * 2", "a = h * 4"),
        "s1",
        Action.REMOVED,
    ),
    RuleCase("surviving-copy", Filter.SURVIVING_COPY, {"mixer.py": TWINS}, {"mixer.py": SURVIVOR}, (("x = f(x)", 2),), kind="unchanged"),
    RuleCase("copy-went", Filter.COPY_WENT, {"mixer.py": TWINS}, {"mixer.py": SURVIVOR}, (("x = f(x)", 1),), action=Action.REMOVED),
    RuleCase(
        "contested-copy",
        Filter.CONTESTED_COPY,
        {"mixer.py": NESTED_ELSE_OLD},
        {"mixer.py": NESTED_ELSE_NEW},
        (("else:", 1), ("else:", 2), ("else:", 3)),
        "s0",
        Action.REMOVED,
        reviewed=False,
    ),
    RuleCase(
        "same-depth",
        Filter.SAME_DEPTH,
        {"mixer.py": NESTED_ELSE_OLD},
        {"mixer.py": NESTED_ELSE_NEW},
        (("else:", 1), ("else:", 2), ("else:", 3)),
        "s0",
        Action.REMOVED,
    ),
    RuleCase(
        "occurrence",
        Filter.OCCURRENCE,
        {"mixer.py": TWINS},
        {"mixer.py": TWINS.replace("return x + y", "return y + x")},
        (("x = f(x)", 2),),
        kind="unchanged",
    ),
    RuleCase("hunk-rank", Filter.HUNK_RANK, {"mixer.py": OLD}, {"mixer.py": CLOSE_EDITS}, ("h = self.attn(h)",)),
    RuleCase("helpers-first", Filter.HELPERS_FIRST, {"mixer.py": OLD}, {"mixer.py": SPLIT}, SPLIT_STEPS, kind="moved"),
    RuleCase("edits-in-helpers", Filter.EDITS_IN_HELPERS, {"mixer.py": OLD}, {"mixer.py": SPLIT_AND_EDITED}, ("self.set_gain(scale)",), kind="changed"),
    RuleCase("reached-by-name", Filter.REACHED_BY_NAME, {"mixer.py": OLD}, {"mixer.py": DELEGATED}, ("h = self.attn(h)",), kind="moved"),
    RuleCase(
        "copied-not-moved",
        Filter.COPIED_NOT_MOVED,
        {"mixer.py": ROPE},
        {"mixer.py": ROPE_NOW, "other.py": ROPE_COPY},
        ROPE_STEPS,
        "target",
        Action.VETOED,
        target="demo.mixer.rope",
        kind="deleted",
    ),
    RuleCase(
        "new-place-not-carried",
        Filter.NEW_PLACE_NOT_CARRIED,
        {"mixer.py": FOLDED_OLD},
        {"mixer.py": NEW_CLONE_OF_PREPARE},
        ("total = (x + scale) * 2", "self.set_gain(scale)", "h = self.norm(x)"),
        action=Action.REMOVED,
        target="demo.mixer.Mixer.prepare",
    ),
    RuleCase(
        "out-of-view",
        Filter.OUT_OF_VIEW,
        {"mixer.py": OLD, "other.py": UNRELATED},
        {"mixer.py": RUN_BY_NAME, "other.py": MIXIN},
        SPLIT_STEPS,
        action=Action.REMOVED,
    ),
    RuleCase(
        "real-edit-stays",
        Filter.REAL_EDIT_STAYS,
        {"mixer.py": OLD, "other.py": UNRELATED},
        {"mixer.py": ATTN_EDITED, "other.py": MIXIN},
        ("h = self.attn(h)",),
        action=Action.VETOED,
    ),
    RuleCase(
        "tied-places",
        Filter.TIED_PLACES,
        {"mixer.py": TWO_CARRIERS_OLD},
        {"mixer.py": TWO_CARRIERS_NEW},
        ("total = (x + scale) * 2", "self.set_gain(scale)", "h = self.norm(x)"),
        action=Action.VETOED,
        target="demo.mixer.Mixer.prepare",
        kind="deleted",
    ),
    RuleCase("close-runner-up", Filter.CLOSE_RUNNER_UP, {"mixer.py": OLD}, {"mixer.py": CLOSE_EDITS}, ("h = self.attn(h)",), kind="changed"),
    # -- the step's kind ------------------------------------------------------------------------------------------
    _classify("identical", Rule.FILE_UNCHANGED, "s0", "unchanged"),
    _classify("file-no-longer-parses", Rule.UNREADABLE, "s0", "unreadable"),
    RuleCase(
        "left-with-neighbours", Rule.LEFT_WITH_NEIGHBOURS, {"mixer.py": BRANCHES_OLD}, {"mixer.py": BRANCHES_NEW}, ("else:", "y = x * gain"), kind="moved"
    ),
    _classify("moved-to-another-module", Rule.TARGET_RELOCATED, "s0", "moved"),
    _classify("lines-shift", Rule.SAME_TEXT, "s0", "unchanged"),
    RuleCase(
        "same-tree",
        Rule.SAME_TREE,
        {"mixer.py": OLD},
        {"mixer.py": OLD.replace("(x + scale) * 2", "((x + scale)) * 2")},
        ("total = (x + scale) * 2",),
        kind="unchanged",
    ),
    RuleCase(
        "target-header",
        Rule.TARGET_HEADER,
        {"mixer.py": OLD},
        {"mixer.py": OLD.replace("    def run(self, x, scale):", "    def run(self, x, scale: float = 1.0, *, mode: str = 'fast', **extra):")},
        ("def run(self, x, scale):",),
        kind="changed",
    ),
    _classify("changed-in-place", Rule.CONFIDENT_EDIT, "s0", "changed"),
    _classify("moved-into-a-helper-the-target-calls", Rule.MOVED_TO_REACHED, "s1", "moved"),
    RuleCase("moved-to-reached-through-a-local", Rule.MOVED_TO_REACHED, {"mixer.py": OLD}, {"mixer.py": EAGER}, ("y = h * 2",), kind="moved"),
    RuleCase(
        "moved-with-block",
        Rule.MOVED_WITH_BLOCK,
        {"mixer.py": OLD, "other.py": UNRELATED},
        {"mixer.py": RUN_BY_MIXIN, "other.py": MIXIN},
        SPLIT_STEPS,
        kind="moved",
    ),
    RuleCase(
        "same-action",
        Rule.SAME_ACTION,
        {"mixer.py": TWINS},
        {"mixer.py": TWINS.replace("        x = f(x)\n        y = g(x)", "        x = transform_the_input(x)\n        y = g(x, 1)")},
        (("x = f(x)", 1), ("x = f(x)", 2)),
        kind="changed",
    ),
    _classify("assignment-rewritten", Rule.EDIT, "s1", "changed"),
    RuleCase("same-role", Rule.SAME_ROLE, {"mixer.py": OLD}, {"mixer.py": ROLE_KEPT}, ("self.set_gain(scale)",), kind="changed"),
    RuleCase(
        "sole-assignment",
        Rule.SOLE_ASSIGNMENT,
        {"mixer.py": OLD},
        {"mixer.py": OLD.replace("total = (x + scale) * 2", "total = self.compute_the_total_from(x)")},
        ("total = (x + scale) * 2",),
        kind="changed",
    ),
    RuleCase(
        "edited-in-reached",
        Rule.EDITED_IN_REACHED,
        {"mixer.py": LAYERED_OLD},
        {"mixer.py": LAYERED_NEW.replace("out = self.keys * 2", "out = self.keys * 2 + self.bias")},
        ("out = self.keys[idx] * 2",),
        target="demo.mixer.Cache.update",
        kind="changed",
    ),
    RuleCase(
        "per-object-edit",
        Rule.PER_OBJECT_EDIT,
        {"mixer.py": REPEAT_OLD},
        {"mixer.py": REPEAT_NEW},
        ("self.keys[idx] = self.keys[idx].repeat(n)", "self.values[idx] = self.values[idx].repeat(n)"),
        "s1",
        target="demo.mixer.Cache.repeat",
        kind="changed",
    ),
    RuleCase(
        "edits-in-wrappers",
        Filter.EDITS_IN_WRAPPERS,
        {"mixer.py": OLD},
        {"mixer.py": WRAPPED_EDIT},
        ("total = (x + scale) * 2", "self.set_gain(scale)"),
        "s1",
        kind="changed",
    ),
    RuleCase(
        "action-kept-in-reached",
        Rule.ACTION_KEPT_IN_REACHED,
        {"mixer.py": HANDED_OLD},
        {"mixer.py": HANDED_NEW},
        ("out = self.project(acc, scale, dim=1)",),
        kind="changed",
    ),
    RuleCase(
        "owners-classes-inherited",
        Filter.OWNERS_CLASSES,
        {"mixer.py": PROCESSED_OLD},
        {"mixer.py": PROCESSED_NEW},
        ("out = self.keys[idx] * 2",),
        target="demo.mixer.QuantCache.update",
        kind="changed",
    ),
    RuleCase(
        "owners-classes",
        Filter.OWNERS_CLASSES,
        {"mixer.py": LAYERED_OLD},
        {"mixer.py": LAYERS_OF_OWNER},
        ("out = self.keys[idx] * 2",),
        target="demo.mixer.Cache.update",
        kind="changed",
    ),
    RuleCase(
        "decoys-only",
        Rule.DECOYS_ONLY,
        {"mixer.py": OLD},
        {"mixer.py": BLOCK_COPIED_OUT + OLD.replace("class Mixer:", "class CopyMixer:")},
        ("h = self.attn(h)",),
        kind="deleted",
    ),
    _classify("decoy-target-deleted", Rule.TARGET_GONE, "s0", "deleted"),
    RuleCase(
        "nothing-corresponds", Rule.NOTHING_CORRESPONDS, {"mixer.py": OLD}, {"mixer.py": OLD.replace("        y = h * 2\n", "")}, ("y = h * 2",), kind="deleted"
    ),
]

HELD_BACK: list[RuleCase] = [
    # The other choice of the alias is still defined: the alias picked one of two, nothing was merged.
    RuleCase(
        "merged-into-alias-not-while-a-choice-stays",
        TargetRule.MERGED_INTO_ALIAS,
        {"mixer.py": MASKS_WITH_FIX},
        {"mixer.py": MASK_MERGED + MASKS_WITH_FIX.split("def mask_older")[0]},
        ("b = fix(x)",),
        "target",
        target="demo.mixer.mask_older",
    ),
    # The layer's statement does more than the per-index one did (a keyword added): not the same action.
    RuleCase(
        "per-object-edit-not-another-call",
        Rule.PER_OBJECT_EDIT,
        {"mixer.py": REPEAT_OLD},
        {"mixer.py": REPEAT_ELSEWHERE},
        ("self.keys[idx] = self.keys[idx].repeat(n)", "self.values[idx] = self.values[idx].repeat(n)"),
        "s1",
        target="demo.mixer.Cache.repeat",
        kind="deleted",
    ),
    RuleCase(
        "edits-in-wrappers-not-without-the-decorator",
        Filter.EDITS_IN_WRAPPERS,
        {"mixer.py": OLD},
        {"mixer.py": NOT_WRAPPED},
        ("total = (x + scale) * 2", "self.set_gain(scale)"),
        "s1",
        kind="deleted",
    ),
    RuleCase(
        "action-kept-in-reached-not-a-block-header",
        Rule.ACTION_KEPT_IN_REACHED,
        {"mixer.py": HANDED_OLD},
        {"mixer.py": HANDED_LOOP},
        ("for part in x.parts:",),
        kind="deleted",
    ),
    RuleCase(
        "action-kept-in-reached-not-held-at-the-review",
        Rule.ACTION_KEPT_IN_REACHED,
        {"mixer.py": HANDED_HELD_OLD},
        {"mixer.py": HANDED_NEW},
        ("out = self.project(acc, scale, dim=1)",),
        kind="deleted",
    ),
]
"""Cases where a rule must NOT do its action (the near misses each rule's invariant excludes)."""

# The container rules of set 16's misses live beside (this table is long enough).
from rule_cases_classes import CASES as _CLASS_CASES, HELD_BACK as _CLASS_HELD_BACK  # noqa: E402

CASES.extend(_CLASS_CASES)
HELD_BACK.extend(_CLASS_HELD_BACK)

# The rule of set 17's misses (a block rewritten on its way into a helper) lives beside as well.
from rule_cases_helpers import CASES as _HELPER_CASES, HELD_BACK as _HELPER_HELD_BACK  # noqa: E402

CASES.extend(_HELPER_CASES)
HELD_BACK.extend(_HELPER_HELD_BACK)

# The rules for rewrites that keep a statement's role (a rename through the function, the only call left) live beside.
from rule_cases_rewrites import CASES as _REWRITE_CASES, HELD_BACK as _REWRITE_HELD_BACK  # noqa: E402

CASES.extend(_REWRITE_CASES)
HELD_BACK.extend(_REWRITE_HELD_BACK)

# The rules for work handed to objects (a module an attribute holds, a per-layer class a helper went to) live beside.
from rule_cases_objects import CASES as _OBJECT_CASES, HELD_BACK as _OBJECT_HELD_BACK  # noqa: E402

CASES.extend(_OBJECT_CASES)
HELD_BACK.extend(_OBJECT_HELD_BACK)

from rule_cases_held import CASES as _HELD_CASES, HELD_BACK as _HELD_HELD_BACK  # noqa: E402

CASES.extend(_HELD_CASES)
HELD_BACK.extend(_HELD_HELD_BACK)

from rule_cases_reads import CASES as _READ_CASES, HELD_BACK as _READ_HELD_BACK  # noqa: E402

CASES.extend(_READ_CASES)
HELD_BACK.extend(_READ_HELD_BACK)

from rule_cases_tests import CASES as _TEST_CASES, HELD_BACK as _TEST_HELD_BACK  # noqa: E402

CASES.extend(_TEST_CASES)
HELD_BACK.extend(_TEST_HELD_BACK)

from rule_cases_callers import CASES as _CALLER_CASES, HELD_BACK as _CALLER_HELD_BACK  # noqa: E402

CASES.extend(_CALLER_CASES)
HELD_BACK.extend(_CALLER_HELD_BACK)

from rule_cases_bodies import CASES as _BODY_CASES, HELD_BACK as _BODY_HELD_BACK  # noqa: E402

CASES.extend(_BODY_CASES)
HELD_BACK.extend(_BODY_HELD_BACK)

from rule_cases_blocks import CASES as _BLOCK_CASES, HELD_BACK as _BLOCK_HELD_BACK  # noqa: E402

CASES.extend(_BLOCK_CASES)
HELD_BACK.extend(_BLOCK_HELD_BACK)

from rule_cases_namesakes import CASES as _NAMESAKE_CASES, HELD_BACK as _NAMESAKE_HELD_BACK  # noqa: E402

CASES.extend(_NAMESAKE_CASES)
HELD_BACK.extend(_NAMESAKE_HELD_BACK)

from rule_cases_close_bodies import CASES as _CLOSE_BODY_CASES, HELD_BACK as _CLOSE_BODY_HELD_BACK  # noqa: E402

CASES.extend(_CLOSE_BODY_CASES)
HELD_BACK.extend(_CLOSE_BODY_HELD_BACK)

from rule_cases_extracted import CASES as _EXTRACTED_CASES, HELD_BACK as _EXTRACTED_HELD_BACK  # noqa: E402

CASES.extend(_EXTRACTED_CASES)
HELD_BACK.extend(_EXTRACTED_HELD_BACK)

from rule_cases_rewritten_homes import CASES as _REWRITTEN_HOME_CASES, HELD_BACK as _REWRITTEN_HOME_HELD_BACK  # noqa: E402

CASES.extend(_REWRITTEN_HOME_CASES)
HELD_BACK.extend(_REWRITTEN_HOME_HELD_BACK)

from rule_cases_headers import CASES as _HEADER_CASES, HELD_BACK as _HEADER_HELD_BACK  # noqa: E402

CASES.extend(_HEADER_CASES)
HELD_BACK.extend(_HEADER_HELD_BACK)

from rule_cases_copies import CASES as _COPY_CASES, HELD_BACK as _COPY_HELD_BACK  # noqa: E402

CASES.extend(_COPY_CASES)
HELD_BACK.extend(_COPY_HELD_BACK)

from rule_cases_keyed import CASES as _KEYED_CASES, HELD_BACK as _KEYED_HELD_BACK  # noqa: E402

CASES.extend(_KEYED_CASES)
HELD_BACK.extend(_KEYED_HELD_BACK)
