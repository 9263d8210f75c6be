"""A curly quote inside code (a code span or a fenced block) is an error: readers paste what is there (issue 26, 12b)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from infralens.annotations import curly_quotes_in_code, lab_pages, load_file, load_text
from infralens.annotations.code_quotes import page_diagnostics
from infralens.annotations.concepts import load_concepts
from infralens.cli import main

REPO = Path(__file__).resolve().parents[2]
ERROR = "error: curly quote inside a code span — use straight quotes ' or \""


def quoted(text: str) -> str:
    """The characters found, in order."""
    return "".join(text[at] for at in curly_quotes_in_code(text))


def test_curly_quotes_in_inline_code_are_found_and_prose_is_left_alone() -> None:
    assert quoted("Say ‘hello’, then run `python -c ‘print(1)’` or ``a ` “b”``.") == "‘’“”"
    assert quoted("Prose ‘quotes’ are fine; `code` is straight; \\`not ‘code’\\`.") == ""
    assert quoted("an unmatched ` ‘tick’ stays prose") == ""
    assert quoted("a span `across\na ‘line’` counts\n\nbut `not\n\nacross ‘paragraphs’`") == "‘’"


def test_curly_quotes_in_fenced_code_are_found_and_directives_hold_markdown() -> None:
    text = "```bash\necho “hi”\n```\n~~~\n‘x’\n~~~\n:::{note}\nprose ‘ok’ but `x=‘y’`\n:::\n````{note}\n‘ok’\n```python\nx = ‘1’\n```\n````\n"
    assert quoted(text) == "“”‘’‘’‘’"
    assert quoted("```{code-block} python\nx = ‘1’\n```\n") == "‘’"
    assert quoted("```{math}\n‘x’\n```\n") == ""


def test_a_page_error_names_the_line_and_column() -> None:
    found = page_diagnostics("# Lab\n\nRun `apply(x, type=“leaf”)` now.\n", "labs/lab-01/index.md")
    assert [str(d) for d in found] == [f"labs/lab-01/index.md:3:20: {ERROR}"]


def test_a_note_or_summary_with_a_curly_quote_in_code_does_not_load_clean() -> None:
    text = (
        "id: a\nlab: 01-lab\nsource: pkg\ntarget: pkg.mix.blend\n"
        'summary: "Call `blend(kind=‘x’)`."\n'
        "steps:\n  - at: signal = 1\n    note: |\n      First line.\n      Then `offload(type=“leaf_level”)` runs.\n"
    )
    found = [str(d) for d in load_text(text, "a.yaml").diagnostics]
    assert found == [f"a.yaml:10:26: {ERROR}", f"a.yaml:5:28: {ERROR}"]
    assert not load_text(text.replace("‘", "'").replace("’", "'").replace("“", '"').replace("”", '"'), "a.yaml").diagnostics
    assert not load_text(text.replace("`", ""), "a.yaml").diagnostics  # prose may use typographic quotes


def test_the_concept_map_prose_is_checked_too(tmp_path: Path) -> None:
    words = " ".join(["word"] * 30)
    path = tmp_path / "concepts.yaml"
    path.write_text(
        f"- pair: a-b\n  title: T\n  diffusers: diffusers.a.f\n  diffsynth: diffsynth.a.f\n"
        f"  same: {words}\n  differs: {words} `f(‘x’)`\n  read-first: diffusers\n",
        "utf-8",
    )
    assert [str(d) for d in load_concepts(path, "concepts.yaml", ("diffusers", "diffsynth")).diagnostics] == [f"concepts.yaml:6:{len(words) + 16}: {ERROR}"]


def test_validate_fails_on_a_lab_page_with_a_curly_quote_in_code(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    site = tmp_path / "site" / "pkg"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    (site / "mix.py").write_text("def blend(clean):\n    signal = clean * 2\n    return signal\n")
    root = tmp_path / "project"
    (root / "annotations" / "pkg").mkdir(parents=True)
    (root / "labs" / "lab-01-lab").mkdir(parents=True)
    yaml = "id: a\nlab: 01-lab\nsource: pkg\ntarget: pkg.mix.blend\nsummary: s\nscenario: demo\nsteps:\n  - at: signal = clean * 2\n    note: n\n"
    (root / "annotations" / "pkg" / "a.yaml").write_text(yaml)
    page = root / "labs" / "lab-01-lab" / "index.md"
    page.write_text("# Lab\n\n```python\nblend(kind=‘x’)\n```\n", "utf-8")
    command = ["--project", str(root), "--source", f"pkg={tmp_path / 'site'}", "validate"]
    assert main(command) == 1
    assert f"labs/lab-01-lab/index.md:4:12: {ERROR}" in capsys.readouterr().err
    page.write_text("# Lab\n\n```python\nblend(kind='x')\n```\n\nA ‘quoted’ word in prose.\n", "utf-8")
    assert main(command) == 0


def test_the_sphinx_build_warns_at_the_lab_line(tmp_path: Path) -> None:
    pytest.importorskip("sphinx")
    from test_notes_are_data import ROOT, sphinx_build

    root = tmp_path / "site"
    shutil.copytree(ROOT, root)
    page = root / "labs" / "lab-01-toy" / "index.md"
    page.write_text(page.read_text("utf-8") + "\nRun `blend(kind=“x”)`.\n", "utf-8")
    line = page.read_text("utf-8").splitlines().index("Run `blend(kind=“x”)`.") + 1
    _, warnings = sphinx_build(root)
    assert f"{page}:{line}: WARNING: curly quote inside a code span — use straight quotes ' or \"" in warnings, warnings


def test_the_repositorys_notes_labs_and_concept_map_have_straight_quotes_in_code() -> None:
    problems = [str(d) for path in sorted((REPO / "annotations").rglob("*.yaml")) for d in load_file(path).diagnostics if d.code == "quotes"]
    problems += [str(d) for d in load_concepts(REPO / "labs" / "concepts.yaml", None, ("diffusers", "diffsynth")).diagnostics if d.code == "quotes"]
    pages = lab_pages(REPO / "labs")
    assert len(pages) >= 18
    problems += [str(d) for page in pages for d in page_diagnostics(page.read_text("utf-8"), str(page))]
    assert problems == []
