"""``infralens preview`` builds with the site's configuration, names project files, and shows only the page's warnings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from infralens.cli import main

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")
pytest.importorskip("sphinx_design")

SITE_CONF = """\
extensions = ["myst_parser", "sphinx_design", "infralens.sphinx"]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
project = "A site"
infralens_project_root = ".."
"""

ANNOTATION = """\
id: {ident}
lab: 01-lab
source: fakedist
target: {target}
summary: {summary}
scenario: fake-scenario
steps:
  - at: "{at}"
    note: {note}
"""

LAB = """\
# Lab one

```{infralens-function} fakedist.sched.Sched.step
```

See {doc}`a page that does not exist <nowhere>`.

```{infralens-function} fakedist.sched.Sched.nothing
```

:::{dropdown} Answers
The answer is forty-two.
:::
"""


@pytest.fixture
def site(project: Path) -> Path:
    (project / "docs").mkdir()
    (project / "docs" / "conf.py").write_text(SITE_CONF, "utf-8")
    folder = project / "annotations" / "fakedist"
    step = ANNOTATION.format(ident="sched-step", target="fakedist.sched.Sched.step", summary="One step.", at="prev = t - 1", note="The previous timestep.")
    (folder / "sched-step.yaml").write_text(step, "utf-8")
    noisy = ANNOTATION.format(ident="sched-other", target="fakedist.sched.Sched.other", summary="Another.", at="prev = 2", note="Matches nothing.")
    (folder / "sched-other.yaml").write_text(noisy, "utf-8")
    (project / "labs" / "lab-01-lab" / "index.md").write_text(LAB, "utf-8")
    return project


def _preview(cli, what: str, capsys) -> tuple[str, str]:
    code = main(cli("preview", what, "--no-serve", "--out", str(Path(cli()[1]) / "out")))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def test_a_lab_preview_uses_the_sites_extensions(site, cli, capsys):
    _out, err = _preview(cli, "01", capsys)
    assert "Unknown directive type" not in err
    page = (site / "out" / "index.html").read_text("utf-8")
    assert "sd-dropdown" in page and "The answer is forty-two." in page


def test_lab_warnings_name_the_lab_file_and_come_with_validates_checks(site, cli, capsys):
    out, err = _preview(cli, "01", capsys)
    assert "infralens-preview-" not in err and "/tmp" not in err
    assert re.search(r"^labs/lab-01-lab/index\.md:6: WARNING: unknown document: 'nowhere'", err, re.M), err
    assert re.search(r"^labs/lab-01-lab/index\.md:8: WARNING: no annotation targets 'fakedist\.sched\.Sched\.nothing'", err, re.M), err
    assert "labs/lab-01-lab/index.md:8:1: error" not in err  # validate's check of the same directive is not said twice
    assert "warning: annotation 'sched-other' names lab '01-lab', but no page of that lab shows fakedist.sched.Sched.other" in err
    assert not re.search(r"^annotations/fakedist/sched-other\.yaml:\d+: WARNING", err, re.M)  # a function the page does not show
    assert re.search(r"\((\d+) warnings\)", out).group(1) == str(len(err.strip().splitlines()))


def test_a_function_preview_shows_only_that_functions_warnings(site, cli, capsys):
    out, err = _preview(cli, "sched-step", capsys)
    assert "(0 warnings)" in out and err == ""
    out, err = _preview(cli, "sched-other", capsys)
    assert "annotations/fakedist/sched-other.yaml" in err and "infralens-preview-" not in err
