"""The Sphinx extension on a tiny root over a synthetic package (``roots/test-basic``)."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from sphinx.testing.util import SphinxTestApp

from infralens.sphinx import nodes as il

HTML_TAG = re.compile(r"<[^>]+>")


def build(srcdir: Path, **confoverrides) -> tuple[SphinxTestApp, str]:
    warnings = StringIO()
    app = SphinxTestApp("html", srcdir=srcdir, warning=warnings, confoverrides=confoverrides)
    try:
        app.build()
    finally:
        app.cleanup()
    return app, re.sub(r"\x1b\[[0-9;]*m", "", warnings.getvalue())


def html_of(app: SphinxTestApp, docname: str) -> str:
    return (Path(app.outdir) / f"{docname}.html").read_text("utf-8")


def block_with_line(html: str, line: int) -> str:
    """The HTML of the code block whose lines include ``line``."""
    for block in re.split(r'(?=<div class="il-block )', html):
        if f'-L{line}"' in block.split('<div class="il-notes">')[0]:
            return block
    raise AssertionError(f"no block holds line {line}")


@pytest.mark.sphinx("html", testroot="basic")
def test_builds_without_warnings(app: SphinxTestApp, warning: StringIO) -> None:
    app.build()
    assert warning.getvalue() == ""


@pytest.mark.sphinx("html", testroot="basic")
def test_note_sits_beside_its_line(app: SphinxTestApp) -> None:
    app.build()
    block = block_with_line(html_of(app, "index"), 16)
    assert "il-annotated" in block.split(">")[0]
    code, notes = block.split('<div class="il-notes">')
    assert re.search(r'<span class="il-line il-marked" id="il-blend-L16" style="--il-hang:23ch">.*signal', code)
    assert 'data-first-line="16"' in notes and "The clean part keeps weight" in notes
    # Real line numbers from the file, not counted from 1.
    assert '<a class="il-ln" href="#il-blend-L6" aria-hidden="true">6</a>' in html_of(app, "index")


@pytest.mark.sphinx("html", testroot="basic")
def test_doctree_structure(app: SphinxTestApp) -> None:
    app.build()
    doctree = app.env.get_doctree("index")
    [view] = list(doctree.findall(il.infralens_function))
    notes = list(view.findall(il.infralens_note))
    assert [n["ids"] for n in notes] == [["toy-blend-signal"], ["toy-blend-result"]]
    assert len([f for f in view.findall(il.infralens_fold) if "il-fold" in f["classes"]]) == 1  # one unannotated stretch
    assert len([f for f in view.findall(il.infralens_fold) if "il-claims-fold" in f["classes"]]) == 1  # the one note with expects
    assert any(isinstance(m, il.infralens_math) for m in notes[0].findall(il.infralens_math))


@pytest.mark.sphinx("html", testroot="basic")
def test_long_unannotated_stretch_is_folded_but_present(app: SphinxTestApp) -> None:
    app.build()
    html = html_of(app, "index")
    folded = re.search(r'<details class="il-fold"><summary[^>]*>(.*?)</summary>(.*?)</details>', html, re.S)
    assert folded, "the docstring should be folded"
    assert "6 unannotated lines (8–13)" in folded.group(1)
    assert all(f'id="il-blend-L{n}"' in folded.group(2) for n in range(8, 14))
    assert 'id="il-blend-L16"' not in folded.group(2)


@pytest.mark.sphinx("html", testroot="basic")
def test_permalink_per_note_and_upstream_link(app: SphinxTestApp) -> None:
    app.build()
    html = html_of(app, "index")
    assert '<aside class="il-note" data-first-line="20"' in html
    assert re.search(r'id="toy-blend-result".*?<a class="il-permalink headerlink" href="#toy-blend-result"', html, re.S)
    assert 'href="https://example.org/toypkg/v1.2.3/toypkg/mixing.py#L6-L20"' in html
    assert "toypkg 1.2.3" in html


def verify_report(statuses: dict[str, str]) -> str:
    """A complete mutation-run verification report (reports must follow the reports schema) with these step statuses:
    a passed step's expect held and rejected an operator mutant of its statement."""
    held = [{"expr": "signal >= 0", "passed": True, "observed": "signal=0.4472, clean=0.5", "line": 12, "evaluations": 1}]

    def caught(step: str) -> dict[str, object]:
        record = {"kind": "operator", "verdict": "caught", "change": "signal = clean - noise", "caught_by": step}
        return {"tried": 1, "killed": 1, "killed_by": {"expect": 1}, "records": [record]}

    steps = {
        step: {"status": status, "times_ran": 1, "file": "annotations/toypkg/blend.yaml", "line": 1, "expects": held if status == "passed" else []}
        | ({"mutants": caught(step)} if status == "passed" else {})
        for step, status in statuses.items()
    }
    document = {
        "format": 1,
        "created": "2026-11-21T12:00:00Z",
        "device": "cpu",
        "device_name": None,
        "versions": {},
        "stubbed_modules": [],
        "scenarios": {},
        "steps": steps,
    }
    return json.dumps(document)


def drift_report(kinds: dict[str, str]) -> str:
    """A complete drift report (as ``infralens check --format json`` writes it) with these step kinds."""
    old = {"distribution": "toypkg", "version": "1.2.3", "source": "toypkg/mixing.py", "module": "toypkg.mixing", "target": "blend", "lines": [6, 6]}
    steps = {
        step: {
            "annotation": step.split("/")[0],
            "file": "annotations/toypkg/blend.yaml",
            "line": 1,
            "kind": kind,
            "severity": "none" if kind == "unchanged" else "warning",
            "message": "",
            "ambiguous": False,
            "old": old,
            "new": None,
            "scores": None,
            "diff": [],
            "candidates": [],
        }
        for step, kind in kinds.items()
    }
    counts = {name: sum(kind == name for kind in kinds.values()) for name in ("unchanged", "moved", "changed", "deleted")}
    targets = dict.fromkeys(("unchanged", "body-changed", "moved", "renamed", "deleted"), 0)
    clean = counts["unchanged"] == len(kinds)
    document = {
        "format": 1,
        "created": "2026-11-21T12:00:00Z",
        "infralens": "0.1.0",
        "lock": "annotations/annotations.lock",
        "checked": [],
        "clean": clean,
        "exit_code": 0 if clean else 1,
        "summary": {"steps": counts, "targets": targets, "lock": 0},
        "steps": steps,
        "targets": {},
        "lock_findings": [],
    }
    return json.dumps(document)


@pytest.mark.sphinx("html", testroot="basic")
def test_badges_say_not_checked_without_reports(app: SphinxTestApp) -> None:
    app.build()
    text = HTML_TAG.sub(" ", html_of(app, "index"))
    assert "drift: not checked" in text
    assert "verification: not checked" in text


def test_badges_read_the_reports(fresh_root) -> None:
    root = fresh_root()
    (root / "reports").mkdir()
    (root / "reports" / "verify-cpu.json").write_text(verify_report({"toy-blend/signal": "passed", "toy-blend/result": "failed"}))
    (root / "reports" / "check.json").write_text(drift_report({"toy-blend/signal": "unchanged", "toy-blend/result": "changed"}))
    app, warnings = build(root)
    assert warnings == ""
    text = HTML_TAG.sub(" ", html_of(app, "index"))
    assert "cpu: 1 failed" in text
    assert "drift: 1 changed" in text
    assert re.search(r"il-badge-ok[^>]*>cpu: checked", html_of(app, "index"))
    # What the verification run observed sits under the expect it was observed for.
    page = html_of(app, "index")
    assert re.search(r'&gt;=</span> <span class="pre">0</span></code></p>\s*<p class="il-observed">cpu: signal=0.4472, clean=0.5</p>', page), page


def test_raw_markup_in_a_note_is_refused_and_left_out(fresh_root) -> None:
    root = fresh_root()
    path = root / "annotations" / "toypkg" / "blend.yaml"
    hostile = 'Raw markup: <script>alert("owned")</script> and <b>bold</b>.\n\n```{raw} html\n<script>alert("raw directive")</script>\n```'
    path.write_text(path.read_text() + "".join(f"      {line}\n" for line in hostile.splitlines()))
    app, warnings = build(root)
    html = html_of(app, "index")
    assert "The sum." in html and "Raw markup:" in html
    assert "<script>alert" not in html and "<b>" not in html and "raw directive" not in html
    assert "blend.yaml:13: WARNING: raw HTML is refused in notes" in warnings
    assert "blend.yaml:13: WARNING: the 'raw' directive is refused in notes" in warnings and "[infralens.note]" in warnings


def test_tex_that_did_not_become_math_is_a_warning(fresh_root) -> None:
    """A build check: ``$$`` math inside a list item (MyST leaves it as text) must not reach readers silently."""
    root = fresh_root()
    path = root / "annotations" / "toypkg" / "blend.yaml"
    path.write_text(path.read_text() + "      - the layer computes\n        $$y = W x + \\frac{a}{b} \\, B A x,$$\n        where a is alpha.\n")
    _, warnings = build(root)
    assert "blend.yaml:13: WARNING: a '$' left beside a formula" in warnings and "[infralens.math]" in warnings, warnings
    # Real math on the same page ($\\sqrt{\\alpha}$ in the summary and notes) gives no warning: other tests build it with none.


def test_warnings_name_file_and_line_and_can_be_suppressed(fresh_root) -> None:
    root = fresh_root()
    path = root / "annotations" / "toypkg" / "blend.yaml"
    path.write_text(path.read_text().replace('"return signal + spread"', '"return signal - spread"'))
    _, warnings = build(root)
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "return signal - spread" in text)
    assert f"annotations/toypkg/blend.yaml:{line}: WARNING:" in warnings
    assert "[infralens.resolve]" in warnings
    assert "[infralens.unknown-target]" in warnings  # the unresolved annotation leaves the directive without notes
    _, quiet = build(root, suppress_warnings=["infralens.resolve", "infralens.unknown-target"])
    assert quiet == ""


def test_unknown_target_warns_at_the_directive(fresh_root) -> None:
    root = fresh_root()
    (root / "plain.md").write_text("# Plain\n\n```{infralens-function} toypkg.mixing.blendd\n```\n")
    _, warnings = build(root)
    assert "plain.md:3: WARNING: no annotation targets 'toypkg.mixing.blendd'; did you mean toypkg.mixing.blend?" in warnings


@pytest.mark.sphinx("html", testroot="basic")
def test_generated_pages_link_both_ways(app: SphinxTestApp) -> None:
    app.build()
    browser = HTML_TAG.sub(" ", html_of(app, "_infralens/source/toypkg/index"))
    assert re.search(r"toypkg\.mixing\s.*1 function\(s\), 2 notes", browser, re.S)
    index = html_of(app, "_infralens/source/index")
    assert re.search(r"toypkg.*1\.2\.3.*<td[^>]*>\s*<p>1</p>.*<p>1</p>.*<p>2</p>", index, re.S)
    page = html_of(app, "_infralens/source/toypkg/toypkg.mixing.blend")
    assert 'href="../../labs/lab-01-toy/index.html"' in page  # back to the lab
    assert "Shown on:" in page and "../../../index.html" in page
    lab = html_of(app, "_infralens/labs/lab-01-toy/index")
    assert "infralens-function" in lab and 'href="../../source/toypkg/toypkg.mixing.blend.html"' in lab
    assert (Path(app.srcdir) / "_infralens/labs/lab-01-toy/starter.py").is_file()


@pytest.mark.sphinx("html", testroot="basic")
def test_math_is_mathml_without_any_cdn(app: SphinxTestApp) -> None:
    app.build()
    for docname in ("index", "plain"):
        html = html_of(app, docname)
        assert "<math" in html
        assert not re.search(r"<script[^>]*mathjax", html, re.I)
        assert not re.search(r'<(script|link)[^>]*(src|href)="(https?:)?//', html), "no asset may come from another host"


@pytest.mark.sphinx("html", testroot="basic")
def test_extension_metadata_is_honest(app: SphinxTestApp) -> None:
    extension = app.extensions["infralens.sphinx"]
    assert extension.parallel_read_safe is True and extension.parallel_write_safe is True
    assert (
        app.registry.get_envversion(app)["infralens.sphinx"] == 3
    )  # 3: a read-only build's pickled project (staging.py) changed shape; an older cached environment is read again


def test_parallel_build_matches_serial(fresh_root) -> None:
    serial_root, parallel_root = fresh_root(), fresh_root(dest="parallel")
    serial, _ = build(serial_root)
    warnings = StringIO()
    parallel = SphinxTestApp("html", srcdir=parallel_root, warning=warnings, parallel=2)
    parallel.build()
    parallel.cleanup()
    assert warnings.getvalue() == ""
    for docname in ("index", "_infralens/source/toypkg/toypkg.mixing.blend", "_infralens/labs/lab-01-toy/index"):
        assert strip_volatile(html_of(parallel, docname)) == strip_volatile(html_of(serial, docname))
    assert "Shown on:" in html_of(parallel, "_infralens/source/toypkg/toypkg.mixing.blend")


def strip_volatile(html: str) -> str:
    return re.sub(r"\?v=[0-9a-f]+", "", html)


def test_touching_one_annotation_rereads_only_its_pages(fresh_root) -> None:
    root = fresh_root()
    (root / "annotations" / "toypkg" / "other.yaml").write_text(
        "id: toy-unused\nlab: 01-toy\nsource: toypkg\ntarget: toypkg.mixing.unused\nsummary: Identity.\n"
        'steps:\n  - at: "return x"\n    note: Returns its argument.\n'
    )
    build(root)
    path = root / "annotations" / "toypkg" / "other.yaml"
    path.write_text(path.read_text().replace("Returns its argument.", "Hands back its argument."))
    reread: list[str] = []
    app = SphinxTestApp("html", srcdir=root, warning=StringIO())
    app.connect("env-before-read-docs", lambda app, env, docnames: reread.extend(docnames))
    app.build()
    app.cleanup()
    assert reread == ["_infralens/source/toypkg/toypkg.mixing.unused"]
    assert "Hands back its argument." in html_of(app, "_infralens/source/toypkg/toypkg.mixing.unused")


def test_a_new_report_updates_the_badges(fresh_root) -> None:
    root = fresh_root()
    app, _ = build(root)
    assert "verification: not checked" in HTML_TAG.sub(" ", html_of(app, "index"))
    (root / "reports").mkdir()
    (root / "reports" / "verify-cpu.json").write_text(verify_report({"toy-blend/signal": "passed", "toy-blend/result": "passed"}))
    app, warnings = build(root)
    assert warnings == ""
    assert "cpu: 2/2 checked" in HTML_TAG.sub(" ", html_of(app, "index"))
    assert "cpu: 2/2 checked" in HTML_TAG.sub(" ", html_of(app, "_infralens/source/toypkg/toypkg.mixing.blend"))
    labs = HTML_TAG.sub(" ", html_of(app, "_infralens/labs/index"))
    assert "How the notes of each lab were verified (cpu;" in labs and "what the words mean" in labs
    assert re.search(r"Lab 01: Toy blending\s+2\s+2\s+0\s+0\s+0\s+0", labs), labs
    assert "only *checked* is green" not in html_of(app, "_infralens/verified") and "mutant" in html_of(app, "_infralens/verified")


@pytest.mark.parametrize(("builder", "suffix"), [("text", "txt"), ("man", "1"), ("texinfo", "texi")])
def test_other_builders_write_a_notes_formula_as_its_latex(fresh_root, builder: str, suffix: str) -> None:
    root = fresh_root()
    app = SphinxTestApp(builder, srcdir=root, warning=StringIO())
    try:
        app.build()
    finally:
        app.cleanup()
    written = "".join(path.read_text("utf-8") for path in Path(app.outdir).rglob(f"*.{suffix}"))
    assert "sqrt" in written and "bar" in written  # the note's $\sqrt{\bar\alpha}$
