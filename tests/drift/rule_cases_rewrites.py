"""Rule cases for rewrites that keep a statement's role (issue 41, items 4 and 5): a name renamed through the whole
function (rule ``renamed-throughout``), the only statement left making the step's call (rule ``same-call``), in the
target and in a helper it now hands the work to, a decorator replaced in place (rule ``decorator-replaced``), an
attribute set under a computed name (rule ``same-action``), a nested function lifted into a helper (rule
``nested-lifted``), and a function's only return rewritten to return more (rule ``sole-return``); :mod:`rule_cases` adds
them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase
from test_match_synthetic import OLD

from infralens.drift.match.rules import Rule, TargetRule

RENAMED_OLD = """
class Mixer:
    def run(self, x, scale):
        outputs = self.model(x)
        logits = outputs.logits
        total = (x + scale) * 2
        self.set_gain(scale)
        del outputs
        y = logits * 2
        return y + total
"""
RENAMED_NEW = """
class Mixer:
    def run(self, x, scale):
        model_outputs = self.model(x)
        logits = model_outputs.logits
        del model_outputs
        total = (x + scale) * 2
        self.set_gain(scale)
        y = logits * 2
        return y + total
"""
# ``outputs`` became ``model_outputs`` everywhere, and the ``del`` moved up past two unchanged statements: the body
# diff puts it outside its hunk and none of its neighbours is where it was, but no ``outputs`` is left to delete.
RENAMED_NOT_THROUGHOUT = RENAMED_NEW.replace("        y = logits * 2\n", "        y = logits * 2\n        outputs = y * scale\n")
# The same, but the function still spells ``outputs`` (for something else): the rename did not go through it.
FLAGGED_OLD = """
class Mixer:
    def run(self, x, scale):
        total = (x + scale) * 2
        if self.flag:
            x = self.scale_up(x)
        elif self.other:
            x = x - 1
        self.set_gain(scale)
        return x + total
"""
FLAGGED_NEW = """
class Mixer:
    def run(self, x, scale):
        if self.other:
            x = x - 1
        total = (x + scale) * 2
        self.set_gain(scale)
        return x + total
"""
# ``self.flag`` is gone, and ``if self.other`` reads as its rename; but the reviewed body spelled ``other`` already
# (the ``elif``): the branch left is that one's, not a rename of the first.

CALL_OLD = """
class Mixer:
    def run(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        scores = self.norm(x)
        processed = self.process(x, scores)
        y = processed * 2
        return y + total
"""
CALL_NEW = """
class Mixer:
    def run(self, x, scale):
        h = self.norm(x).softmax(-1)
        out = self.process(self.flatten_input(x), h)
        total = (x + scale) * 2
        self.set_gain(scale)
        y = out * 3
        return y + total
"""
# The processing call moved before two unchanged statements, assigned to another name with other arguments, its
# neighbours rewritten too: the only ``self.process`` call, as it was the only one at the review.
CALL_TWICE_OLD = CALL_OLD.replace("        y = processed * 2\n", "        y = processed * 2\n        extra = self.process(total, scores)\n")
# The reviewed body made the call twice: the one left may be either's.

HANDED_OLD = """
class Mixer:
    def run(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        scores = self.norm(x)
        picked = self.choose(scores, k=2)
        y = picked * 2
        return y + total
"""
HANDED_NEW = """
class Mixer:
    def run(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        y = self._pick(x) * 2
        return y + total

    def _pick(self, x):
        log_probs = self.norm(x).log()
        top = self.choose(log_probs.exp(), k=self.width)
        return top
"""
# The choice went into a new helper, rewritten on its way with everything around it: the helper's only ``self.choose``.

DECORATED_OLD = """
class Mixer:
    @cached
    @documented(MIXER_DOCS, examples=True)
    def run(self, x, scale):
        total = (x + scale) * 2
        return total * x
"""
DECORATED_NEW = DECORATED_OLD.replace("@documented(MIXER_DOCS, examples=True)", "@auto_docs")
# The documenting decorator was replaced by another at the same place in the list: the docs are still generated.
DECORATOR_DROPPED = DECORATED_OLD.replace("    @cached\n    @documented(MIXER_DOCS, examples=True)\n", "    @traced\n    @cached\n")
# The documenting decorator went and another was added on top: nothing took its place.

HEAD_OLD = """
class Head:
    def __init__(self, config):
        super().__init__(config)
        self.num_labels = config.num_labels
        self.model = MixerModel(config)
        self.score = Linear(config.hidden_size)
        self.post_init()
"""
HEAD_NEW = HEAD_OLD.replace("self.model = MixerModel(config)", "setattr(self, self.base_model_prefix, AutoModel.from_config(config))")
# The backbone is still built from the config and set on self, under a name the class now computes (its prefix).
HEAD_OTHER_VALUE = HEAD_NEW.replace("from_config(config)", "from_config(config, dtype=config.dtype)")
# A setattr with a computed name, but its value is built from other arguments: not the same action.

NESTED_OLD = """
class Mixer:
    def run(self, x, scale):
        def layer_map(devices):
            if devices is None:
                return None
            first = devices[0]
            mapping = {i: first for i in range(self.layers)}
            return mapping

        total = (x + scale) * 2
        placed = layer_map(self.devices)
        return total, placed
"""
NESTED_LIFTED = """
class Mixer:
    def run(self, x, scale):
        total = (x + scale) * 2
        placed = self._layer_map()
        return total, placed

    def _layer_map(self):
        devices = self.devices
        if devices is None:
            return None
        first = devices[0]
        mapping = {i: first for i in range(self.layers)}
        return mapping
"""
# The nested function became a method the target calls, its body carried over: its def line is the method's.
NESTED_KEPT = NESTED_LIFTED.replace(
    "        total = (x + scale) * 2\n",
    "        def layer_map(devices, default=None):\n            return default\n\n        total = (x + scale) * 2\n",
)
# The same method, but the target still nests a function of that name (its signature edited): that one is the step's.
SHAPE_OLD = """
class Mixer:
    def run(self, hidden_states):
        bsz, q_len, _ = hidden_states.size()
        query = self.q_proj(hidden_states)
        query = query.view(bsz, q_len, self.heads, self.dim)
        return self.out(query)
"""
SHAPE_NEW = """
class Mixer:
    def run(self, hidden_states):
        self.check(hidden_states)
        scale = self.scale_for(hidden_states)
        query = self.q_proj(hidden_states) * scale
        input_shape = hidden_states.shape[:-1]
        query = query.view(*input_shape, -1, self.dim)
        return self.out(query)
"""
# The unpacked size() became one read of the shape: the only statement that reads the hidden states' shape.
SHAPE_TWICE = SHAPE_NEW.replace("        self.check(hidden_states)\n", "        batch_shape = hidden_states.shape[:-2]\n")
# Two statements read the hidden states' shape now: neither is the step's by its role alone.

# The block's only return now projects its result and hands back its cache as well (as set 24's Wan VAE blocks return
# their feature cache): too far in text for an edit, and its neighbours were rewritten as well.
RETURN_OLD = """
class Mixer:
    def run(self, x, scale):
        h = self.norm(x)
        h = self.attn(h)
        return h
"""
RETURN_NEW = """
class Mixer:
    def run(self, x, scale, cache=None):
        h = self.norm(x)
        h, cache = self.attn(h, cache)
        return self.project(h), cache
"""
# Near misses: the reviewed body returned early as well (which return is the step's?), or the target now returns twice.
RETURN_TWICE_OLD = RETURN_OLD.replace("        h = self.norm(x)\n", "        if x is None:\n            return x\n        h = self.norm(x)\n")
RETURN_TWICE_NEW = RETURN_NEW.replace("        h = self.norm(x)\n", "        if x is None:\n            return None, cache, None\n        h = self.norm(x)\n")

# The attention body left for a module-level function the block now calls, as set 24's CLIP and BART attention went
# to eager_attention_forward: the mask test arrived verbatim, the products were rewritten (bmm to matmul, names to the
# function's parameters), and their neighbours (the size checks) are gone, so nothing but the order places them.
ALIGNED_OLD = """
import torch


class Mixer:
    def run(self, x, mask):
        b, n, d = x.shape
        weights = torch.bmm(self.query(x), self.key(x).transpose(1, 2))
        if weights.size() != (b, n, n):
            raise ValueError("attention weights of the wrong size")
        if mask is not None:
            weights = weights.view(b, n, n) + mask
        weights = torch.softmax(weights, dim=-1)
        mixed = torch.bmm(weights, self.value(x))
        return self.out(mixed)
"""
ALIGNED_NEW = """
import torch


def eager_mix(module, x, mask):
    query, key, value = module.query(x), module.key(x), module.value(x)
    weights = torch.matmul(query, key.transpose(-1, -2)) * module.scale
    if mask is not None:
        weights = weights + mask
    weights = torch.softmax(weights, dim=-1, dtype=torch.float32)
    mixed = torch.matmul(weights, value)
    return mixed


class Mixer:
    def run(self, x, mask):
        b, n, d = x.shape
        return self.out(eager_mix(self, x, mask))
"""
# Near misses: the function gained nothing verbatim (its mask test reads another way); it held those statements at the
# review already; or two of its statements resemble the step about as much (the order alone would choose).
ALIGNED_NO_ANCHOR = ALIGNED_NEW.replace("    if mask is not None:\n", "    if mask is not None and mask.any():\n")
ALIGNED_HELD = ALIGNED_OLD.replace("class Mixer:", ALIGNED_NEW[ALIGNED_NEW.index("def eager_mix") : ALIGNED_NEW.index("class Mixer:")] + "class Mixer:")
ALIGNED_TWINS = ALIGNED_NEW.replace(
    "    weights = torch.matmul(query, key.transpose(-1, -2)) * module.scale\n",
    "    weights = torch.matmul(query, key.transpose(-1, -2)) * module.scale\n    weights = torch.matmul(query, key.transpose(-2, -1)) * module.scale\n",
)
ALIGNED_STEP = ("weights = torch.bmm(self.query(x), self.key(x).transpose(1, 2))",)


# A deprecated class whose __new__ builds the class that replaced it, sets it up and returns it (as diffusers 0.35's
# FluxAttnProcessor2_0_NPU returns a FluxAttnProcessor with an NPU backend): its methods are the new class's now.
BUILT_SHIM = """
class Mixer:
    def __new__(cls, *args, **kwargs):
        from .mixing import NewMixer

        mixer = NewMixer()
        mixer.backend = "native"
        return mixer
"""
# A module function that became the method of one class of its module, every statement rewritten (as DiffSynth
# 2.1.4's _resolve_reference_image_shape became a pipeline unit's method); near misses: the class already had a method
# of that name at the review, or two classes now define it.
LEVEL_OLD = """
def fit_shape(width, height):
    scale = 512 / min(width, height)
    return round(width * scale), round(height * scale)


class Encoder:
    def encode(self, image):
        return fit_shape(*image.size)
"""
LEVEL_NEW = """
class Encoder:
    def fit_shape(self, pipe, width, height, short_edge):
        ratio = short_edge / min(width, height)
        return pipe.snap(width * ratio), pipe.snap(height * ratio)

    def encode(self, pipe, image):
        return self.fit_shape(pipe, *image.size, pipe.short_edge)
"""
LEVEL_NEW_TWICE = (
    LEVEL_NEW
    + """

class Decoder:
    def fit_shape(self, pipe, width, height):
        return pipe.snap(width), pipe.snap(height)
"""
)
LEVEL_STEP = ("scale = 512 / min(width, height)",)
LEVEL = "demo.mixer.fit_shape"

CASES: list[RuleCase] = [
    RuleCase("aligned-in-reached", Rule.ALIGNED_IN_REACHED, {"mixer.py": ALIGNED_OLD}, {"mixer.py": ALIGNED_NEW}, ALIGNED_STEP, kind="changed"),
    RuleCase(
        "renamed-behind-shim-built-in-new",
        TargetRule.RENAMED_BEHIND_SHIM,
        {"mixer.py": OLD},
        {"mixer.py": BUILT_SHIM, "mixing.py": OLD.replace("class Mixer:", "class NewMixer:")},
        ("y = h * 2",),
        "target",
        kind="renamed",
    ),
    RuleCase(
        "same-name-here", TargetRule.SAME_NAME_IN_MODULE, {"mixer.py": LEVEL_OLD}, {"mixer.py": LEVEL_NEW}, LEVEL_STEP, "target", target=LEVEL, kind="moved"
    ),
    RuleCase("sole-return", Rule.SOLE_RETURN, {"mixer.py": RETURN_OLD}, {"mixer.py": RETURN_NEW}, ("return h",), kind="changed"),
    RuleCase("nested-lifted", Rule.NESTED_LIFTED, {"mixer.py": NESTED_OLD}, {"mixer.py": NESTED_LIFTED}, ("def layer_map(devices):",), kind="changed"),
    RuleCase(
        "same-action-computed-setter",
        Rule.SAME_ACTION,
        {"mixer.py": HEAD_OLD},
        {"mixer.py": HEAD_NEW},
        ("self.model = MixerModel(config)",),
        target="demo.mixer.Head.__init__",
        kind="changed",
    ),
    RuleCase(
        "decorator-replaced",
        Rule.DECORATOR_REPLACED,
        {"mixer.py": DECORATED_OLD},
        {"mixer.py": DECORATED_NEW},
        ("@documented(MIXER_DOCS, examples=True)",),
        kind="changed",
    ),
    RuleCase("renamed-throughout", Rule.RENAMED_THROUGHOUT, {"mixer.py": RENAMED_OLD}, {"mixer.py": RENAMED_NEW}, ("del outputs",), kind="changed"),
    RuleCase("same-call", Rule.SAME_CALL, {"mixer.py": CALL_OLD}, {"mixer.py": CALL_NEW}, ("processed = self.process(x, scores)",), kind="changed"),
    RuleCase(
        "same-role-shape-read", Rule.SAME_ROLE, {"mixer.py": SHAPE_OLD}, {"mixer.py": SHAPE_NEW}, ("bsz, q_len, _ = hidden_states.size()",), kind="changed"
    ),
    RuleCase("same-call-in-helper", Rule.SAME_CALL, {"mixer.py": HANDED_OLD}, {"mixer.py": HANDED_NEW}, ("picked = self.choose(scores, k=2)",), kind="changed"),
]

HELD_BACK: list[RuleCase] = [
    RuleCase("same-role-shape-read-twice", Rule.SAME_ROLE, {"mixer.py": SHAPE_OLD}, {"mixer.py": SHAPE_TWICE}, ("bsz, q_len, _ = hidden_states.size()",)),
    RuleCase("nested-lifted-still-nested", Rule.NESTED_LIFTED, {"mixer.py": NESTED_OLD}, {"mixer.py": NESTED_KEPT}, ("def layer_map(devices):",)),
    RuleCase(
        "same-action-computed-setter-other-arguments",
        Rule.SAME_ACTION,
        {"mixer.py": HEAD_OLD},
        {"mixer.py": HEAD_OTHER_VALUE},
        ("self.model = MixerModel(config)",),
        target="demo.mixer.Head.__init__",
        kind="deleted",
    ),
    RuleCase(
        "renamed-throughout-to-a-name-in-use", Rule.RENAMED_THROUGHOUT, {"mixer.py": FLAGGED_OLD}, {"mixer.py": FLAGGED_NEW}, ("if self.flag:",), kind="deleted"
    ),
    RuleCase(
        "decorator-replaced-nothing-in-its-place",
        Rule.DECORATOR_REPLACED,
        {"mixer.py": DECORATED_OLD},
        {"mixer.py": DECORATOR_DROPPED},
        ("@documented(MIXER_DOCS, examples=True)",),
        kind="deleted",
    ),
    RuleCase(
        "renamed-throughout-name-still-spelled",
        Rule.RENAMED_THROUGHOUT,
        {"mixer.py": RENAMED_OLD},
        {"mixer.py": RENAMED_NOT_THROUGHOUT},
        ("del outputs",),
        kind="deleted",
    ),
    RuleCase(
        "same-call-made-twice-at-review",
        Rule.SAME_CALL,
        {"mixer.py": CALL_TWICE_OLD},
        {"mixer.py": CALL_NEW},
        ("processed = self.process(x, scores)",),
        kind="deleted",
    ),
    RuleCase(
        "same-call-reviewed-release-unknown",
        Rule.SAME_CALL,
        {"mixer.py": CALL_OLD},
        {"mixer.py": CALL_NEW},
        ("processed = self.process(x, scores)",),
        kind="deleted",
        reviewed=False,
    ),
    RuleCase("aligned-in-reached-no-anchor", Rule.ALIGNED_IN_REACHED, {"mixer.py": ALIGNED_OLD}, {"mixer.py": ALIGNED_NO_ANCHOR}, ALIGNED_STEP, kind="deleted"),
    RuleCase("aligned-in-reached-held-at-review", Rule.ALIGNED_IN_REACHED, {"mixer.py": ALIGNED_HELD}, {"mixer.py": ALIGNED_NEW}, ALIGNED_STEP, kind="deleted"),
    RuleCase("aligned-in-reached-twins", Rule.ALIGNED_IN_REACHED, {"mixer.py": ALIGNED_OLD}, {"mixer.py": ALIGNED_TWINS}, ALIGNED_STEP, kind="deleted"),
    RuleCase(
        "aligned-in-reached-reviewed-release-unknown",
        Rule.ALIGNED_IN_REACHED,
        {"mixer.py": ALIGNED_OLD},
        {"mixer.py": ALIGNED_NEW},
        ALIGNED_STEP,
        reviewed=False,
    ),
    RuleCase(
        "same-name-here-held-at-review",
        TargetRule.SAME_NAME_IN_MODULE,
        {"mixer.py": LEVEL_OLD.replace("class Encoder:", "class Encoder:\n    def fit_shape(self, w, h):\n        return w, h\n")},
        {"mixer.py": LEVEL_NEW},
        LEVEL_STEP,
        "target",
        target=LEVEL,
        kind="deleted",
    ),
    RuleCase(
        "same-name-here-twice",
        TargetRule.SAME_NAME_IN_MODULE,
        {"mixer.py": LEVEL_OLD},
        {"mixer.py": LEVEL_NEW_TWICE},
        LEVEL_STEP,
        "target",
        target=LEVEL,
        kind="renamed",  # the name tells nothing; the one close body does (rule folded-into-method: Encoder.fit_shape)
    ),
    RuleCase(
        "same-name-here-reviewed-release-unknown",
        TargetRule.SAME_NAME_IN_MODULE,
        {"mixer.py": LEVEL_OLD},
        {"mixer.py": LEVEL_NEW},
        LEVEL_STEP,
        "target",
        target=LEVEL,
        reviewed=False,
    ),
    RuleCase("sole-return-not-the-only-one-reviewed", Rule.SOLE_RETURN, {"mixer.py": RETURN_TWICE_OLD}, {"mixer.py": RETURN_NEW}, ("return h",)),
    RuleCase("sole-return-not-the-only-one-now", Rule.SOLE_RETURN, {"mixer.py": RETURN_OLD}, {"mixer.py": RETURN_TWICE_NEW}, ("return h",), kind="deleted"),
    RuleCase("sole-return-reviewed-release-unknown", Rule.SOLE_RETURN, {"mixer.py": RETURN_OLD}, {"mixer.py": RETURN_NEW}, ("return h",), reviewed=False),
]
