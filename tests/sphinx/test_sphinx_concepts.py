"""Comparison pages come only from the concept map, with its prose; a function is drawn once per page."""

from __future__ import annotations

import textwrap
from io import StringIO
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

PROSE_SAME = (
    "Both scale the input by two and return it, so the two functions give the same value for every input they are given here, whatever type of number it is."
)
PROSE_DIFFERS = (
    "The first names its intermediate value while the second returns the product at once, "
    "which changes nothing but the lines a reader has to follow to see the result."
)

CONCEPTS = f"""\
- pair: doubling
  title: Doubling a value
  diffusers: diffusers.ops.double
  diffsynth: diffsynth.ops.twice
  same: {PROSE_SAME}
  differs: {PROSE_DIFFERS}
  read-first: Read the first one first.
"""


def _package(root: Path, name: str, body: str) -> None:
    (root / "src" / name / name).mkdir(parents=True)
    (root / "src" / name / name / "__init__.py").write_text("")
    (root / "src" / name / name / "ops.py").write_text(textwrap.dedent(body))
    info = root / "src" / name / f"{name}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")


def _annotation(root: Path, dist: str, target: str, statement: str) -> None:
    folder = root / "annotations" / dist
    folder.mkdir(parents=True, exist_ok=True)
    text = f"""\
        id: {dist}-op
        lab: 01-toy
        source: {dist}
        target: {target}
        summary: Doubles a value.
        steps:
          - at: "{statement}"
            key: op
            note: Twice the input.
            static: a test fixture
        """
    (folder / "op.yaml").write_text(textwrap.dedent(text))


def _project(tmp_path: Path, concepts: str | None, lab_body: str) -> Path:
    root = tmp_path / "site"
    _package(root, "diffusers", "def double(x):\n    y = x * 2\n    return y\n")
    _package(root, "diffsynth", "def twice(x):\n    return x * 2\n")
    _annotation(root, "diffusers", "diffusers.ops.double", "y = x * 2")
    _annotation(root, "diffsynth", "diffsynth.ops.twice", "return x * 2")
    (root / "labs" / "lab-01-toy").mkdir(parents=True)
    (root / "labs" / "lab-01-toy" / "index.md").write_text("# Lab 01: Toy\n\n" + lab_body)
    if concepts is not None:
        (root / "labs" / "concepts.yaml").write_text(concepts)
    (root / "conf.py").write_text(
        'extensions = ["infralens.sphinx"]\nexclude_patterns = ["src", "labs", "annotations"]\ninfralens_project_root = "."\n'
        'infralens_sources = {"diffusers": "src/diffusers", "diffsynth": "src/diffsynth"}\n'
    )
    (root / "index.md").write_text("# Home\n\n```{toctree}\n_infralens/labs/index\n_infralens/compare/index\n```\n")
    return root


def _build(root: Path) -> tuple[Path, str]:
    app = SphinxTestApp("html", srcdir=root, warning=StringIO())
    try:
        app.build()
    finally:
        app.cleanup()
    return Path(app.outdir), app.warning.getvalue()


BOTH = "```{infralens-function} diffusers.ops.double\n```\n\n```{infralens-compare}\n:diffusers: diffusers.ops.double\n:diffsynth: diffsynth.ops.twice\n```\n"


def test_a_mapped_pair_gets_a_page_with_its_prose_and_links_from_both_functions(tmp_path):
    out, warnings = _build(_project(tmp_path, CONCEPTS, BOTH))
    assert warnings == ""
    page = (out / "_infralens" / "compare" / "doubling.html").read_text("utf-8")
    assert "What is the same" in page and "scale the input by two" in page and "Which to read first" in page
    assert page.count('class="infralens-function') == 2
    index = (out / "_infralens" / "compare" / "index.html").read_text("utf-8")
    assert "Doubling a value" in index and "Lab 01: Toy" in index
    function_page = (out / "_infralens" / "source" / "diffusers" / "diffusers.ops.double.html").read_text("utf-8")
    assert "Same concept elsewhere" in function_page and "diffsynth.ops.twice.html" in function_page and "compare/doubling.html" in function_page


def test_without_a_concept_map_no_pair_is_invented(tmp_path):
    out, warnings = _build(_project(tmp_path, None, BOTH))
    assert warnings == ""
    assert not (out / "_infralens" / "compare" / "01-toy.html").exists()
    assert not list((out / "_infralens" / "compare").glob("*.html")) or [p.name for p in (out / "_infralens" / "compare").glob("*.html")] == ["index.html"]
    function_page = (out / "_infralens" / "source" / "diffusers" / "diffusers.ops.double.html").read_text("utf-8")
    assert "Same concept elsewhere" not in function_page


def test_a_function_is_drawn_once_per_page_and_later_mentions_link_up_to_it(tmp_path):
    out, _ = _build(_project(tmp_path, CONCEPTS, BOTH))
    lab = (out / "_infralens" / "labs" / "lab-01-toy" / "index.html").read_text("utf-8")
    assert lab.count('class="infralens-function') == 2  # double once (not twice), twice once
    assert "is shown" in lab and 'href="#il-double"' in lab
    assert "How the two relate" in lab and "compare/doubling.html" in lab


def test_a_pair_naming_an_unannotated_function_warns_at_its_line(tmp_path):
    broken = CONCEPTS.replace("diffsynth.ops.twice", "diffsynth.ops.thrice")
    _, warnings = _build(_project(tmp_path, broken, BOTH))
    assert "concepts.yaml:1:" in warnings and "no annotation targets diffsynth.ops.thrice" in warnings
