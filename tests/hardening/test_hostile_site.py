"""Issue 27 items 1–5: page-level MyST configuration, math, generated MyST and report strings, symlinked labs.

One site is built from every attack (:mod:`hostile_site`); each class then has its own checks on
that build, and unit checks on the piece that enforces it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from hostile_site import HOSTILE_STRINGS, HOSTILE_TITLE, MATH_PAYLOADS, SECRET, front_matters, history_report, make_hostile_root
from test_notes_are_data import sphinx_build

from infralens.errors import InfralensError
from infralens.maintainer.preview import build_preview, choose_page
from infralens.project import find_project
from infralens.sphinx.mathml import latex_to_mathml, sanitise_mathml
from infralens.sphinx.page_config import clean_front_matter

LIVE_MARKUP = ("<script>alert", "<img src=x", "<iframe", "<svg", "<meta http-equiv", 'href="javascript:', "<b>PWNED", "<i>PWNED")
"""What must never appear as markup in a built page (an escaped ``&lt;script`` is fine)."""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    root, canary = make_hostile_root(tmp)
    outdir, warnings = sphinx_build(root)
    pages = {path: path.read_text("utf-8") for path in outdir.rglob("*.html")}
    return root, canary, outdir, warnings, pages


def _tags(page: str) -> str:
    """The page without the text inside ``<title>`` and attribute values that Sphinx escapes (they cannot run)."""
    return re.sub(r'"[^"]*"', '""', re.sub(r"<title>.*?</title>", "", page, flags=re.S))


# Item 1: page-level MyST configuration.


def test_no_front_matter_spelling_runs_a_substitution(hostile):
    _, canary, _, _, pages = hostile
    assert not canary.exists(), "a page's front matter turned on substitutions and ran a shell command"
    assert not any("cycler" in page and "os.system" not in page for page in pages.values())


@pytest.mark.parametrize("name", sorted(front_matters(Path("/nowhere"))))
def test_each_front_matter_spelling_is_refused_and_reduced_to_allowed_keys(name):
    from myst_parser.config.main import read_topmatter

    text = front_matters(Path("/nowhere"))[name]
    cleaned, refused = clean_front_matter(text)
    assert refused, name
    after = read_topmatter(cleaned) or {}
    assert set(after) <= {"orphan", "nosearch", "nocomments", "tocdepth"}, after
    assert cleaned.count("\n") == text.replace("\r\n", "\n").count("\n")  # the page's lines keep their numbers


def test_a_front_matter_of_allowed_keys_is_left_alone():
    text = "---\norphan: true\ntocdepth: 2\n---\n# Page\n"
    assert clean_front_matter(text) == (text, [])


def test_every_refusal_names_the_lab_file_and_the_key_line(hostile):
    root, _, _, warnings, _ = hostile
    found = [w for w in warnings.splitlines() if "[infralens.page-config]" in w]
    lab = root / "labs" / "lab-01-toy"
    for name in front_matters(Path("/nowhere")):
        assert any(f"{lab / f'fm-{name}.md'}:" in w for w in found), (name, found)
    assert any(f"{lab / 'fm-block.md'}:2:" in w and "'myst'" in w for w in found)
    assert any(f"{lab / 'fm-anchor.md'}:4:" in w for w in found)  # the 'myst' key of the anchored spelling is on line 4
    assert any(f"{root / 'labs' / 'lab-02-trusted' / 'index.md'}:" in w for w in found)  # trusted labs too
    assert any(f"{root / 'plain.md'}:" in w for w in found)  # and the project's own pages
    assert all("_infralens" not in w.split(": WARNING")[0] for w in found)  # the lab's own file, not the staged copy


def test_a_file_parsed_as_myst_by_an_rst_include_cannot_configure_myst(hostile):
    """``.. include:: x :parser: myst_parser.sphinx_`` emits no Sphinx event: MyST's own merge step refuses it."""
    root, canary, _, warnings, _ = hostile
    assert not canary.exists()
    assert re.search(rf"{re.escape(str(root / 'rst-include.rst'))}:1: WARNING: page configuration refused \(myst\)", warnings), warnings


def test_mysts_own_functions_are_left_as_they_are(hostile):
    """The guard is this app's parser and include: MyST's merge step is still MyST's after an InfraLens build."""
    from myst_parser.config import main
    from myst_parser.parsers import docutils_, sphinx_

    assert sphinx_.merge_file_level is main.merge_file_level
    assert docutils_.merge_file_level is main.merge_file_level


def test_a_page_cannot_widen_the_url_schemes(hostile):
    _, _, outdir, _, _ = hostile
    page = (outdir / "_infralens" / "labs" / "lab-01-toy" / "fm-schemes.html").read_text("utf-8")
    assert 'href="javascript:' not in page


# Item 2: formulas.


@pytest.mark.parametrize("latex", MATH_PAYLOADS)
def test_a_formula_never_emits_markup_outside_the_mathml_allow_list(latex):
    markup = latex_to_mathml(latex, False)
    if markup is not None:
        assert set(re.findall(r"</?([a-zA-Z][\w-]*)", markup)) <= {"math", "mrow", "mi", "mo", "mn", "mtext", "mstyle", "mspace"}, markup
        assert not re.search(r"\b(on\w+|href|src|srcdoc|http-equiv)=", markup), markup


def test_ordinary_formulas_still_become_mathml():
    for latex in (
        r"\sqrt{\bar\alpha_t}\,x_0 + \sqrt{1-\bar\alpha_t}\,\epsilon",
        r"\frac{a}{b}",
        r"\text{if } t > 0",
        r"\mathbb{R}^{n\times d}",
        r"\color{red}{x}",
    ):
        assert (latex_to_mathml(latex, True) or "").startswith('<math xmlns="http://www.w3.org/1998/Math/MathML"'), latex


def test_the_sanitiser_escapes_text_and_refuses_the_rest():
    assert sanitise_mathml("<math><mtext>a &lt; b</mtext></math>") == "<math><mtext>a &lt; b</mtext></math>"
    for bad in (
        "<math><mtext><img src=x onerror=alert(1)></mtext></math>",
        '<math><mi href="javascript:x">a</mi></math>',
        '<math><mi mathcolor="red&quot; onload=&quot;x">a</mi></math>',
        "<math><mtext>x</mtext>",
        "<math><!-- c --></math>",
        "<math><annotation-xml encoding='text/html'><script>1</script></annotation-xml></math>",
        "<mi>x</mi>",
    ):
        assert sanitise_mathml(bad) is None, bad


def test_no_formula_on_the_site_carries_live_markup(hostile):
    _, _, _, _, pages = hostile
    for path, page in pages.items():
        for math in re.findall(r"<math\b.*?</math>", page, flags=re.S):
            assert "<img" not in math and "<iframe" not in math and "<meta" not in math and "<svg" not in math, (path, math)
    assert any("il-math-fallback" in page and "\\mbox{&lt;iframe" in page for page in pages.values())  # shown as escaped LaTeX


# Items 3 and 4: strings in generated MyST (concept titles, history report).


def test_no_page_carries_live_markup_from_titles_reports_or_formulas(hostile):
    _, _, _, _, pages = hostile
    assert pages, "the hostile site built no page"
    for path, page in pages.items():
        body = _tags(page)
        for marker in LIVE_MARKUP:
            assert marker not in body, (path, marker, body[max(0, body.find(marker) - 200) : body.find(marker) + 100])


def test_a_one_line_title_with_markup_shows_as_its_text(hostile):
    _, _, outdir, _, _ = hostile
    page = (outdir / "_infralens" / "compare" / "hostile-pair.html").read_text("utf-8")
    heading = re.search(r"<h1>(.*?)<a class=\"headerlink\"", page, flags=re.S)
    assert heading is not None
    shown = html.unescape(heading.group(1)).strip().replace("\u2018", "'").replace("\u2019", "'")
    assert shown == HOSTILE_TITLE  # smart quotes aside, every character, as text


def test_a_title_that_spans_lines_is_refused_at_its_line(hostile):
    root, _, outdir, warnings, pages = hostile
    concepts = root / "labs" / "concepts.yaml"
    line = next(n for n, text in enumerate(concepts.read_text().splitlines(), 1) if "Two lines" in text)
    assert re.search(rf"{re.escape(str(concepts))}:{line}: .*title must be one line", warnings), warnings
    assert not (outdir / "_infralens" / "compare" / "multi-line.html").exists()
    assert not any("alert('title')" in page or "alert(\u2018title\u2019)</script>" in page for page in pages.values())


def test_the_myst_helpers_size_fences_and_refuse_what_cannot_be_escaped():
    from infralens.sphinx.myst_text import UnsafeText, code, doc_link, fenced, name, text

    assert code("a ``` b") == "````a ``` b````" and code("`x") == "`` `x ``"
    assert fenced("diff", ["```", "````{raw} html"]) == ["`````diff", "```", "````{raw} html", "`````"]
    assert fenced("diff", ["a\r\n::error::x"])[1] == "a  ::error::x"  # a line stays a line
    assert text("line\n# heading <b>") == "line \\# heading \\<b\\>"
    assert doc_link("a `b` <c>", "x/y") == "{doc}`x/y`" and doc_link("Title", "x/y") == "{doc}`Title <x/y>`"
    for bad in ("a b", "x\n:maxdepth: 9", "../`x`", ""):
        with pytest.raises(UnsafeText):
            name(bad)
    with pytest.raises(UnsafeText):
        doc_link("t", "x>`{raw}`")


def test_report_strings_stay_text_on_the_matrix_and_the_function_page(hostile):
    _, _, outdir, _, _ = hostile
    matrix = (outdir / "_infralens" / "history.html").read_text("utf-8")
    function = (outdir / "_infralens" / "source" / "toypkg" / "toypkg.mixing.blend.html").read_text("utf-8")
    assert "&lt;script&gt;alert" in matrix and "<script>alert" not in matrix  # generated_by, missing: text
    assert "<img src=x" not in matrix
    assert "PWNED-MARKER-93b2" in function and "<b>PWNED" not in function  # where and the diff: text
    assert "&lt;script&gt;alert(&#x27;diff&#x27;)" in function or "&lt;script&gt;alert('diff')" in function
    assert "Release history" in function


def test_a_release_that_is_not_a_version_makes_the_history_report_refused(tmp_path):
    """A release name carrying markup never reaches the matrix: the report loader refuses it (issue 38, versions)."""
    from infralens.reports import ReportError, dumps_report, load_history_report

    path = tmp_path / "history.json"
    path.write_text(dumps_report(history_report(HOSTILE_STRINGS["release"])))
    with pytest.raises(ReportError, match=r"history\.json"):
        load_history_report(path)


# Item 5: symlinked lab folders and files; preview follows the lab rules.


def test_symlinked_lab_folders_and_files_are_refused_and_not_published(hostile):
    root, _, outdir, warnings, _ = hostile
    assert f"{root / 'labs' / 'lab-99-elsewhere'}:" in warnings and "outside the project" in warnings
    assert f"{root / 'labs' / 'lab-01-toy' / 'linked.md'}:" in warnings
    assert not (outdir / "_infralens" / "labs" / "lab-99-elsewhere").exists()
    assert not any(SECRET.encode() in path.read_bytes() for path in outdir.rglob("*") if path.is_file())


def test_preview_applies_the_lab_rules_and_refuses_symlinked_labs(tmp_path, monkeypatch):
    root, canary = make_hostile_root(tmp_path)
    lab = root / "labs" / "lab-01-toy" / "index.md"
    lab.write_text(lab.read_text() + "\n[bad](javascript:alert('preview'))\n\n<div onclick=\"steal()\">raw</div>\n")
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    project = find_project(root)
    built = build_preview(project, choose_page(project, "01-toy"), tmp_path / "out")
    page = built.index_html.read_text("utf-8")
    assert not canary.exists()
    assert 'href="javascript:' not in page and "steal()" not in page
    assert any("[infralens.lab-text]" in line for line in built.warnings) and any("[infralens.page-config]" in line for line in built.warnings)
    assert not any(SECRET.encode() in path.read_bytes() for path in (tmp_path / "out").rglob("*") if path.is_file())
    with pytest.raises(InfralensError, match="outside the project"):
        choose_page(project, "99-elsewhere")
