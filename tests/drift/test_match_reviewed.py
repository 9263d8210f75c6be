"""What the reviewed release tells the matcher (issue 28): twins that were there, and places that gained what the target lost.

Each test writes release 1.0 of a small tree, locks an annotation on it, writes release 2.0, and checks it with
release 1.0 at hand as the reviewed release (as the installed package or a cached wheel is for a real lock).
"""

from __future__ import annotations

from test_match_synthetic import OLD, _annotation, _by_key

TWIN = OLD  # the same class, word for word, in another module of the reviewed release


def _lock(demo, old: dict[str, str], *texts: str, target: str = "demo.mixer.Mixer.run") -> None:
    demo.write_annotation("mixer.yaml", _annotation(*texts).replace("target: demo.mixer.Mixer.run", f"target: {target}"))
    demo.lock(demo.write_source("1.0", old))


def test_a_deleted_target_whose_twin_was_there_already_is_deleted_not_moved(demo):
    _lock(demo, {"mixer.py": OLD, "twin.py": TWIN}, "h = self.attn(h)", "y = h * 2")
    report = demo.check(demo.write_source("2.0", {"mixer.py": "X = 1\n", "twin.py": TWIN}))
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("deleted", "deleted"), target.message
    for step in report.steps:
        assert step.kind.value == "deleted", step.message
        assert step.rule == "decoys-only" and step.candidates  # the twin is shown as a look-alike, never as the new home


def test_without_the_reviewed_release_a_twin_elsewhere_still_reads_as_the_target_moved(demo):
    _lock(demo, {"mixer.py": OLD, "twin.py": TWIN}, "y = h * 2")
    report = demo.check(demo.write_source("2.0", {"mixer.py": "X = 1\n", "twin.py": TWIN}), reviewed=None)
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("moved", "moved-module")  # what the checked tree alone shows


def test_a_twin_with_another_name_is_no_rename_either(demo):
    twin = OLD.replace("class Mixer:", "class OldMixer:")
    _lock(demo, {"mixer.py": OLD + twin}, "y = h * 2")
    (target,) = demo.check(demo.write_source("2.0", {"mixer.py": twin})).targets
    assert (target.kind.value, target.rule) == ("deleted", "deleted"), target.message


# run() now reaches its attention block through a name nothing resolves statically (looked up at run time); the
# block lives in a mixin method new in 2.0. A look-alike that was there in 1.0 stays a look-alike.
MIXIN = """
class AttentionMixin:
    def attend(self, x):
        h = self.norm(x)
        h = self.attn(h)
        h = self.norm(h)
        return h


class Unrelated:
    def elsewhere(self, h):
        h = self.attn(h)
        return h
"""
RUN_BY_NAME = OLD.replace(
    """        h = self.norm(x)
        h = self.attn(h)
        h = self.norm(h)
""",
    """        h = getattr(self, self.kind)(x)
""",
)
UNRELATED = MIXIN.split("\n\n\n")[1]
# run() now inherits the attention block from a mixin of another module, which it imports.
RUN_BY_MIXIN = "from .other import AttentionMixin\n" + RUN_BY_NAME.replace("class Mixer:", "class Mixer(AttentionMixin):")


def test_a_block_moved_where_no_call_resolves_is_moved_to_the_function_that_gained_it(demo):
    _lock(demo, {"mixer.py": OLD, "other.py": UNRELATED}, "h = self.attn(h)", "y = h * 2")
    report = demo.check(demo.write_source("2.0", {"mixer.py": RUN_BY_MIXIN, "other.py": MIXIN}))
    steps = _by_key(report)
    moved = steps["s0"]
    assert (moved.kind.value, moved.rule, moved.new.target) == ("moved", "moved-with-block", "AttentionMixin.attend"), moved.message
    assert "gained 3 of the target's lost statements" in moved.message
    assert "gained 3" in moved.evidence
    assert (steps["s1"].kind.value, steps["s1"].rule) == ("unchanged", "same-text")


def test_a_block_is_not_followed_into_a_module_the_targets_module_does_not_import(demo):
    """The same block gained by the same mixin, but mixer.py no longer imports other.py: nothing ties them (rule
    out-of-view; a model's attention is not where another model's copy of the code went)."""
    _lock(demo, {"mixer.py": OLD, "other.py": UNRELATED}, "h = self.attn(h)")
    step = demo.check(demo.write_source("2.0", {"mixer.py": RUN_BY_NAME, "other.py": MIXIN})).steps[0]
    assert step.kind.value != "moved", step.message
    assert any(e.rule.value == "out-of-view" for e in step.trace), [e.describe() for e in step.trace]


def test_a_new_clone_of_the_whole_target_is_no_home_for_what_the_target_lost(demo):
    # 2.0 drops the attention block from run() and adds CopyMixer, a copy of run() as it was in 1.0.
    dropped = OLD.replace("        h = self.norm(x)\n        h = self.attn(h)\n        h = self.norm(h)\n", "")
    clone = OLD.replace("class Mixer:", "class CopyMixer:")
    _lock(demo, {"mixer.py": OLD}, "h = self.attn(h)")
    steps = _by_key(demo.check(demo.write_source("2.0", {"mixer.py": dropped + clone})))
    assert (steps["s0"].kind.value, steps["s0"].rule) == ("deleted", "decoys-only"), steps["s0"].message


# prepare() was folded into run(), a method that was there before and gained prepare()'s statements.
FOLDED_OLD = """
class Mixer:
    def prepare(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        h = self.norm(x)
        return h

    def run(self, x):
        y = x * 2
        return y
"""
FOLDED_NEW = """
class Mixer:
    def run(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        h = self.norm(x)
        y = h * 2
        return y
"""


def test_a_target_folded_into_another_function_is_moved_there(demo):
    _lock(demo, {"mixer.py": FOLDED_OLD}, "self.set_gain(scale)", target="demo.mixer.Mixer.prepare")
    report = demo.check(demo.write_source("2.0", {"mixer.py": FOLDED_NEW}))
    (target,) = report.targets
    assert target.kind.value == "deleted"  # the container is gone; its statements are followed one by one
    step = report.steps[0]
    assert (step.kind.value, step.rule, step.new.target) == ("moved", "moved-with-block", "Mixer.run"), step.message


# The processor's __call__ was folded into the module it was handed: every attn.x is now self.x.
PROCESSOR_OLD = """
class Processor:
    def __call__(self, attn, x):
        scale = x.shape[-1] ** -0.5
        q = attn.to_q(x)
        k = attn.to_k(x)
        v = attn.to_v(x)
        out = attn.attend(q, k, v, scale)
        return attn.to_out(out)


class Attention:
    def forward(self, x):
        return self.processor(self, x)
"""
PROCESSOR_NEW = """
class Attention:
    def forward(self, x):
        scale = x.shape[-1] ** -0.5
        q = self.to_q(x)
        k = self.to_k(x)
        v = self.to_v(x)
        out = self.attend(q, k, v, scale)
        return self.to_out(out)
"""


def test_a_method_folded_into_its_parameters_class_is_moved_there_with_the_parameter_as_self(demo):
    _lock(demo, {"mixer.py": PROCESSOR_OLD}, "q = attn.to_q(x)", "scale = x.shape[-1] ** -0.5", target="demo.mixer.Processor.__call__")
    report = demo.check(demo.write_source("2.0", {"mixer.py": PROCESSOR_NEW}))
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("moved", "moved-to-receiver"), target.message
    assert "Attention.forward, its parameter attn now self" in target.message
    steps = _by_key(report)
    assert (steps["s0"].kind.value, steps["s0"].rule, steps["s0"].new.target) == ("changed", "confident-edit", "Attention.forward")
    assert "attn -> self" in steps["s0"].message
    assert (steps["s1"].kind.value, steps["s1"].rule) == ("moved", "target-relocated")


def test_without_the_reviewed_release_a_folded_method_reads_as_deleted(demo):
    _lock(demo, {"mixer.py": PROCESSOR_OLD}, "q = attn.to_q(x)", target="demo.mixer.Processor.__call__")
    (target,) = demo.check(demo.write_source("2.0", {"mixer.py": PROCESSOR_NEW}), reviewed=None).targets
    assert (target.kind.value, target.rule) == ("deleted", "deleted")


def test_the_targets_own_header_is_changed_however_much_its_parameters_changed(demo):
    header = "    def run(self, x, scale):"
    longer = "    def run(self, x, scale: float = 1.0, *, mode: str = 'fast', gain: Optional[float] = None, **extra):"
    _lock(demo, {"mixer.py": OLD}, "def run(self, x, scale):")
    step = demo.check(demo.write_source("2.0", {"mixer.py": OLD.replace(header, longer)})).steps[0]
    assert (step.kind.value, step.rule) == ("changed", "target-header"), step.message
    assert "the target's own header" in step.evidence


# convert() was renamed convert_any() and most of its loop went into a helper it calls.
CONVERT_OLD = """
def convert(state):
    out = {}
    for key in state:
        name = key.replace("lora_unet_", "")
        name = name.replace("input.blocks", "down_blocks")
        name = name.replace("middle.block", "mid_block")
        name = name.replace("output.blocks", "up_blocks")
        out[name] = state[key]
    return out
"""
CONVERT_NEW = """
def _convert_key(key):
    name = key.replace("lora_unet_", "")
    name = name.replace("input.blocks", "down_blocks")
    name = name.replace("middle.block", "mid_block")
    name = name.replace("output.blocks", "up_blocks")
    return name


def convert_any(state, prefix=None):
    out = {}
    for key in state:
        out[_convert_key(key)] = state[key]
    return out
"""


def test_a_target_renamed_and_split_into_helpers_is_followed_into_them(demo):
    step = 'name = name.replace("middle.block", "mid_block")'
    _lock(demo, {"mixer.py": CONVERT_OLD}, step, "out = {}", target="demo.mixer.convert")
    report = demo.check(demo.write_source("2.0", {"mixer.py": CONVERT_NEW}))
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("renamed", "renamed-and-split"), target.message
    assert "demo.mixer._convert_key (4)" in target.message
    steps = _by_key(report)
    assert (steps["s0"].kind.value, steps["s0"].new.target) == ("moved", "_convert_key"), steps["s0"].message
    assert (steps["s1"].kind.value, steps["s1"].new.target) == ("moved", "convert_any")
    (target,) = demo.check(demo.write_source("2.0", {"mixer.py": CONVERT_NEW}), reviewed=None).targets
    assert target.rule == "deleted"  # a new name is only known against the reviewed release


# Mixer.enable became a module function of the same name taking the encoder; its PEFT check went.
ENABLE_OLD = """
class Mixer:
    def enable(self, encoder=None):
        if not USE_PEFT:
            raise ValueError("PEFT backend is required.")
        encoder = encoder or getattr(self, "encoder", None)
        if encoder is None:
            raise ValueError("Encoder not found.")
        set_layers(encoder, enabled=True)
"""
ENABLE_NEW = """
def enable(encoder):
    if encoder is None:
        raise ValueError("Encoder not found.")
    set_layers(encoder, enabled=True)


class Mixer:
    def enable_all(self):
        if not USE_PEFT:
            raise ValueError("PEFT backend is required.")
        enable(self.encoder)
"""


def test_a_method_turned_module_function_of_its_name_is_moved_there(demo):
    _lock(demo, {"mixer.py": ENABLE_OLD}, 'raise ValueError("Encoder not found.")', target="demo.mixer.Mixer.enable")
    report = demo.check(demo.write_source("2.0", {"mixer.py": ENABLE_NEW}))
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("moved", "moved-same-name"), target.message
    step = report.steps[0]
    assert (step.kind.value, step.new.target) == ("moved", "enable"), step.message


def test_a_namesake_that_was_there_already_is_not_the_target_moved(demo):
    _lock(
        demo, {"mixer.py": ENABLE_OLD + ENABLE_NEW.split("\n\n\nclass", maxsplit=1)[0]}, "set_layers(encoder, enabled=True)", target="demo.mixer.Mixer.enable"
    )
    (target,) = demo.check(demo.write_source("2.0", {"mixer.py": ENABLE_NEW})).targets
    assert target.rule != "moved-same-name", target.message


# The gain branch of run(), with its else, went into a helper; run() has an else of its own now.
BRANCHES_OLD = """
class Mixer:
    def run(self, x, gain):
        if gain is None:
            gain = 1.0
        else:
            gain = float(gain)
        y = x * gain
        return y
"""
BRANCHES_NEW = """
class Mixer:
    def _gain(self, gain):
        if gain is None:
            gain = 1.0
        else:
            gain = float(gain)
        return gain

    def run(self, x, gain):
        if x is None:
            return None
        else:
            y = x * self._gain(gain)
        return y
"""


def test_a_bare_else_that_went_with_its_branch_is_moved_though_another_else_stays(demo):
    _lock(demo, {"mixer.py": BRANCHES_OLD}, "else:", "y = x * gain")
    steps = _by_key(demo.check(demo.write_source("2.0", {"mixer.py": BRANCHES_NEW})))
    assert (steps["s0"].kind.value, steps["s0"].new.target) == ("moved", "Mixer._gain"), steps["s0"].message


# The capability check was renamed and rewritten (little of its body is left); the call to it was renamed too.
CAPABILITY_OLD = """
class Config:
    @staticmethod
    def _is_cuda_at_least_8_9():
        if not torch.cuda.is_available():
            raise RuntimeError("needs CUDA")
        major, minor = torch.cuda.get_device_capability()
        return (major, minor) >= (8, 9)

    @classmethod
    def methods(cls):
        if cls._is_cuda_at_least_8_9():
            return {"float8": 1}
        return {}
"""
CAPABILITY_NEW = """
class Config:
    @staticmethod
    def _is_xpu_or_cuda_at_least_8_9():
        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            return (major, minor) >= (8, 9)
        elif torch.xpu.is_available():
            return True
        raise RuntimeError("needs CUDA or XPU")

    @classmethod
    def methods(cls):
        if cls._is_xpu_or_cuda_at_least_8_9():
            return {"float8": 1}
        return {}
"""


def test_a_target_renamed_at_its_call_sites_is_followed_however_much_its_body_changed(demo):
    _lock(demo, {"mixer.py": CAPABILITY_OLD}, "if not torch.cuda.is_available():", target="demo.mixer.Config._is_cuda_at_least_8_9")
    report = demo.check(demo.write_source("2.0", {"mixer.py": CAPABILITY_NEW}))
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("renamed", "renamed-at-callers"), target.message
    assert "Config._is_xpu_or_cuda_at_least_8_9: 1 call(s)" in target.message
    step = report.steps[0]
    assert (step.kind.value, step.new.texts) == ("changed", ("if torch . cuda . is_available ( ) :",)), step.message


OTHER = """


class Other:
    @staticmethod
    def _is_xpu_or_cuda_at_least_8_9():
        return torch.xpu.is_available()
"""


def test_callers_that_switched_to_a_function_that_was_there_already_say_nothing(demo):
    # The new name the call uses was defined when the lock was reviewed (in another class): not the target renamed.
    new = CAPABILITY_NEW.replace("def _is_xpu_or_cuda_at_least_8_9", "def _unrelated")
    _lock(demo, {"mixer.py": CAPABILITY_OLD + OTHER}, "if not torch.cuda.is_available():", target="demo.mixer.Config._is_cuda_at_least_8_9")
    (target,) = demo.check(demo.write_source("2.0", {"mixer.py": new + OTHER})).targets
    # What the callers call says nothing; the body does: ``_unrelated`` holds the target's statements, each rewritten
    # (rule renamed-close-body), while the function the callers switched to is another class's, there at the review.
    assert (target.kind.value, target.rule) == ("renamed", "renamed-close-body"), target.message
    assert target.new is not None and target.new.target == "Config._unrelated", target.message


def test_the_targets_own_docstring_is_changed_however_much_its_words_changed(demo):
    old = OLD.replace("    def run(self, x, scale):\n", '    def run(self, x, scale):\n        """Mix x with a scale."""\n')
    new = OLD.replace(
        "    def run(self, x, scale):\n", '    def run(self, x, scale):\n        """Blend the input.\n\n        Args:\n            x: the input.\n        """\n'
    )
    _lock(demo, {"mixer.py": old}, '"""Mix x with a scale."""')
    step = demo.check(demo.write_source("2.0", {"mixer.py": new})).steps[0]
    assert (step.kind.value, step.rule) == ("changed", "target-header"), step.message


def test_a_new_function_holding_part_of_a_deleted_one_is_a_copy_not_its_home(demo):
    # 1.0 has prepare(); 2.0 deletes it and adds an unrelated new pipeline whose helper copies three of its statements.
    old = FOLDED_OLD
    copy = """

class NewPipeline:
    def prepare_inputs(self, x, scale):
        x = self.check(x)
        scale = self.clip(scale)
        total = (x + scale) * 2
        self.set_gain(scale)
        h = self.norm(x)
        h = self.attend(h)
        h = self.project(h)
        return h * 3
"""
    _lock(demo, {"mixer.py": old}, "self.set_gain(scale)", target="demo.mixer.Mixer.prepare")
    kept = "\nclass Mixer:\n    def run(self, x):\n        y = x * 2\n        return y\n"
    step = demo.check(demo.write_source("2.0", {"mixer.py": kept + copy})).steps[0]
    assert step.kind.value == "deleted", step.message


# The class was renamed and moved to another module; its run() lost most of its body's words on the way.
RENAMED_CLASS_OLD = """
class Encoder:
    def __init__(self, config):
        self.config = config
        self.model = build_model(config)
        self.norm = build_norm(config)

    def run(self, ids):
        out = self.model(ids)
        return self.norm(out)
"""
RENAMED_CLASS_NEW = """
class TextEncoderV2:
    def __init__(self, config):
        self.config = config
        self.model = build_model(config)
        self.norm = build_norm(config)

    def run(self, ids, mask=None):
        if mask is not None:
            ids = ids * mask
        hidden = self.model(ids, output_hidden_states=True)
        return self.norm(hidden[-1])
"""


def test_a_method_follows_its_class_renamed_and_moved_by_its_name(demo):
    _lock(demo, {"mixer.py": RENAMED_CLASS_OLD}, "out = self.model(ids)", target="demo.mixer.Encoder.run")
    report = demo.check(demo.write_source("2.0", {"encoders.py": RENAMED_CLASS_NEW}))
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("renamed", "class-renamed"), target.message
    assert "class Encoder looks renamed to TextEncoderV2" in target.message
    assert report.steps[0].kind.value == "changed", report.steps[0].message


# A helper renamed at once in its class and in a "Copied from" clone of the class elsewhere.
SIGMAS = """
class {name}:
    def {method}(self, ramp, rho=7.0):
        min_inv_rho = self.sigma_min ** (1 / rho)
        max_inv_rho = self.sigma_max ** (1 / rho)
        sigmas = (max_inv_rho + ramp * (min_inv_rho - max_inv_rho)) ** rho
        return sigmas
"""


def test_a_helper_renamed_in_its_class_and_in_its_clones_is_renamed_in_its_own_class(demo):
    old = {"mixer.py": SIGMAS.format(name="Euler", method="_compute_sigmas"), "other.py": SIGMAS.format(name="Heun", method="_compute_sigmas")}
    new = {"mixer.py": SIGMAS.format(name="Euler", method="_compute_karras_sigmas"), "other.py": SIGMAS.format(name="Heun", method="_compute_karras_sigmas")}
    _lock(demo, old, "return sigmas", target="demo.mixer.Euler._compute_sigmas")
    report = demo.check(demo.write_source("2.0", new))
    (target,) = report.targets
    assert (target.rule, target.new.relpath, target.new.target) == ("renamed-body-overlap", "demo/mixer.py", "Euler._compute_karras_sigmas"), target.message
    assert (report.steps[0].kind.value, report.steps[0].new.target) == ("moved", "Euler._compute_karras_sigmas")


def test_a_bare_else_is_not_moved_into_a_called_function_that_has_another_else(demo):
    # The gain branch was deleted; run() now calls a helper that has an else of its own, with other neighbours.
    new = (
        BRANCHES_OLD.replace(
            "        if gain is None:\n            gain = 1.0\n        else:\n            gain = float(gain)\n", "        gain = self._clip(gain)\n"
        )
        + "\n    def _clip(self, value):\n        if value > 1:\n            return 1\n        else:\n            return value\n"
    )
    _lock(demo, {"mixer.py": BRANCHES_OLD}, "else:")
    step = demo.check(demo.write_source("2.0", {"mixer.py": new})).steps[0]
    assert step.kind.value == "deleted", step.message


def test_a_check_of_an_older_release_does_not_read_the_reviewed_release(demo):
    # history walks back in time: there "new since the review" and "gained since the review" read backwards.
    demo.write_annotation("mixer.yaml", _annotation("y = h * 2"))
    demo.lock(demo.write_source("2.0", {"mixer.py": OLD, "twin.py": TWIN}))
    older = demo.write_source("1.0", {"mixer.py": "X = 1\n", "twin.py": TWIN})
    (target,) = demo.check(older, version="1.0", reviewed="2.0").targets
    assert target.rule == "moved-module"  # what the checked tree alone shows, as before the reviewed release was read


def test_a_moved_def_line_is_placed_in_its_method_not_its_class(demo):
    _lock(demo, {"mixer.py": OLD}, "def run(self, x, scale):")
    step = demo.check(demo.write_source("2.0", {"mixer.py": "X = 1\n", "elsewhere.py": OLD})).steps[0]
    assert (step.kind.value, step.new.module, step.new.target) == ("moved", "demo.elsewhere", "Mixer.run"), step.new


ROPE = """
import torch


def rope(pos, dim, theta):
    assert dim % 2 == 0, "even"
    scale = torch.arange(0, dim, 2) / dim
    omega = 1.0 / (theta ** scale)
    out = torch.einsum("...n,d->...nd", pos, omega)
    return out.float()


class EmbedND:
    def forward(self, ids):
        return torch.cat([rope(ids[..., i], 4, 10000) for i in range(3)], dim=-3)
"""

ROPE_NOW = """
import torch


class PosEmbed:
    def forward(self, ids):
        return torch.cat([get_rotary(ids[..., i], 4, 10000) for i in range(3)], dim=-3)
"""

ROPE_COPY = (  # an edited copy, with a caller of another name
    ROPE.replace('"even"', '"The dimension must be even."')
    .replace("torch.arange(0, dim, 2)", "torch.arange(0, dim, 2, dtype=torch.float64)")
    .replace("class EmbedND", "class OtherEmbedND")
)

ROPE_STEPS = ("omega = 1.0 / (theta ** scale)", 'out = torch.einsum("...n,d->...nd", pos, omega)', "return out.float()")


def test_a_module_function_copied_into_a_new_module_whose_callers_went_is_deleted_not_moved(demo):
    """diffusers 0.35 dropped Flux's ``rope`` (and ``EmbedND``, its caller) while the new HiDream module had an edited
    copy of it used by its own ``HiDreamImageEmbedND``: the old module still exists, never names the new one, and
    none of the target's callers went there, so the copy is not the target moved (rule copied-not-moved)."""
    _lock(demo, {"mixer.py": ROPE}, *ROPE_STEPS, target="demo.mixer.rope")
    report = demo.check(demo.write_source("2.0", {"mixer.py": ROPE_NOW, "other.py": ROPE_COPY}))
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("deleted", "deleted"), target.message
    assert "other.py is a copy made there (copied-not-moved" in target.message
    assert [s.kind.value for s in report.steps] == ["deleted"] * 3, [s.message for s in report.steps]


def test_a_module_function_whose_caller_moved_along_is_moved(demo):
    """The same copy, but the caller ``EmbedND`` went to the new module too: that is the function moved."""
    _lock(demo, {"mixer.py": ROPE}, *ROPE_STEPS, target="demo.mixer.rope")
    moved = ROPE_COPY.replace("class OtherEmbedND", "class EmbedND")
    report = demo.check(demo.write_source("2.0", {"mixer.py": ROPE_NOW, "other.py": moved}))
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("moved", "moved-module"), target.message
    assert [s.kind.value for s in report.steps] == ["moved"] * 3


def test_a_module_function_the_old_module_imports_from_its_new_home_is_moved(demo):
    _lock(demo, {"mixer.py": ROPE}, *ROPE_STEPS, target="demo.mixer.rope")
    report = demo.check(demo.write_source("2.0", {"mixer.py": "from .other import rope\n" + ROPE_NOW, "other.py": ROPE_COPY}))
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("moved", "re-exported"), target.message  # the import says where it went


NESTED_ELSE_OLD = """
class Mixer:
    def run(self, x, scale, lora):
        if self.use:
            if self.name == "conv":
                if lora:
                    x = self.conv(x, scale)
                else:
                    x = self.conv(x)
            else:
                if lora:
                    x = self.conv0(x, scale)
                else:
                    x = self.conv0(x)
        return x
"""
NESTED_ELSE_NEW = """
class Mixer:
    def run(self, x, scale, lora):
        if self.use:
            if self.name == "conv":
                x = self.conv(x)
            else:
                x = self.conv0(x)
        return x
"""


def test_of_reshuffled_bare_elses_the_survivor_goes_to_the_one_at_its_depth(demo):
    """diffusers 0.30 ``Upsample2D.forward``: the LoRA branches went, and of four ``else :`` one stayed, the outer one.
    Each contender matches one neighbour of it; the outer ``else :`` of the reviewed release sits at its depth."""
    from drift_samples import MIXER_ANNOTATION

    steps = "".join(f'  - key: e{n}\n    at: {{text: "else:", nth: {n}}}\n    note: else {n}\n' for n in (1, 2, 3))
    demo.write_annotation("mixer.yaml", MIXER_ANNOTATION.format(steps=steps.rstrip("\n")))
    demo.lock(demo.write_source("1.0", {"mixer.py": NESTED_ELSE_OLD}))
    found = _by_key(demo.check(demo.write_source("2.0", {"mixer.py": NESTED_ELSE_NEW})))
    assert {key: step.kind.value for key, step in found.items()} == {"e1": "deleted", "e2": "unchanged", "e3": "deleted"}
