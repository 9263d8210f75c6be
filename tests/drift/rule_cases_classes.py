"""Rule cases for the rules of issue 41's set 16 misses: a target whose module became a package, whose class was
copied into another module or folded into its base, whose lost block went on to a helper's own helper, and a copy
without neighbours next to an edit with them; :mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase
from test_match_reviewed import RENAMED_CLASS_NEW, RENAMED_CLASS_OLD
from test_match_synthetic import OLD

from infralens.drift.match.rules import Action, Filter, Rule, TargetRule

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
CLONED_FAST = FAST_OLD.replace("Base", "CloneBase").replace("Fast", "CloneFast").replace("KINDS", "CLONE_KINDS")
# Another model's module keeps a clone of the variant class, with its method verbatim; the reviewed module dropped it.
MOVED_TO_MIXIN = {
    "mixer.py": "class Base:\n    def load(self, x):\n        return x\n\n\nclass Fast(Base):\n    fast = True\n",
    "mixins.py": "class RunMixin:\n" + FAST_OLD.partition("class Fast(Base):\n")[2].partition("\n\n\nKINDS")[0] + "\n",
}
# The class stays (without the method); the method, verbatim, is on a new mixin in another module the old one never names.
ENCODER_OLD = """
class Encoder:
    def run(self, x):
        a = self.prepare(x)
        b = self.project(a)
        c = self.mix(b)
        return self.out(c)
"""
RENAMED_BESIDE_A_CLONE = {
    "mixer.py": ENCODER_OLD.replace("class Encoder:", "class EncoderV2:").replace("c = self.mix(b)", "c = self.mix(b, fast=True)"),
    "legacy_vae.py": ENCODER_OLD,
}
# The class was renamed in its module; a module new since the review holds a verbatim clone under the old name.

HANDED_ON_OLD = """
class Mixer:
    def run(self, x):
        a = self.load(x)
        b = a.float()
        c = b * self.scale
        d = c.clamp(0, 1)
        return self.out(d)
"""
HANDED_ON_NEW = {
    "mixer.py": "from .tools import prepare\n\n\nclass Mixer:\n    def run(self, x):\n        a = self.load(x)\n"
    "        d = prepare(a, self.scale)\n        return self.out(d)\n",
    "tools.py": "def _convert(a, scale):\n    b = a.float()\n    return b * scale\n\n\n"
    "def prepare(a, scale):\n    c = _convert(a, scale)\n    d = c.clamp(0, 1)\n    return d\n",
}
# run() handed its block to prepare(), which hands part of it on to _convert() beside it: one statement each.
HANDED_ON_AWAY = {**HANDED_ON_NEW, "tools.py": "from .convert import _convert\n" + HANDED_ON_NEW["tools.py"].split("\n\n\n")[1]}
HANDED_ON_AWAY["convert.py"] = HANDED_ON_NEW["tools.py"].split("\n\n\n")[0] + "\n"
# The same, but _convert() lives in another module: a helper's own module only is followed.
FORWARDED_NEW = {
    "mixer.py": "from .tools import prepare\n\n\nclass Mixer:\n    def run(self, x):\n        a = self.load(x)\n"
    "        d = self._prepare(a)\n        return self.out(d)\n\n"
    '    def _prepare(self, a):\n        """Hand the work to prepare()."""\n        return prepare(a, self.scale)\n',
    "tools.py": "def prepare(a, scale):\n    b = a.float()\n    c = b * scale\n    d = c.clamp(0, 1)\n    return d\n",
}
# run() calls its own _prepare(), which only forwards to prepare() in another module: prepare() holds the block.
NOT_ONLY_FORWARDED = {
    **FORWARDED_NEW,
    "mixer.py": FORWARDED_NEW["mixer.py"].replace("        return prepare(a, self.scale)\n", "        a = a.detach()\n        return prepare(a, self.scale)\n"),
}
# The same, but _prepare() does work of its own before the call: a helper of another module is not followed through it.
STARRED_NEW = {
    "mixer.py": "from .tools import double\n" + OLD.replace("        y = h * 2\n", "        y = double(h)\n"),
    "tools.py": "from .impl import *\n",
    "impl.py": "def double(h):\n    y = h * 2\n    return y\n\n\ndef other_double(h):\n    y = h * 2\n    return y\n",
}
# run() calls double(), which tools.py re-exports with a star import from impl.py.
INLINED_OLD = """
def _convert_all(model, scale):
    for name, child in model.children():
        a = child.float()
        b = a * scale
        c = b.clamp(0, 1)
        _convert_all(child, scale)
    return model


def convert(model, scale):
    model = _convert_all(model, scale)
    return model
"""
INLINED_NEW = """
def convert(model, scale):
    for name, child in model.named_modules():
        a = child.float()
        b = a * scale
        c = b.clamp(0, 1)
    return model
"""
# The recursive helper is gone; convert(), its only caller, walks the modules itself with the helper's statements.
TWO_CALLERS_OLD = INLINED_OLD + "\n\ndef convert_twice(model, scale):\n    return _convert_all(_convert_all(model, scale), scale)\n"
# The same, but the helper had a second caller at the review, still there, that took nothing in: convert() took it.
BOTH_TOOK_NEW = INLINED_NEW + "\n\ndef convert_twice(model, scale):" + INLINED_NEW.split("scale):", 1)[1]
# Both callers took the helper's statements in: which one it lives on in is not known.
RESET_OLD = """
class Layer:
    def __init__(self, n):
        self.n = n
        self._reset()

    def _reset(self):
        grid = make_grid(self.n)
        grid = grid / grid.max()
        grid = grid.repeat(2)
        with no_grad():
            self.bias = grid.flatten()


class Model:
    def _init_weights(self, module):
        if isinstance(module, Layer):
            module._reset()
"""
RESET_NEW = """
class Layer:
    def __init__(self, n):
        self.n = n


class Model:
    def _init_weights(self, module):
        if isinstance(module, Layer):
            grid = make_grid(module.n)
            grid = grid / grid.max()
            grid = grid.repeat(2)
            with no_grad():
                module.bias = grid.flatten()
"""
# Layer._reset is gone: the model's _init_weights, which called it on each layer, took its statements in (self read as
# module); the layer's own __init__, which called it on self, took nothing.
INLINED_METHOD_OLD = """
class Attn:
    def forward(self, x):
        q, k = self._project(x)
        return q @ k

    def _project(self, x):
        qk = self.qk(x)
        q, k = qk.chunk(2, dim=-1)
        q = self.rope(q)
        k = self.rope(k)
        return q, k


class FastAttn(Attn):
    def forward(self, x):
        q, k = self._project(x)
        return fast(q, k)
"""
INLINED_METHOD_NEW = """
class Attn:
    def forward(self, x):
        qk = self.qk(x)
        q, k = qk.chunk(2, dim=-1)
        q = self.rope(q)
        k = self.rope(k)
        return q @ k
"""
# The helper method is gone, inlined into Attn.forward; its other caller's class went with it.
RATIO_OLD = """
class Mixer:
    def run(self, x):
        ratio = getattr(self.config, "ratio", 1)
        h = x * ratio
        return h
"""
RATIO_NEW = """
class Mixer:
    @property
    def _ratio(self):
        ratio = getattr(self.config, "ratio", 1)
        return ratio

    def run(self, x):
        ratio = self._ratio
        h = x * ratio
        return h
"""
# The lookup went into a property of the class that run() now reads.
RATIO_UNREAD = RATIO_NEW.replace("        ratio = self._ratio\n", "        ratio = self.ratio\n")
# The same property, but run() reads another attribute: it does not lead there.
SCALED_OLD = """
def _scale(x, s):
    y = x.float()
    y = y * s
    y = y.clamp(0, 1)
    return y


def run(x, s):
    out = _scale(x, s)
    log(out)
"""
SCALED_NEW = """
def run(x, s):
    y = x.float()
    y = y * s
    y = y.clamp(0, 1)
    log(y)
    return y.half()
"""
# _scale is gone, inlined into run(), which returned nothing at the review: the return it has now may be the helper's.
BY_NAME_OLD = """
class Loader:
    def load(self, model, state):
        keys = list(state.keys())
        rank = state["down"].shape[0]
        model.inject(rank)
        model.set_state(state)
        return model
"""
BY_NAME_NEW = {
    "mixer.py": "class Loader:\n    def load(self, model, state):\n        model.load_adapter(state)\n        return model\n",
    "adapters.py": "class AdapterMixin:\n    def load_adapter(self, state):\n        keys = list(state.keys())\n"
    '        rank = state["down"].shape[1]\n        self.inject(rank)\n        self.set_state(state)\n',
}
# load() hands its work to model.load_adapter(); only AdapterMixin defines that name: the rank line was edited there.
BY_NAME_TWICE = {**BY_NAME_NEW, "other.py": BY_NAME_NEW["adapters.py"].replace("AdapterMixin", "OtherMixin")}
# The same, but two classes define load_adapter: which one runs is not known.
GATED_OLD = """
class Mixer:
    def run(self, x, scale):
        h = self.norm(x)
        g = h * scale
        g = g.clamp(0, 1)
        y = self.proj(g)
        return y
"""
GATED_NEW = """
class Mixer:
    def run(self, x, scale):
        h = self.norm(x)
        y = self.proj(self._gate(x, scale))
        self._log(h, scale)
        return y

    def _gate(self, x, scale):
        h = self.norm(x)
        g = h * scale * 2
        g = g.clamp(0, 1)
        return g

    def _log(self, h, scale):
        g = h * scale
        print(g)
"""
# The gate went to _gate(), edited, with its neighbour; _log() holds the old text alone.
LIFTED_OLD = """
class Mixer:
    def run(self, x):
        def make(block):
            def inner(*inputs):
                return block(*inputs)
            return inner
        y = make(self.block)(x)
        return y
"""
LIFTED_NEW = {
    "mixer.py": "from .tools import checkpoint\n\n\nclass Mixer:\n    def run(self, x):\n        y = checkpoint(self.block, x)\n        return y\n",
    "tools.py": "def make(block):\n    def inner(*inputs):\n        return block(*inputs)\n    return inner\n\n\n"
    "def checkpoint(block, x):\n    return make(block)(x)\n",
}
# The nested factory was lifted out beside the checkpoint helper run() now calls: its def line is make()'s.
PER_UNIT = """
class Unit:
    def run(self, x, scale):
        h = self.norm(x * scale)
        h = self.attn(h)
        return h


class Other:
    def run(self, x, scale):
        return x


class Mixer:
    def __init__(self, fast):
        unit_class = Unit if fast else Other
        self.unit = unit_class()
"""
# Mixer.run is gone; Mixer now picks the class it builds, and Unit.run (new) keeps one of its statements.
OTHER_ONLY = PER_UNIT.replace("unit_class = Unit if fast else Other", "unit_class = Other")
# The same, but Mixer never names Unit: Unit.run is a namesake with one shared statement, nothing more.
STORE_OLD = """
class Store:
    def __init__(self, config):
        self.size = config.size
        self.depth = config.depth
        self.scale = config.scale
        self.items = []
"""
STORE_BUILDS = """
class Slot:
    def __init__(self, size, depth, scale):
        self.size = size
        self.depth = depth
        self.scale = scale
        self.items = []


class FastSlot(Slot):
    def __init__(self, size, depth, scale):
        super().__init__(size, depth, scale)
        self.fast = True


class Store:
    def __init__(self, config):
        self.slots = [FastSlot(config.size, config.depth, config.scale) for _ in range(config.layers)]
"""
# Store now builds FastSlot, whose __init__ hands the settings to Slot.__init__ (super): the assignments went there.
STORE_NEVER_REACHES = STORE_BUILDS.replace("super().__init__(size, depth, scale)", "self.size = size")
# FastSlot.__init__ no longer calls its base's: nothing Store runs holds the rewritten assignments.

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
    RuleCase(
        "class-copied-not-renamed-method",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": FAST_OLD},
        {"mixer.py": FOLDED, "clone.py": CLONED_FAST},
        ("a = self.prepare(x)", "c = self.fast_mix(b)"),
        "target",
        Action.VETOED,
        target="demo.mixer.Fast.run",
        kind="moved",
    ),
    RuleCase(
        "class-copied-not-renamed-same-name-elsewhere",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": ENCODER_OLD},
        RENAMED_BESIDE_A_CLONE,
        ("a = self.prepare(x)", "c = self.mix(b)"),
        "target",
        Action.VETOED,
        target="demo.mixer.Encoder.run",
        kind="moved",
    ),
    RuleCase("moved-to-built-class", TargetRule.MOVED_TO_BUILT_CLASS, {"mixer.py": OLD}, {"mixer.py": PER_UNIT}, ("h = self.attn(h)",), "target", kind="moved"),
    RuleCase(
        "edited-in-reached-built-class",
        Rule.EDITED_IN_REACHED,
        {"mixer.py": STORE_OLD},
        {"mixer.py": STORE_BUILDS},
        ("self.depth = config.depth",),
        target="demo.mixer.Store.__init__",
        kind="changed",
    ),
    RuleCase("helpers-first-def-line", Filter.HELPERS_FIRST, {"mixer.py": LIFTED_OLD}, LIFTED_NEW, ("def make(block):",), kind="moved"),
    RuleCase("helpers-of-helpers", TargetRule.HELPERS_OF_HELPERS, {"mixer.py": HANDED_ON_OLD}, HANDED_ON_NEW, ("b = a.float()",), "target"),
    RuleCase("helpers-of-helpers-through-a-forwarder", TargetRule.HELPERS_OF_HELPERS, {"mixer.py": HANDED_ON_OLD}, FORWARDED_NEW, ("b = a.float()",), "target"),
    RuleCase("moved-to-reached-through-a-star-import", Rule.MOVED_TO_REACHED, {"mixer.py": OLD}, STARRED_NEW, ("y = h * 2",), kind="moved"),
    RuleCase(
        "inlined-into-caller",
        TargetRule.INLINED_INTO_CALLER,
        {"mixer.py": INLINED_OLD},
        {"mixer.py": INLINED_NEW},
        ("b = a * scale",),
        target="demo.mixer._convert_all",
        kind="moved",
    ),
    RuleCase(
        "inlined-into-caller-the-one-of-two-that-took-it-in",
        TargetRule.INLINED_INTO_CALLER,
        {"mixer.py": TWO_CALLERS_OLD},
        {"mixer.py": INLINED_NEW + "\n\ndef convert_twice(model, scale):\n    return convert(convert(model, scale), scale)\n"},
        ("b = a * scale",),
        target="demo.mixer._convert_all",
        kind="moved",
    ),
    RuleCase(
        "inlined-into-caller-calling-it-on-another-object",
        TargetRule.INLINED_INTO_CALLER,
        {"mixer.py": RESET_OLD},
        {"mixer.py": RESET_NEW},
        ("grid = grid.repeat(2)",),
        "target",
        target="demo.mixer.Layer._reset",
        kind="moved",
    ),
    RuleCase(
        "moved-to-reached-a-property-it-reads",
        Rule.MOVED_TO_REACHED,
        {"mixer.py": RATIO_OLD},
        {"mixer.py": RATIO_NEW},
        ('ratio = getattr(self.config, "ratio", 1)',),
        kind="moved",
    ),
    RuleCase(
        "callers-own-lines-the-return",
        Filter.CALLERS_OWN_LINES,
        {"mixer.py": INLINED_METHOD_OLD},
        {"mixer.py": INLINED_METHOD_NEW},
        ("return q, k",),
        action=Action.REMOVED,
        target="demo.mixer.Attn._project",
        kind="deleted",
    ),
    RuleCase(
        "callers-own-lines-the-def-line",
        Filter.CALLERS_OWN_LINES,
        {"mixer.py": INLINED_METHOD_OLD},
        {"mixer.py": INLINED_METHOD_NEW},
        ("def _project(self, x):",),
        action=Action.REMOVED,
        target="demo.mixer.Attn._project",
        kind="deleted",
    ),
    RuleCase(
        "inlined-into-caller-a-method-its-other-caller-gone",
        TargetRule.INLINED_INTO_CALLER,
        {"mixer.py": INLINED_METHOD_OLD},
        {"mixer.py": INLINED_METHOD_NEW},
        ("q = self.rope(q)",),
        "target",
        target="demo.mixer.Attn._project",
        kind="moved",
    ),
    RuleCase(
        "reached-by-name-edit-in-the-only-class-defining-it",
        Filter.REACHED_BY_NAME,
        {"mixer.py": BY_NAME_OLD},
        BY_NAME_NEW,
        ('rank = state["down"].shape[0]',),
        target="demo.mixer.Loader.load",
        kind="changed",
    ),
    RuleCase(
        "edit-with-neighbours",
        Filter.EDIT_WITH_NEIGHBOURS,
        {"mixer.py": GATED_OLD},
        {"mixer.py": GATED_NEW},
        ("g = h * scale",),
        action=Action.VETOED,
        kind="changed",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "moved-to-reached-not-a-property-it-does-not-read",
        Rule.MOVED_TO_REACHED,
        {"mixer.py": RATIO_OLD},
        {"mixer.py": RATIO_UNREAD},
        ('ratio = getattr(self.config, "ratio", 1)',),
    ),
    RuleCase(
        "callers-own-lines-not-when-the-caller-returned-nothing",
        Filter.CALLERS_OWN_LINES,
        {"mixer.py": SCALED_OLD},
        {"mixer.py": SCALED_NEW},
        ("y = y * s", "return y"),
        "s1",
        action=Action.REMOVED,
        target="demo.mixer._scale",
        kind="changed",
    ),
    RuleCase(
        "edited-in-reached-not-past-a-base-never-called",
        Rule.EDITED_IN_REACHED,
        {"mixer.py": STORE_OLD},
        {"mixer.py": STORE_NEVER_REACHES},
        ("self.depth = config.depth",),
        target="demo.mixer.Store.__init__",
    ),
    RuleCase(
        "moved-to-built-class-not-when-never-named",
        TargetRule.MOVED_TO_BUILT_CLASS,
        {"mixer.py": OLD},
        {"mixer.py": OTHER_ONLY},
        ("h = self.attn(h)",),
        "target",
        kind="deleted",
    ),
    RuleCase(
        "helpers-of-helpers-not-in-another-module", TargetRule.HELPERS_OF_HELPERS, {"mixer.py": HANDED_ON_OLD}, HANDED_ON_AWAY, ("b = a.float()",), "target"
    ),
    RuleCase(
        "helpers-of-helpers-not-through-a-helper-with-work-of-its-own",
        TargetRule.HELPERS_OF_HELPERS,
        {"mixer.py": HANDED_ON_OLD},
        NOT_ONLY_FORWARDED,
        ("b = a.float()",),
        "target",
    ),
    RuleCase(
        "inlined-into-caller-not-when-two-callers-took-it-in",
        TargetRule.INLINED_INTO_CALLER,
        {"mixer.py": TWO_CALLERS_OLD},
        {"mixer.py": BOTH_TOOK_NEW},
        ("b = a * scale",),
        "target",
        target="demo.mixer._convert_all",
    ),
    RuleCase(
        "reached-by-name-not-when-two-classes-define-it",
        Filter.REACHED_BY_NAME,
        {"mixer.py": BY_NAME_OLD},
        BY_NAME_TWICE,
        ('rank = state["down"].shape[0]',),
        target="demo.mixer.Loader.load",
        kind="deleted",
    ),
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
    # The method's class is still in its module: a method may leave it for a mixin elsewhere, so nothing is vetoed.
    RuleCase(
        "class-copied-not-renamed-not-while-its-class-stays",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": FAST_OLD},
        MOVED_TO_MIXIN,
        ("a = self.prepare(x)", "c = self.fast_mix(b)"),
        "target",
        Action.VETOED,
        target="demo.mixer.Fast.run",
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
