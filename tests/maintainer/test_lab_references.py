"""``validate`` checks the lab pages' directives and the concept map against the annotations, at the lab file and line."""

from __future__ import annotations

from pathlib import Path

from infralens.annotations import directive_uses
from infralens.cli import main

ANNOTATION = """\
id: sched-step
lab: 01-lab
source: fakedist
target: fakedist.sched.Sched.step
summary: One step of a made-up sampler.
scenario: fake-scenario
steps:
  - at: "prev = t - 1"
    note: The previous timestep.
"""

PAGE = """\
# Lab one

```{infralens-function} fakedist.sched.Sched.step
```

```{infralens-function} fakedist.sched.Sched.stpe
```

:::{dropdown} More
```{infralens-compare}
:diffusers: fakedist.sched.combine
```
:::

```{infralens-concept} no-such-pair
```

````markdown
```{infralens-function} only.an.example
```
````

```{infralens-fuction} fakedist.sched.Sched.step
```
"""

PROSE = (
    "A long enough paragraph about how the two functions relate, written so that the concept map accepts it as prose and not a label, "
    "twenty-five words at least."
)

CONCEPTS = f"""\
- pair: step-pair
  title: Two steps
  diffusers: diffusers.sched.Sched.step
  diffsynth: diffsynth.sched.Sched.step
  same: {PROSE}
  differs: {PROSE}
  read-first: Read the first one.
"""


def _setup(project: Path, page: str = PAGE) -> None:
    (project / "annotations" / "fakedist" / "sched-step.yaml").write_text(ANNOTATION, "utf-8")
    (project / "labs" / "lab-01-lab" / "index.md").write_text(page, "utf-8")
    (project / "labs" / "concepts.yaml").write_text(CONCEPTS, "utf-8")


def test_every_directive_and_concept_pair_is_checked_at_its_line(project, cli, capsys):
    _setup(project)
    assert main(cli("validate")) == 1
    err = capsys.readouterr().err
    page = "labs/lab-01-lab/index.md"
    assert f"{page}:6:1: error: infralens-function: no annotation targets 'fakedist.sched.Sched.stpe' — did you mean fakedist.sched.Sched.step?" in err
    assert f"{page}:11:1: error: infralens-compare :diffusers:: no annotation targets 'fakedist.sched.combine'" in err
    assert f"{page}:15:1: error: no concept pair 'no-such-pair'" in err
    assert f"{page}:23:1: error: unknown directive 'infralens-fuction' — did you mean infralens-function?" in err
    assert "only.an.example" not in err  # an example inside a code block is not a directive
    assert "labs/concepts.yaml:1:3: error: concept pair 'step-pair' (diffusers): no annotation targets 'diffusers.sched.Sched.step'" in err
    assert "labs/concepts.yaml:1:3: error: concept pair 'step-pair' (diffsynth): no annotation targets 'diffsynth.sched.Sched.step'" in err
    assert err.count("error:") == 6, err


def test_an_annotation_its_lab_does_not_show_is_a_warning(project, cli, capsys):
    _setup(project, "# Lab one\n\nNo directive yet.\n")
    (project / "labs" / "concepts.yaml").unlink()
    assert main(cli("validate")) == 0
    err = capsys.readouterr().err
    assert "annotations/fakedist/sched-step.yaml:1:1: warning: annotation 'sched-step' names lab '01-lab', but no page of that lab shows" in err
    assert "add a directive to labs/lab-01-lab/index.md: ```{infralens-function} fakedist.sched.Sched.step```" in err
    _setup(project, "# Lab one\n\n```{infralens-function} fakedist.sched.Sched.step\n```\n")
    (project / "labs" / "concepts.yaml").unlink()
    assert main(cli("validate")) == 0
    assert "warning" not in capsys.readouterr().err


def test_directives_are_found_through_fences():
    uses = directive_uses(PAGE, "page.md")
    assert [(u.name, u.argument, u.location.line) for u in uses] == [
        ("infralens-function", "fakedist.sched.Sched.step", 3),
        ("infralens-function", "fakedist.sched.Sched.stpe", 6),
        ("infralens-compare", "", 10),
        ("infralens-concept", "no-such-pair", 15),
        ("infralens-fuction", "fakedist.sched.Sched.step", 23),
    ]
    assert uses[2].options[0].value == "fakedist.sched.combine" and uses[2].options[0].location.line == 11
