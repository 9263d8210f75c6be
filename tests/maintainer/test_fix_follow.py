"""``infralens fix`` after a rename or a move: each annotation on its own, lab pages and the concept map
follow, notes move into the helper that now holds their statement, and only changed statements are marked."""

from __future__ import annotations

import yaml
from fix_samples import CORE, OTHER_ANNOTATION as OTHER, RENAMED, STEP_ANNOTATION, FixProject


def _list_of(*texts: str) -> str:
    """Several annotations as one YAML list."""
    return "".join("- " + text.replace("\n", "\n  ").rstrip() + "\n" for text in texts)


def _data(path) -> object:
    return yaml.load(path.read_text(), Loader=yaml.CSafeLoader)


def test_a_rename_rewrites_only_its_own_annotation_in_a_multi_annotation_file(fixproject: FixProject, capsys):
    """Issue 27 #7: the new target was set once per file and written into every later annotation."""
    step = STEP_ANNOTATION.replace("# A comment fix keeps.\n", "").replace("id: demo-step", "id: a-step")
    path = fixproject.annotation("both.yaml", _list_of(step, OTHER.replace("id: demo-other", "id: b-other")))
    fixproject.locked()
    new = fixproject.release("2.0", RENAMED.replace("z = y * 2", "z = y * 3"))
    capsys.readouterr()
    assert fixproject.run(new, "fix") == 0
    first, second = _data(path)
    assert first["target"] == "demo.core.EulerSampler.step"
    assert second["target"] == "demo.core.other"
    assert second["steps"][0]["at"] == "z = y * 3" and "review" in second["steps"][0]
    assert fixproject.run(new, "validate") == 0


def test_each_renamed_target_of_a_file_is_named(fixproject: FixProject, capsys):
    """Issue 27 #17: two annotations of one file renamed, two lines of output."""
    init = STEP_ANNOTATION.replace("# A comment fix keeps.\n", "").replace("id: demo-step", "id: a-init").replace("Sampler.step", "Sampler.__init__")
    init = init[: init.index("steps:")] + 'steps:\n  - at: "self.steps = steps"\n    key: steps\n    note: how many\n'
    step = STEP_ANNOTATION.replace("# A comment fix keeps.\n", "").replace("id: demo-step", "id: b-step")
    fixproject.annotation("both.yaml", _list_of(init, step))
    fixproject.locked()
    new = fixproject.release("2.0", RENAMED)
    capsys.readouterr()
    assert fixproject.run(new, "fix") == 0
    out = capsys.readouterr().out
    assert "a-init: target -> demo.core.EulerSampler.__init__" in out and "b-step: target -> demo.core.EulerSampler.step" in out


def test_a_rename_marks_nothing_and_keeps_working_selectors(fixproject: FixProject):
    """Issue 31 #6: byte-identical statements get no review mark; a {contains:} that still matches stays as written."""
    path = fixproject.annotation("s.yaml", STEP_ANNOTATION)
    before = path.read_text()
    fixproject.locked()
    new = fixproject.release("2.0", RENAMED)
    assert fixproject.run(new, "fix") == 0
    assert path.read_text() == before.replace("target: demo.core.Sampler.step", "target: demo.core.EulerSampler.step")


def test_a_changed_statement_is_marked_with_its_text_as_written(fixproject: FixProject):
    path = fixproject.annotation("s.yaml", STEP_ANNOTATION)
    fixproject.locked()
    new = fixproject.release("2.0", CORE.replace("sigma * self.sigmas[t + 1]", "sigma * self.sigmas[t + 1] * 0.5"))
    assert fixproject.run(new, "fix") == 0
    step = _data(path)["steps"][2]
    assert step["at"] == {"contains": "self.sigmas[t + 1]"}  # still finds it: kept
    assert "now: guided = x * alpha + sigma * self.sigmas[t + 1] * 0.5" in step["review"]
    assert "(was: guided = x * alpha + sigma * self.sigmas[t + 1])" in step["review"]
    assert "self . sigmas" not in path.read_text()
    assert sum("review" in s for s in _data(path)["steps"]) == 1


PAGE = """\
# Lab one

```{infralens-function} demo.core.Sampler.step
```

:::{dropdown} Side by side
```{infralens-compare}
:diffusers: demo.core.Sampler.step
:diffsynth: demo.core.other
```
:::

````markdown
```{infralens-function} demo.core.Sampler.step
```
````

The prose names demo.core.Sampler.step too.

~~~{infralens-function} demo.core.Sampler.step
:canonical:
~~~
"""

CONCEPTS = """\
- pair: sampler
  title: A sampler
  diffusers: demo.core.Sampler.step   # the step
  diffsynth: "demo.core.other"
  same: Words about demo.core.Sampler.step.
"""


def test_lab_pages_and_the_concept_map_follow_a_rename_in_the_same_write(fixproject: FixProject, capsys):
    """Issue 31 #2."""
    page = fixproject.root / "labs" / "lab-01-demo" / "index.md"
    page.write_bytes(PAGE.replace("\n", "\r\n").encode())
    concepts = fixproject.root / "labs" / "concepts.yaml"
    concepts.write_text(CONCEPTS)
    fixproject.annotation("s.yaml", STEP_ANNOTATION)
    fixproject.locked()
    new = fixproject.release("2.0", RENAMED)
    capsys.readouterr()
    assert fixproject.run(new, "fix") == 1  # done, with places left for a person
    text = page.read_bytes().decode()
    assert text.count("demo.core.EulerSampler.step") == 3 and "\n" not in text.replace("\r\n", "")
    assert "````markdown\r\n```{infralens-function} demo.core.Sampler.step\r\n" in text  # an example is not a directive
    assert concepts.read_text().splitlines()[2] == "  diffusers: demo.core.EulerSampler.step   # the step"
    err = capsys.readouterr().err
    assert "labs/lab-01-demo/index.md:14: names demo.core.Sampler.step" in err
    assert "labs/lab-01-demo/index.md:18: names demo.core.Sampler.step" in err
    assert "labs/concepts.yaml:5: names demo.core.Sampler.step" in err


HELPER = CORE.replace(
    "        alpha = math.cos(t / self.steps)\n",
    "        alpha = self._scale(t)\n",
).replace(
    "    def step(self, x, t):\n",
    "    def _scale(self, t):\n        alpha = math.cos(t / self.steps)\n        return alpha\n\n    def step(self, x, t):\n",
)


def test_a_note_moves_into_a_new_annotation_of_the_helper(fixproject: FixProject, capsys):
    """Issue 31 #5: the statement moved into a function the target calls; its note goes there, text and marks kept."""
    path = fixproject.annotation("s.yaml", STEP_ANNOTATION.replace("    note: signal scale\n", "    note: signal scale\n    review: my own question\n"))
    fixproject.locked()
    new = fixproject.release("2.0", HELPER)
    capsys.readouterr()
    assert fixproject.run(new, "fix") == 0, capsys.readouterr()
    assert "demo-step/alpha: moved: moved to an annotation of demo.core.Sampler._scale" in capsys.readouterr().out
    assert [s["key"] for s in _data(path)["steps"]] == ["sigma", "guided", "out"]
    helper = fixproject.root / "annotations" / "demo" / "sampler-scale.yaml"
    moved = _data(helper)
    assert moved["target"] == "demo.core.Sampler._scale" and moved["lab"] == "01-demo"
    (step,) = moved["steps"]
    assert step["note"] == "signal scale" and step["at"] == "alpha = math.cos(t / self.steps)" and step["key"] == "alpha"
    assert step["review"].startswith("my own question | infralens fix: moved here from demo.core.Sampler.step")
    assert fixproject.run(new, "validate") == 1  # only the new file's TODO summary is left
    assert "summary still says TODO" in capsys.readouterr().err


def test_a_note_moves_into_an_existing_annotation_of_the_helper(fixproject: FixProject, capsys):
    helper_annotation = """\
id: demo-scale
lab: 01-demo
source: demo
target: demo.core.Sampler._scale
summary: The scale.
steps:
  - at: "return alpha"
    key: ret
    note: returned
"""
    path = fixproject.annotation("s.yaml", STEP_ANNOTATION)
    new = fixproject.release("2.0", HELPER)
    fixproject.locked()
    helper = fixproject.annotation("scale.yaml", helper_annotation)
    capsys.readouterr()
    assert fixproject.run(new, "fix") == 0, capsys.readouterr()
    assert [s["key"] for s in _data(path)["steps"]] == ["sigma", "guided", "out"]
    assert [s["key"] for s in _data(helper)["steps"]] == ["ret", "alpha"]
    assert helper.read_text().startswith(helper_annotation)
    assert fixproject.run(new, "validate") == 0


def test_no_move_notes_only_flags(fixproject: FixProject):
    path = fixproject.annotation("s.yaml", STEP_ANNOTATION)
    fixproject.locked()
    new = fixproject.release("2.0", HELPER)
    assert fixproject.run(new, "fix", "--no-move-notes") == 0
    step = _data(path)["steps"][0]
    assert step["at"] == "alpha = math.cos(t / self.steps)" and "left Sampler.step for" in step["review"]
    assert not (fixproject.root / "annotations" / "demo" / "sampler-scale.yaml").exists()


SCALES = CORE.replace(
    "        alpha = math.cos(t / self.steps)\n        sigma = math.sin(t / self.steps)\n", "        alpha, sigma = self._scales(t)\n"
).replace(
    "    def step(self, x, t):\n",
    (
        "    def _scales(self, t):\n        alpha = math.cos(t / self.steps)\n        sigma = math.sin(t / self.steps)\n"
        "        return alpha, sigma\n\n    def step(self, x, t):\n"
    ),
)
SCALES_ANNOTATION = """\
id: demo-scales
lab: 01-demo
source: demo
target: demo.core.Sampler._scales
summary: The scales.
steps:
  - at: "return alpha, sigma"
    key: ret
    note: returned
"""


def test_two_notes_move_in_order_into_a_crlf_helper_annotation(fixproject: FixProject):
    path = fixproject.annotation("s.yaml", STEP_ANNOTATION)
    fixproject.locked()
    helper = fixproject.annotation("scales.yaml", SCALES_ANNOTATION.replace("\n", "\r\n").encode())
    new = fixproject.release("2.0", SCALES)
    assert fixproject.run(new, "fix") == 0
    assert [s["key"] for s in _data(helper)["steps"]] == ["ret", "alpha", "sigma"]
    assert "\n" not in helper.read_bytes().decode().replace("\r\n", "")
    assert [s["key"] for s in _data(path)["steps"]] == ["guided", "out"]
    assert fixproject.run(new, "validate") == 0


def test_notes_move_into_a_helper_annotation_of_the_same_file(fixproject: FixProject):
    step = STEP_ANNOTATION.replace("# A comment fix keeps.\n", "")
    path = fixproject.annotation("s.yaml", step)
    fixproject.locked()
    path.write_text(_list_of(step, SCALES_ANNOTATION))
    new = fixproject.release("2.0", SCALES)
    assert fixproject.run(new, "fix") == 0
    mine, helper = _data(path)
    assert [s["key"] for s in mine["steps"]] == ["guided", "out"] and [s["key"] for s in helper["steps"]] == ["ret", "alpha", "sigma"]


def test_a_note_that_cannot_move_is_flagged_and_listed(fixproject: FixProject, capsys):
    path = fixproject.annotation("s.yaml", STEP_ANNOTATION)
    fixproject.locked()
    fixproject.annotation("scales.yaml", SCALES_ANNOTATION.replace("key: ret", "key: alpha"))
    new = fixproject.release("2.0", SCALES)
    capsys.readouterr()
    assert fixproject.run(new, "fix") == 1
    assert (
        "annotations/demo/s.yaml:8:5: step demo-step/alpha was not moved: the annotation of demo.core.Sampler._scales already has a step with key 'alpha'"
        in (capsys.readouterr().err)
    )
    assert [s["key"] for s in _data(path)["steps"]] == ["alpha", "guided", "out"]
    assert "move this step to an annotation of that function by hand" in _data(path)["steps"][0]["review"]
