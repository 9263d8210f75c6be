"""Rule cases for a small gone function rewritten under a new name in its file, each statement edited on the way (set
30's ``masking_utils._vmap_for_bhqkv`` → ``_vmap_expansion_sdpa``): ``renamed-close-body``; and for a class copied into
a module whose last name is a plain word of the old module (set 39: ``modular_pipelines.flux.inputs`` beside
``qwenimage/inputs.py``, which says ``inputs`` everywhere and imports nothing of it): ``class-copied-not-renamed``; and
for a class renamed behind an alias and made a dataclass at once (set 39: ``PretrainedConfig = PreTrainedConfig``, whose
``__init__`` became ``__post_init__``): ``class-kept-as-alias``; and for a module function folded into a method of a class
new in its file (set 42: ``smolvlm_sample_indices_fn`` → ``SmolVLMVideoProcessor.sample_frames``):
``folded-into-method``. :mod:`rule_cases` adds them to its tables. (Set 31: ``_check_and_enable_sdpa`` and
``_check_and_enable_flex_attn`` gone at once, the new ``_flex_attn_can_dispatch`` close to both: the flex one's.)"""

from __future__ import annotations

import textwrap

from rule_cases import RuleCase
from rule_cases_bodies import BOILERPLATE_NEW, SIBLINGS_OLD
from rule_cases_classes import ENCODER_USER
from test_match_reviewed import RENAMED_CLASS_NEW, RENAMED_CLASS_OLD

from infralens.drift.match.rules import Action, Filter, TargetRule

STYLES_BODY = """
    resolved = {}
    for path, style in plan.items():
        if style == "colwise" or isinstance(style, PackedColwise):
            resolved[path] = NEURON_COLWISE
        elif style == "rowwise" or isinstance(style, PackedRowwise):
            resolved[path] = NEURON_ROWWISE
        else:
            raise ValueError(f"unsupported style {style} for {path}")
    return resolved
"""
STYLES_OLD = {
    "neuron.py": f"""
def apply(module, plan):
    return parallelize(module, prepare(plan))


def prepare(plan):
    return neuron_styles(plan)


def neuron_styles(plan):{STYLES_BODY}""",
    "parallel.py": """
def shard(module, plan):
    return module
""",
}
MOVED_STYLES = "\n    plan = dict(plan)" + STYLES_BODY.replace("NEURON_", "NO_PARTITION_").replace("    return", "    log(resolved)\n    return")
STYLES_NEW = {
    "neuron.py": """
from .parallel import hooks_only_styles


def apply(module, plan):
    return parallelize(module, hooks_only_styles(plan))
""",
    "parallel.py": f"""
def shard(module, plan):
    return module


def hooks_only_styles(plan):{MOVED_STYLES}""",
}
STYLES_TWICE_NEW = {
    **STYLES_NEW,
    "neuron.py": "from .other import plain_styles\n" + STYLES_NEW["neuron.py"],
    "other.py": f"""
def plain_styles(plan):{MOVED_STYLES}""",
}
# neuron_styles left neuron.py for parallel.py as hooks_only_styles, two of its statements edited and two new ones
# around them; its caller prepare() is gone, and apply() calls the new function: and once more into a
# second new file that neuron.py imports too (a copy as good as the move: nothing tells which one it is).
ALIKE_NEW = {
    **STYLES_NEW,
    "parallel.py": STYLES_NEW["parallel.py"]
    .replace("resolved", "resolved_styles")
    .replace("plan.items()", "sorted(plan.items())")
    .replace("unsupported style", "unknown style"),
}
# Every statement has a close one in hooks_only_styles, but two of eight are there word for word: code that looks alike.
THERE_TOO_OLD = {**STYLES_OLD, "parallel.py": STYLES_NEW["parallel.py"]}
# hooks_only_styles was in parallel.py at the review: a function that was there, not the target moved and renamed.
ROUTER_OLD = {
    "model.py": f"""
class Router:
    def pick(self, plan):{textwrap.indent(STYLES_BODY, "    ")}

class MoE:
    def forward(self, plan):
        return self.router.pick(plan)
"""
}
ROUTER_NEW = {
    "model.py": f"""
class MoE:
    def forward(self, plan):
        return self.route(plan)

    def route(self, plan):{textwrap.indent(MOVED_STYLES, "    ")}
""",
}
ROUTER_NEW["modular.py"] = ROUTER_NEW["model.py"]
# Router.pick is gone; MoE.route, new in the same file, holds its statements, and so does a modular.py source that
# repeats the model file: of the two as close, the one in the target's own file.
NEW_CLASS_OLD = {"model.py": ROUTER_OLD["model.py"].replace("class MoE:\n    def forward(self, plan):\n        return self.router.pick(plan)\n", "")}
NEW_CLASS_NEW = {"model.py": ROUTER_NEW["model.py"].replace("class MoE:", "class Experts:")}
# Router.pick is gone and Experts, a class new in its file, has a route() that is mostly Router.pick's statements: the
# method moved there (a new class's method that is mostly other work is as often a copy of part of it).
BACKENDS_OLD = """
class Model:
    def check_sdpa(cls, config):
        if not cls.supports_sdpa:
            raise ValueError("no sdpa support in this model")
        if not sdpa_available():
            raise ImportError("install torch for sdpa")
        config.impl = "sdpa"
        return config

    def check_flex(cls, config):
        if not cls.supports_flex:
            raise ValueError("no flex support in this model")
        if not flex_available():
            raise ImportError("install torch for flex")
        config.impl = "flex"
        return config
"""
ONE_BACKEND_NEW = """
class Model:
    def flex_ok(self):
        if not self.supports_flex:
            raise ValueError("no flex support in this model")
        if not flex_available():
            raise ImportError("install torch for flex")
        return True
"""
# check_sdpa and check_flex are both gone; flex_ok holds a close statement for most of check_sdpa's, but check_flex's
# own statements are in it word for word: a rename is one to one, and flex_ok is check_flex's.
OLD_BODY = """
    spans = [(None, 0), (0, None)]
    if full:
        spans.extend([(1, None), (None, 1)])
    for span in spans:
        fn = wrap(fn, in_dims=span, out_dims=0)
    report_shapes(fn, width, label="mask")
    return fn
"""
NEW_BODY = """
    spans = [(None, 0), (0, None), (1, None), (None, 1)]
    for span in spans:
        fn = wrap(fn, in_dims=span, out_dims=1)
    report_shapes(fn, width, label="expanded mask")
    return fn
"""
UNRELATED = """
    total = 0
    for item in items:
        total += item.size
    return total
"""
GONE_OLD = f"""
def size_of(items):{UNRELATED}

def window_mask(fn, width, full=True):{OLD_BODY}"""
RENAMED_NEW = f"""
def size_of(items):{UNRELATED}

def _expanded_mask(fn, width):{NEW_BODY}"""
# window_mask is gone; _expanded_mask, new, holds only two of its statements word for word (too few for
# renamed-holding-body, and a Jaccard overlap far below renamed-body-overlap's), but a close one for most.
TWO_NEW = (
    RENAMED_NEW
    + f"""

def _expanded_mask_flat(fn, width):{NEW_BODY}"""
)
# Two new functions as close: a body copied into two tells nothing.
THERE_AT_REVIEW_OLD = (
    GONE_OLD
    + f"""

def _expanded_mask(fn, width):{NEW_BODY}"""
)
# _expanded_mask was there at the review: the target deleted beside a function that already existed.
METHOD_OLD = f"""
class Masks:
    def size_of(self, items):{textwrap.indent(UNRELATED, "    ")}
    def window_mask(self, fn, width, full=True):{textwrap.indent(OLD_BODY, "    ")}"""
OTHER_CLASS_NEW = f"""
class Masks:
    def size_of(self, items):{textwrap.indent(UNRELATED, "    ")}

class FlatMasks:
    def _expanded_mask(self, fn, width):{textwrap.indent(NEW_BODY, "    ")}"""
# The close body is a method of a new class: as often a clone made there as the method renamed.
UNLIKE_NEW = f"""
def size_of(items):{UNRELATED}

def _expanded_mask(fn, width):
    return build(fn, width, dims=4)
"""
# A new function that resembles too little of the reviewed body.

FOLDED_NEW = f"""
def size_of(items):{UNRELATED}

class MaskBuilder:
    def build(self, fn, width):{textwrap.indent(NEW_BODY, "    ")}"""
# window_mask is gone; MaskBuilder, new, has a method close to most of its statements: the function folded into it.
FOLDED_TWICE_NEW = (
    FOLDED_NEW
    + f"""

class FlatMaskBuilder:
    def build(self, fn, width):{textwrap.indent(NEW_BODY, "    ")}"""
)
# Two new classes with the same close method: a body copied into two tells nothing.
FOLDED_AND_RENAMED_NEW = (
    FOLDED_NEW
    + f"""

def _expanded_mask(fn, width):{NEW_BODY}"""
)
# A new module-level function is as close as the method: the function renamed where it was (renamed-close-body's case).

WORD_USER_NEW = "def encode(config, ids):\n    encoders = [build_model(config)]\n    return encoders[0](ids)\n"
# The old module says "encoders" as a plain word, and imports nothing from the module of that name: the look-alike
# class there is still a copy made there.

CONFIG_OLD = """
class OldConfig:
    def __init__(self, size=2, **kwargs):
        self.size = size
        self.heads = kwargs.pop("heads", 4)
        self.width = self.size * self.heads
"""
CONFIG_NEW = {
    "tok.py": "from demo.backend import NewConfig\n",
    "backend.py": """
@dataclass
class NewConfig:
    size: int = 2
    heads: int = 4

    def __post_init__(self):
        self.width = self.size * self.heads


OldConfig = NewConfig
""",
}
# The class was renamed (its old name an alias) and made a dataclass: its __init__'s work is in __post_init__.
NO_POST_INIT_NEW = {**CONFIG_NEW, "backend.py": CONFIG_NEW["backend.py"].replace("def __post_init__(self)", "def describe(self)")}
# The same without a __post_init__: a method of another name is no home of __init__.

CASES: list[RuleCase] = [
    RuleCase(
        "renamed-elsewhere-into-a-class-new-in-its-file",
        TargetRule.RENAMED_ELSEWHERE,
        NEW_CLASS_OLD,
        NEW_CLASS_NEW,
        ("resolved = {}",),
        "target",
        target="demo.model.Router.pick",
        kind="renamed",
    ),
    RuleCase(
        "renamed-elsewhere-in-its-own-file-before-a-copy",
        TargetRule.RENAMED_ELSEWHERE,
        ROUTER_OLD,
        ROUTER_NEW,
        ("resolved = {}",),
        "target",
        target="demo.model.Router.pick",
        kind="renamed",
    ),
    RuleCase(
        "renamed-elsewhere",
        TargetRule.RENAMED_ELSEWHERE,
        STYLES_OLD,
        STYLES_NEW,
        ("resolved = {}",),
        "target",
        target="demo.neuron.neuron_styles",
        kind="renamed",
    ),
    RuleCase(
        "folded-into-method",
        TargetRule.FOLDED_INTO_METHOD,
        {"masks.py": GONE_OLD},
        {"masks.py": FOLDED_NEW},
        ("fn = wrap ( fn , in_dims = span , out_dims = 0 )",),
        "target",
        target="demo.masks.window_mask",
    ),
    RuleCase(
        "class-kept-as-alias-init-as-post-init",
        TargetRule.CLASS_KEPT_AS_ALIAS,
        {"tok.py": CONFIG_OLD},
        CONFIG_NEW,
        ("self.width = self.size * self.heads",),
        "target",
        target="demo.tok.OldConfig.__init__",
    ),
    RuleCase(
        "class-copied-not-renamed-a-word-is-no-import",
        Filter.CLASS_COPIED_NOT_RENAMED,
        {"mixer.py": RENAMED_CLASS_OLD + ENCODER_USER},
        {"mixer.py": WORD_USER_NEW, "encoders.py": RENAMED_CLASS_NEW},
        ("out = self.model(ids)",),
        "target",
        Action.VETOED,
        target="demo.mixer.Encoder.run",
        kind="deleted",
    ),
    RuleCase(
        "renamed-close-body",
        TargetRule.RENAMED_CLOSE_BODY,
        {"masks.py": GONE_OLD},
        {"masks.py": RENAMED_NEW},
        ("fn = wrap ( fn , in_dims = span , out_dims = 0 )",),
        "target",
        target="demo.masks.window_mask",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "folded-into-method-not-into-two-copies",
        TargetRule.FOLDED_INTO_METHOD,
        {"masks.py": GONE_OLD},
        {"masks.py": FOLDED_TWICE_NEW},
        ("fn = wrap ( fn , in_dims = span , out_dims = 0 )",),
        "target",
        target="demo.masks.window_mask",
    ),
    RuleCase(
        "folded-into-method-not-beside-a-function-as-close",
        TargetRule.FOLDED_INTO_METHOD,
        {"masks.py": GONE_OLD},
        {"masks.py": FOLDED_AND_RENAMED_NEW},
        ("fn = wrap ( fn , in_dims = span , out_dims = 0 )",),
        "target",
        target="demo.masks.window_mask",
    ),
    RuleCase(
        "folded-into-method-not-a-method-renamed",
        TargetRule.FOLDED_INTO_METHOD,
        {"masks.py": METHOD_OLD},
        {"masks.py": OTHER_CLASS_NEW},
        ("fn = wrap ( fn , in_dims = span , out_dims = 0 )",),
        "target",
        target="demo.masks.Masks.window_mask",
    ),
    RuleCase(
        "class-kept-as-alias-init-not-another-method",
        TargetRule.CLASS_KEPT_AS_ALIAS,
        {"tok.py": CONFIG_OLD},
        NO_POST_INIT_NEW,
        ("self.width = self.size * self.heads",),
        "target",
        target="demo.tok.OldConfig.__init__",
    ),
    RuleCase(
        "renamed-close-body-not-into-two-copies",
        TargetRule.RENAMED_CLOSE_BODY,
        {"masks.py": GONE_OLD},
        {"masks.py": TWO_NEW},
        ("fn = wrap ( fn , in_dims = span , out_dims = 0 )",),
        "target",
        target="demo.masks.window_mask",
    ),
    RuleCase(
        "renamed-close-body-not-by-a-function-there-at-the-review",
        TargetRule.RENAMED_CLOSE_BODY,
        {"masks.py": THERE_AT_REVIEW_OLD},
        {"masks.py": RENAMED_NEW},
        ("fn = wrap ( fn , in_dims = span , out_dims = 0 )",),
        "target",
        target="demo.masks.window_mask",
    ),
    RuleCase(
        "renamed-close-body-not-in-another-scope",
        TargetRule.RENAMED_CLOSE_BODY,
        {"masks.py": METHOD_OLD},
        {"masks.py": OTHER_CLASS_NEW},
        ("fn = wrap ( fn , in_dims = span , out_dims = 0 )",),
        "target",
        target="demo.masks.Masks.window_mask",
    ),
    RuleCase(
        "renamed-close-body-not-when-too-little-resembles",
        TargetRule.RENAMED_CLOSE_BODY,
        {"masks.py": GONE_OLD},
        {"masks.py": UNLIKE_NEW},
        ("fn = wrap ( fn , in_dims = span , out_dims = 0 )",),
        "target",
        target="demo.masks.window_mask",
    ),
    RuleCase(
        "renamed-elsewhere-not-into-two-copies",
        TargetRule.RENAMED_ELSEWHERE,
        STYLES_OLD,
        STYLES_TWICE_NEW,
        ("resolved = {}",),
        "target",
        target="demo.neuron.neuron_styles",
    ),
    RuleCase(
        "renamed-elsewhere-not-when-only-alike",
        TargetRule.RENAMED_ELSEWHERE,
        STYLES_OLD,
        ALIKE_NEW,
        ("resolved = {}",),
        "target",
        target="demo.neuron.neuron_styles",
    ),
    RuleCase(
        "renamed-elsewhere-not-by-a-function-there-at-the-review",
        TargetRule.RENAMED_ELSEWHERE,
        THERE_TOO_OLD,
        STYLES_NEW,
        ("resolved = {}",),
        "target",
        target="demo.neuron.neuron_styles",
    ),
    RuleCase(
        "renamed-close-body-not-by-what-its-siblings-held-too",
        TargetRule.RENAMED_CLOSE_BODY,
        {"loader.py": SIBLINGS_OLD},
        {"loader.py": BOILERPLATE_NEW},
        ('warnings.warn("token is deprecated")',),
        "target",
        target="demo.loader.build_schedule",
    ),
    RuleCase(
        "renamed-close-body-not-into-a-gone-siblings-rename",
        TargetRule.RENAMED_CLOSE_BODY,
        {"model.py": BACKENDS_OLD},
        {"model.py": ONE_BACKEND_NEW},
        ('raise ImportError("install torch for sdpa")',),
        "target",
        target="demo.model.Model.check_sdpa",
    ),
]
