"""Table tests: (old source, new source) -> expected classification of every step and the target.

The sources are tiny synthetic modules written here; each row is a kind of upstream change.
"""

from __future__ import annotations

import pytest
from drift_samples import ANNOTATION, OLD_CORE, OTHER, STEP_OF_SAMPLER, _edit, _without

CASES = {
    "identical": (
        {"core.py": OLD_CORE},
        {
            "alpha": ("unchanged", "file-unchanged"),
            "sigma": ("unchanged", "file-unchanged"),
            "guided": ("unchanged", "file-unchanged"),
            "out": ("unchanged", "file-unchanged"),
        },
        "unchanged",
    ),
    "edit-after-target-keeps-hinted-lines": (
        {"core.py": OLD_CORE + "\n\ndef later():\n    return 2\n"},
        {"alpha": ("unchanged", "same-text"), "sigma": ("unchanged", "same-text"), "guided": ("unchanged", "same-text"), "out": ("unchanged", "same-text")},
        "unchanged",
    ),
    "lines-shift": (
        {"core.py": _edit(OLD_CORE, "import math\n", "import math\nimport os\n\n\ndef first():\n    return os.sep\n")},
        {"alpha": ("unchanged", "same-text"), "sigma": ("unchanged", "same-text"), "guided": ("unchanged", "same-text"), "out": ("unchanged", "same-text")},
        "unchanged",
    ),
    "body-changed-around-steps": (
        {"core.py": _edit(OLD_CORE, "        alpha = math.cos", "        t = float(t)\n        alpha = math.cos")},
        {"alpha": ("unchanged", "same-text"), "sigma": ("unchanged", "same-text"), "guided": ("unchanged", "same-text"), "out": ("unchanged", "same-text")},
        "body-changed",
    ),
    "changed-in-place": (
        {"core.py": _edit(OLD_CORE, "alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) ** 2")},
        {"alpha": ("changed", "confident-edit"), "sigma": ("unchanged", "same-text"), "guided": ("unchanged", "same-text"), "out": ("unchanged", "same-text")},
        "body-changed",
    ),
    "deleted-beside-a-similar-sibling": (
        # sigma's line is gone; alpha's line looks like it but is another step's statement.
        {"core.py": _without(OLD_CORE, "        sigma = math.sin(t / self.steps)")},
        {
            "alpha": ("unchanged", "same-text"),
            "sigma": ("deleted", "nothing-corresponds"),
            "guided": ("unchanged", "same-text"),
            "out": ("unchanged", "same-text"),
        },
        "body-changed",
    ),
    "assignment-rewritten": (
        # Little text in common, but it is the only statement still assigning `sigma`.
        {"core.py": _edit(OLD_CORE, "sigma = math.sin(t / self.steps)", "sigma = noise_level(self, t)")},
        {"alpha": ("unchanged", "same-text"), "sigma": ("changed", "edit"), "guided": ("unchanged", "same-text"), "out": ("unchanged", "same-text")},
        "body-changed",
    ),
    "weak-lookalike-without-context-is-deleted": (
        # sigma's line and its neighbours are gone; `sigma_max = math.sinh(t)` looks like it but shares no neighbours
        # (and makes another call: the only `math.sin` call left would be sigma's edit, rule same-call).
        {
            "core.py": _edit(
                OLD_CORE,
                (
                    "        alpha = math.cos(t / self.steps)\n        sigma = math.sin(t / self.steps)\n"
                    "        guided = x * alpha + sigma * 0.5\n        out = guided / (alpha + sigma)\n        return out"
                ),
                "        sigma_max = math.sinh(t)\n        alpha = math.cos(t / self.steps)\n        return alpha * x / sigma_max",
            )
        },
        {
            "alpha": ("unchanged", "same-text"),
            "sigma": ("deleted", "nothing-corresponds"),
            "guided": ("deleted", "decoys-only"),
            "out": ("deleted", "nothing-corresponds"),
        },
        "body-changed",
    ),
    "decoy-same-text-in-another-function": (
        # guided's line left Sampler.step; the very same text still sits in other(): never unchanged, never moved.
        {"core.py": _edit(_without(OLD_CORE, "        guided = x * alpha + sigma * 0.5"), "out = guided / (alpha + sigma)", "out = x / (alpha + sigma)")},
        {"alpha": ("unchanged", "same-text"), "sigma": ("unchanged", "same-text"), "guided": ("deleted", "decoys-only"), "out": ("changed", "confident-edit")},
        "body-changed",
    ),
    "decoy-target-deleted": (
        {"core.py": _edit(OLD_CORE, STEP_OF_SAMPLER, "    def reset(self):\n        self.scale = 0.0")},
        {"alpha": ("deleted", "target-gone"), "sigma": ("deleted", "target-gone"), "guided": ("deleted", "decoys-only"), "out": ("deleted", "target-gone")},
        "deleted",
    ),
    "moved-to-another-module": (
        {
            "core.py": "import math\n\n\n" + OTHER,
            "samplers/__init__.py": "",
            "samplers/sampler.py": OLD_CORE[: OLD_CORE.index("\n\ndef other")] + "\n",
        },
        {
            "alpha": ("moved", "target-relocated"),
            "sigma": ("moved", "target-relocated"),
            "guided": ("moved", "target-relocated"),
            "out": ("moved", "target-relocated"),
        },
        "moved",
    ),
    "renamed-method": (
        {"core.py": _edit(OLD_CORE, "def step(self, x, t):", "def advance(self, x, t):")},
        {
            "alpha": ("moved", "target-relocated"),
            "sigma": ("moved", "target-relocated"),
            "guided": ("moved", "target-relocated"),
            "out": ("moved", "target-relocated"),
        },
        "renamed",
    ),
    "copied-into-two-places-then-deleted": (
        # Two equally good homes: ambiguous, so every step is reported deleted with candidates.
        {
            "core.py": _edit(OLD_CORE, STEP_OF_SAMPLER, "    def reset(self):\n        self.scale = 0.0"),
            "copies.py": "import math\n\n\nclass A:\n"
            + STEP_OF_SAMPLER.replace("def step", "def run")
            + "\n\n\nclass B:\n"
            + STEP_OF_SAMPLER.replace("def step", "def go")
            + "\n",
        },
        {"alpha": ("deleted", "decoys-only"), "sigma": ("deleted", "decoys-only"), "guided": ("deleted", "decoys-only"), "out": ("deleted", "decoys-only")},
        "deleted",
    ),
    "changed-inside-moved-target": (
        {
            "core.py": "import math\n\n\n" + OTHER,
            "samplers/__init__.py": "",
            "samplers/sampler.py": _edit(OLD_CORE[: OLD_CORE.index("\n\ndef other")], "out = guided / (alpha + sigma)", "out = guided / (alpha + sigma + 1e-8)")
            + "\n",
        },
        {
            "alpha": ("moved", "target-relocated"),
            "sigma": ("moved", "target-relocated"),
            "guided": ("moved", "target-relocated"),
            "out": ("changed", "confident-edit"),
        },
        "moved",
    ),
    "decoy-copied-from-clone-keeps-the-line": (
        # Like the DDIMParallelScheduler case: a "# Copied from" clone class still has sigma's line and its
        # neighbours; Sampler.step lost it and does not call the clone, so it is deleted, not moved.
        {
            "core.py": _without(OLD_CORE, "        sigma = math.sin(t / self.steps)")
            + "\n\n# Copied from demo.core.Sampler\nclass ParallelSampler:\n"
            + STEP_OF_SAMPLER.replace("    def step", "    def step", 1)
            + "\n"
        },
        {"alpha": ("unchanged", "same-text"), "sigma": ("deleted", "decoys-only"), "guided": ("unchanged", "same-text"), "out": ("unchanged", "same-text")},
        "body-changed",
    ),
    "moved-into-a-helper-the-target-calls": (
        {
            "core.py": _edit(
                OLD_CORE,
                "        sigma = math.sin(t / self.steps)\n",
                "        sigma, _ = self._noise_level(t)\n",
            ).replace(
                "\n\ndef other",
                "\n\n    def _noise_level(self, t):\n        sigma = math.sin(t / self.steps)\n        return sigma, None\n\n\ndef other",
                1,
            )
        },
        {"alpha": ("unchanged", "same-text"), "sigma": ("moved", "moved-to-reached"), "guided": ("unchanged", "same-text"), "out": ("unchanged", "same-text")},
        "body-changed",
    ),
    "file-no-longer-parses": (
        # A syntax error anywhere in the file: nothing can be said about its steps, and they are not "deleted".
        {"core.py": OLD_CORE + "\n\ndef broken(:\n    pass\n"},
        {
            "alpha": ("unreadable", "unreadable"),
            "sigma": ("unreadable", "unreadable"),
            "guided": ("unreadable", "unreadable"),
            "out": ("unreadable", "unreadable"),
        },
        "unreadable",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_classification_table(demo, case):
    new_files, expected_steps, expected_target = CASES[case]
    old = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", ANNOTATION)
    demo.lock(old)
    new = demo.write_source("2.0", new_files)
    report = demo.check(new)
    got = {s.entry.step_id.split("/")[1]: (s.kind.value, s.rule) for s in report.steps}
    assert got == expected_steps
    assert [t.kind.value for t in report.targets] == [expected_target]
    for step in report.steps:
        if step.kind.value in ("unchanged", "moved"):
            assert step.new is not None and step.new.texts == step.entry.texts, "unchanged/moved must point at the identical text"


def test_decoy_reports_the_other_function_as_a_candidate(demo):
    old = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", ANNOTATION)
    demo.lock(old)
    new_files, _, _ = CASES["decoy-same-text-in-another-function"]
    report = demo.check(demo.write_source("2.0", new_files))
    guided = next(s for s in report.steps if s.entry.step_id.endswith("/guided"))
    assert guided.kind.value == "deleted"
    assert [c.place.target for c in guided.candidates] == ["other"]
    assert guided.candidates[0].scores.locality < 0.6


def test_moved_step_says_where(demo):
    old = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", ANNOTATION)
    demo.lock(old)
    new_files, _, _ = CASES["moved-to-another-module"]
    report = demo.check(demo.write_source("2.0", new_files))
    alpha = next(s for s in report.steps if s.entry.step_id.endswith("/alpha"))
    assert (alpha.new.relpath, alpha.new.module, alpha.new.target) == ("demo/samplers/sampler.py", "demo.samplers.sampler", "Sampler.step")
    assert alpha.scores.quality == "exact"


def test_body_change_is_low_severity_unless_strict(demo):
    old = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", ANNOTATION)
    demo.lock(old)
    new = demo.write_source("2.0", CASES["body-changed-around-steps"][0])
    assert demo.check(new).clean
    assert not demo.check(new, strict=True).clean


def test_repeated_text_in_target_follows_its_occurrence(demo):
    source = """
def run(x):
    x = x + 1
    y = x * 2
    x = x + 1
    return x
"""
    old = demo.write_source("1.0", {"rep.py": source})
    demo.write_annotation(
        "rep.yaml",
        """
id: demo-rep
lab: 01-demo
source: demo
target: demo.rep.run
summary: Same text twice.
steps:
  - at: {contains: "x = x + 1", nth: 2}
    key: second
    note: the second increment
""",
    )
    demo.lock(old)
    new = demo.write_source("2.0", {"rep.py": source.replace("    y = x * 2\n", "    z = 0\n    y = x * 2\n")})
    report = demo.check(new)
    (step,) = report.steps
    assert step.kind.value == "unchanged"
    assert step.new.lines[0] == 5  # the second "x = x + 1", now one line lower


def test_block_step_changed_shows_a_diff(demo):
    old = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation(
        "block.yaml",
        """
id: demo-block
lab: 01-demo
source: demo
target: demo.core.Sampler.step
summary: A block.
steps:
  - at: {from: "alpha = math.cos(t / self.steps)", to: "sigma = math.sin(t / self.steps)"}
    key: scales
    note: both scales
""",
    )
    demo.lock(old)
    new = demo.write_source("2.0", {"core.py": _edit(OLD_CORE, "sigma = math.sin(t / self.steps)", "sigma = math.sin(t / self.steps) + 0.1")})
    report = demo.check(new)
    (step,) = report.steps
    assert step.kind.value == "changed"
    from infralens.drift import render_text

    text = render_text(report)
    assert "demo-block/scales: changed:" in text
    assert "+sigma = math.sin(t / self.steps) + 0.1" in text


def test_unreadable_file_says_why(demo):
    old = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", ANNOTATION)
    demo.lock(old)
    new = demo.write_source("2.0", {"core.py": OLD_CORE + "\n\ndef broken(:\n    pass\n"})
    report = demo.check(new)
    assert {s.kind.value for s in report.steps} == {"unreadable"}
    assert "does not parse" in report.steps[0].message and "core.py" in report.steps[0].message


def test_undecodable_file_is_unreadable_not_deleted(demo):
    old = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", ANNOTATION)
    demo.lock(old)
    new = demo.write_source("2.0", {"core.py": OLD_CORE})
    path = new / "demo" / "core.py"
    path.write_bytes(path.read_bytes() + b"\n# \xff\xfe\n")
    report = demo.check(new)
    assert {s.kind.value for s in report.steps} == {"unreadable"}
    assert [t.kind.value for t in report.targets] == ["unreadable"]


FORWARD = """
class Model:
    def forward(self, x, kwargs=None):
        scale = 1.0
        apply_scale(self, scale)
        out = self.layer(x)
        return out
"""

FORWARD_DECORATED = """
def with_scale(name):
    def decorator(fn):
        def wrapper(self, *args, **kwargs):
            scale = 1.0
            apply_scale(self, scale)
            return fn(self, *args, **kwargs)

        return wrapper

    return decorator


class Model:
    @with_scale("kwargs")
    def forward(self, x, kwargs=None):
        out = self.layer(x)
        return out


class Other:
    def forward(self, x):
        scale = 1.0
        apply_scale(self, scale)
        return x
"""

FORWARD_ANNOTATION = """
id: model-forward
lab: 01-demo
source: demo
target: demo.core.Model.forward
summary: A forward pass with a scale.
steps:
  - at: "scale = 1.0"
    key: scale
    note: the default scale
  - at: "apply_scale(self, scale)"
    key: apply
    note: scaled before the layer
  - at: "out = self.layer(x)"
    key: layer
    note: the layer itself
"""


def test_a_statement_moved_into_the_wrapper_of_a_decorator_factory_is_moved_there(demo):
    """The target now carries ``@with_scale(...)``: the wrapper nested in that factory is where the lines went."""
    old = demo.write_source("1.0", {"core.py": FORWARD})
    demo.write_annotation("forward.yaml", FORWARD_ANNOTATION)
    demo.lock(old)
    report = demo.check(demo.write_source("2.0", {"core.py": FORWARD_DECORATED}))
    got = {s.entry.step_id.split("/")[1]: (s.kind.value, s.new.target if s.new else None) for s in report.steps}
    assert got == {
        "scale": ("moved", "with_scale.decorator.wrapper"),
        "apply": ("moved", "with_scale.decorator.wrapper"),
        "layer": ("unchanged", "Model.forward"),
    }
