"""Synthetic trees for the kinds of error the matcher used to make (issue 28); each failed before the three-stage matcher.

Each test writes release 1.0 of a small module, locks an annotation on it, writes release 2.0 with one
kind of upstream change, and checks the kind, the rule that decided it and where the step is now.
"""

from __future__ import annotations

from drift_samples import MIXER_ANNOTATION as ANNOTATION


def _annotation(*texts: str) -> str:
    steps = "".join(f"  - key: s{n}\n    at: {text!r}\n    note: step {n}\n" for n, text in enumerate(texts))
    return ANNOTATION.format(steps=steps.rstrip("\n"))


def _check(demo, old: str, new: str, *texts: str, **options):
    demo.write_annotation("mixer.yaml", _annotation(*texts))
    demo.lock(demo.write_source("1.0", {"mixer.py": old}))
    return demo.check(demo.write_source("2.0", {"mixer.py": new}), **options)


def _by_key(report):
    return {s.entry.step_id.split("/")[1]: s for s in report.steps}


OLD = """
class Mixer:
    def run(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        h = self.norm(x)
        h = self.attn(h)
        h = self.norm(h)
        y = h * 2
        z = h * 3
        return y + z
"""


def test_redundant_parentheses_are_the_same_statement(demo):
    new = OLD.replace("total = (x + scale) * 2", "total = ((x + scale)) * 2")
    steps = _by_key(_check(demo, OLD, new, "total = (x + scale) * 2"))
    assert (steps["s0"].kind.value, steps["s0"].rule) == ("unchanged", "same-tree")


def test_a_setter_call_written_as_an_attribute_assignment_is_the_same_action(demo):
    new = OLD.replace("self.set_gain(scale)", "self.gain = scale")
    steps = _by_key(_check(demo, OLD, new, "self.set_gain(scale)"))
    step = steps["s0"]
    assert (step.kind.value, step.rule) == ("changed", "confident-edit")
    assert step.new is not None and step.new.texts == ("self . gain = scale",)
    assert "setter call and attribute assignment" in step.message


TWINS = """
class Mixer:
    def run(self, x, scale):
        x = f(x)
        y = g(x)
        x = f(x)
        return x + y
"""


def test_a_renamed_call_is_found_while_its_twin_below_is_matched(demo):
    demo.write_annotation(
        "mixer.yaml",
        _annotation().replace(
            "steps:",
            "steps:\n  - key: s0\n    at: {text: 'x = f(x)', nth: 1}\n    note: first\n  - key: s1\n    at: {text: 'x = f(x)', nth: 2}\n    note: twin",
        ),
    )
    demo.lock(demo.write_source("1.0", {"mixer.py": TWINS}))
    new = TWINS.replace("        x = f(x)\n        y = g(x)", "        x = transform_the_input(x)\n        y = g(x, 1)")
    steps = _by_key(demo.check(demo.write_source("2.0", {"mixer.py": new})))
    assert (steps["s0"].kind.value, steps["s0"].rule) == ("changed", "same-action")
    assert "call renamed: f -> transform_the_input" in steps["s0"].message
    assert (steps["s1"].kind.value, steps["s1"].rule) == ("unchanged", "same-text")


def test_two_steps_with_equally_close_edits_share_no_statement(demo):
    old = OLD.replace("        y = h * 2\n        z = h * 3\n", "        a = h * 2\n        a = h * 4\n        y = a\n        z = a\n")
    new = old.replace("        a = h * 2\n        a = h * 4\n", "        a = h * 3\n")
    steps = _by_key(_check(demo, old, new, "a = h * 2", "a = h * 4"))
    placed = [s.new.lines for s in steps.values() if s.new is not None]
    assert len(placed) == 1 and len(placed) == len(set(placed)), "two steps were placed on the same statement"
    assert sorted(s.kind.value for s in steps.values()) == ["changed", "deleted"]


def test_an_added_decorator_is_a_target_finding_that_fails_only_with_strict(demo):
    new = OLD.replace("    def run(self, x, scale):", "    @torch.no_grad()\n    def run(self, x, scale):")
    report = _check(demo, OLD, new, "y = h * 2")
    (target,) = report.targets
    assert (target.kind.value, target.rule) == ("decorators-changed", "decorators-changed")
    assert "decorator added: @torch.no_grad" in target.message
    assert report.clean
    strict = demo.check(demo.write_source("2.0", {"mixer.py": new}), strict=True)
    assert not strict.clean


def test_a_removed_decorator_is_named_too(demo):
    old = OLD.replace("    def run(self, x, scale):", "    @staticmethod_like\n    def run(self, x, scale):")
    report = _check(demo, old, OLD, "y = h * 2")
    (target,) = report.targets
    assert target.kind.value == "decorators-changed" and "decorator removed: @staticmethod_like" in target.message


def test_a_deletion_beside_a_surviving_look_alike_step_stays_deleted(demo):
    # ``z = h * 3`` went; ``y = h * 2`` (another step, unchanged) resembles it but is taken by its own step.
    new = OLD.replace("        z = h * 3\n", "").replace("return y + z", "return y")
    steps = _by_key(_check(demo, OLD, new, "y = h * 2", "z = h * 3"))
    assert (steps["s0"].kind.value, steps["s0"].rule) == ("unchanged", "same-text")
    assert steps["s1"].kind.value == "deleted"


def test_every_step_result_names_its_rule_and_evidence(demo):
    new = OLD.replace("total = (x + scale) * 2", "total = (x + scale) * 4")
    steps = _by_key(_check(demo, OLD, new, "total = (x + scale) * 2", "y = h * 2"))
    assert steps["s0"].rule in ("edit", "confident-edit") and "similarity" in steps["s0"].evidence
    assert steps["s1"].rule == "same-text" and "same text" in steps["s1"].evidence


SHIM = """
from .mixing import NewMixer


class Mixer(NewMixer):
    pass
"""

CONTAINERS = {
    "file-unchanged": ({"mixer.py": OLD}, "unchanged"),
    "same-place": ({"mixer.py": OLD + "\n\ndef later():\n    return 1\n"}, "unchanged"),
    "body-changed": ({"mixer.py": OLD.replace("return y + z", "return y - z")}, "body-changed"),
    "moved-module": ({"mixer.py": "X = 1\n", "elsewhere.py": OLD}, "moved"),
    "renamed-behind-shim": ({"mixer.py": SHIM, "mixing.py": OLD.replace("class Mixer:", "class NewMixer:")}, "renamed"),
    "renamed-body-overlap": ({"mixer.py": OLD.replace("def run(", "def forward(")}, "renamed"),
    "deleted": ({"mixer.py": "X = 1\n"}, "deleted"),
    "decorators-changed": ({"mixer.py": OLD.replace("    def run(", "    @cached\n    def run(")}, "decorators-changed"),
}  # and the two rows below, split-into-helpers and wrapped-by-decorator

# The attention part of run() went into a helper run() calls; the doubling and tripling stayed.
SPLIT = OLD.replace(
    """        h = self.norm(x)
        h = self.attn(h)
        h = self.norm(h)
""",
    """        h = self.mix(x)
""",
).replace(
    "        return y + z\n",
    """        return y + z

    def mix(self, x):
        h = self.norm(x)
        h = self.attn(h)
        h = self.norm(h)
        return h
""",
)
# The gain update and the total went into a decorator the method now carries (its wrapper runs them).
WRAPPED = """
def with_gain(function):
    def wrapper(self, x, scale):
        total = (x + scale) * 2
        self.set_gain(scale)
        return function(self, x, scale)

    return wrapper
""" + OLD.replace("    def run(", "    @with_gain\n    def run(").replace("        total = (x + scale) * 2\n        self.set_gain(scale)\n", "")
CONTAINERS["split-into-helpers"] = ({"mixer.py": SPLIT}, "body-changed")
CONTAINERS["wrapped-by-decorator"] = ({"mixer.py": WRAPPED}, "decorators-changed")


def test_each_container_rule_decides_its_row(demo):
    demo.write_annotation("mixer.yaml", _annotation("y = h * 2"))
    demo.lock(demo.write_source("1.0", {"mixer.py": OLD}))
    for rule, (files, kind) in CONTAINERS.items():
        base = demo.write_source(f"2.0-{rule}", files)
        if rule == "file-unchanged":
            base = demo.write_source("1.0", {"mixer.py": OLD})
        (target,) = demo.check(base).targets
        assert (target.rule, target.kind.value) == (rule, kind), (rule, target.message)


def test_a_split_is_one_container_decision_and_the_moved_steps_land_in_its_helper(demo):
    # A decoy copy of the moved statement sits in a function run() does not call: never the new home.
    decoy = SPLIT + "\n\ndef unrelated(self, x):\n    h = self.attn(h)\n    return h\n"
    report = _check(demo, OLD, decoy, "h = self.attn(h)", "y = h * 2")
    (target,) = report.targets
    assert target.rule == "split-into-helpers" and "Mixer.mix (3)" in target.message, target.message
    steps = _by_key(report)
    assert (steps["s0"].kind.value, steps["s0"].new.target) == ("moved", "Mixer.mix")
    assert (steps["s1"].kind.value, steps["s1"].rule) == ("unchanged", "same-text")


def test_statements_wrapped_into_a_decorator_are_moved_into_its_wrapper(demo):
    report = _check(demo, OLD, WRAPPED, "self.set_gain(scale)", "total = (x + scale) * 2")
    (target,) = report.targets
    assert target.rule == "wrapped-by-decorator" and "decorator added: @with_gain" in target.message, target.message
    assert "demo.mixer.with_gain.wrapper (2)" in target.message
    for step in _by_key(report).values():
        assert (step.kind.value, step.new.target) == ("moved", "with_gain.wrapper"), step.message


# The set-up moved into the base class's method, which run() now calls through super().
INHERITED = """
class Base:
    def run(self, x, scale):
        h = self.norm(x)
        h = self.attn(h)
        h = self.norm(h)
        return h


class Other:
    def run(self, x, scale):
        h = self.attn(h)
        return h
""" + OLD.replace("class Mixer:", "class Mixer(Base):").replace(
    """        h = self.norm(x)
        h = self.attn(h)
        h = self.norm(h)
""",
    """        h = super().run(x, scale)
""",
)


def test_statements_moved_into_the_base_method_called_through_super_are_moved_there(demo):
    report = _check(demo, OLD, INHERITED, "h = self.attn(h)", "y = h * 2")
    (target,) = report.targets
    assert target.rule == "split-into-helpers" and "demo.mixer.Base.run (3)" in target.message, target.message
    steps = _by_key(report)
    assert (steps["s0"].kind.value, steps["s0"].new.target) == ("moved", "Base.run"), steps["s0"].message
    assert steps["s1"].kind.value == "unchanged"


# run() now hands the attention to a method of another object; its class is not known statically.
DELEGATED = """
class Attention:
    def apply_attention(self, h):
        h = self.attn(h)
        return h


class Unrelated:
    def elsewhere(self, h):
        h = self.attn(h)
        return h
""" + OLD.replace("        h = self.attn(h)\n", "        h = self.block.apply_attention(h)\n")


def test_a_statement_moved_into_a_method_called_on_another_object_is_moved_when_one_such_method_holds_it(demo):
    steps = _by_key(_check(demo, OLD, DELEGATED, "h = self.attn(h)"))
    assert (steps["s0"].kind.value, steps["s0"].new.target) == ("moved", "Attention.apply_attention"), steps["s0"].message


def test_two_methods_of_that_name_holding_it_are_not_told_apart(demo):
    twice = DELEGATED.replace("class Unrelated:\n    def elsewhere(", "class Unrelated:\n    def apply_attention(")
    steps = _by_key(_check(demo, OLD, twice, "h = self.attn(h)"))
    assert steps["s0"].kind.value == "changed", steps["s0"].message  # the call that replaced it, in place; never moved


ONE_LINE_IF = """
class Mixer:
    def run(self, image, rgb, rgba):
        image = load(image)
        if rgb: image = image.convert("RGB")
        if rgba: image = image.convert("RGBA")
        return image


def thumbnail(image):
    image = image.convert("RGB")
    return image


def preview(image):
    image = image.convert("RGB")
    return image
"""


def test_a_body_on_its_header_line_is_its_own_statement_in_the_assignment(demo):
    """`if rgb: image = ...` is two statements on one line: the header's step must not take the body's place too
    (DiffSynth 2.1.11 LoadImage.__call__, where look-alikes elsewhere then got the body reported deleted)."""
    new = ONE_LINE_IF.replace(
        "        image = load(image)\n", "        if remote(image):\n            image = fetch(image)\n        else:\n            image = load(image)\n"
    )
    steps = _by_key(_check(demo, ONE_LINE_IF, new, "if rgb:", 'image = image.convert("RGB")', 'image = image.convert("RGBA")'))
    assert [steps[k].kind.value for k in ("s0", "s1", "s2")] == ["unchanged", "unchanged", "unchanged"]
    assert steps["s1"].new is not None and steps["s1"].new.target == "Mixer.run"
