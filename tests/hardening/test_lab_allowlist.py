"""Lab pages: an allow-list after parsing (issue 38, item 3), with the bounds of a lab page (item 7) and of the concept map.

Two small sites are built from the Sphinx test root with the site's extensions (MyST, sphinx-design,
InfraLens): one whose lab pages try to read files and make requests (directive options in a YAML block
and as ``:option:`` lines), one whose lab pages stopped or hung the whole build (a ``javascript:`` button
or card, a toctree glob out of the lab, 300 nested fences, invalid UTF-8, a 25 MB page, a FIFO). Each
hostile page gives a located ``infralens.lab-text`` warning and is neutralised; the build finishes and
the other pages are built; nothing outside the project is published and nobody connects to the loopback
port the pages point at. ``infralens preview`` follows the same rules.

A generated test enumerates every directive and role the site's Sphinx app registers and checks each one
is classified by :mod:`infralens.sphinx.lab_allow`; another reads every page of the project's own labs
through the same table and finds nothing refused.
"""

from __future__ import annotations

import ast
import io
import os
import re
import shutil
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")
pytest.importorskip("sphinx_design")

from _deadline import deadline
from sphinx.testing.util import SphinxTestApp

from infralens.annotations import load_concepts
from infralens.maintainer.preview import build_preview, choose_page
from infralens.project import find_project

ROOT = Path(__file__).resolve().parents[1] / "sphinx" / "roots" / "test-basic"
REPO = Path(__file__).resolve().parents[2]
SECRET = "LAB-ALLOWLIST-SECRET-41c7"
LAB = "labs/lab-01-toy"


def _site_settings() -> dict[str, list[str]]:
    """``extensions`` and ``myst_enable_extensions`` as the site's ``docs/conf.py`` sets them."""
    tree = ast.parse((REPO / "docs" / "conf.py").read_text("utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in ("extensions", "myst_enable_extensions"):
            found[node.targets[0].id] = ast.literal_eval(node.value)
    return found


SITE = _site_settings()
CONF = f"\nextensions = {[e for e in SITE['extensions'] if e != 'infralens.sphinx.coverage']!r}\nmyst_enable_extensions = {SITE['myst_enable_extensions']!r}\n"


@contextmanager
def loopback() -> Iterator[tuple[int, list[object]]]:
    """A port on 127.0.0.1 that records who connects (and hangs up on them at once); ``(port, connections)``."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    seen: list[object] = []
    stop = threading.Event()

    def accept() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # the deadline's alarm must reach the main thread
        while not stop.is_set():
            try:
                connection, peer = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            seen.append(peer)
            connection.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], seen
    finally:
        stop.set()
        thread.join(2)
        server.close()


def build(tmp: Path, pages: dict[str, str | bytes | None]) -> tuple[Path, Path, str, int]:
    """Build the test root with these pages in lab 01 (``None``: a FIFO); ``(root, outdir, warnings, status)``."""
    root = tmp / "site"
    shutil.copytree(ROOT, root)
    with (root / "conf.py").open("a") as conf:
        conf.write(CONF)
    for name, text in pages.items():
        path = root / LAB / name
        if text is None:
            os.mkfifo(path)
        elif isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, "utf-8")
    warnings = io.StringIO()
    with deadline(120):  # a FIFO lab page hung the build before (from the app's start: the catalog reads the labs)
        app = SphinxTestApp("html", srcdir=root, warning=warnings)
        try:
            app.build()
        finally:
            app.cleanup()
    return root, Path(app.outdir), re.sub(r"\x1b\[[0-9;]*m", "", warnings.getvalue()), app.statuscode


def published(outdir: Path) -> str:
    """Every file the site would publish (``_sources/`` holds the pages' Markdown as plain text, never rendered)."""
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(outdir.rglob("*")) if p.is_file() and "_sources" not in p.parts)


def line_of(text: str, start: str, nth: int = 1) -> int:
    """The 1-based line of the ``nth`` line of ``text`` starting with ``start``."""
    found = [n for n, line in enumerate(text.split("\n"), 1) if line.startswith(start)]
    return found[nth - 1]


def lab_text_at(warnings: str, root: Path, page: str) -> set[int]:
    """The lines of the lab's own ``page`` that have an ``infralens.lab-text`` warning."""
    prefix = f"{root / LAB / page}:"
    return {int(w[len(prefix) :].split(":", 1)[0] or 0) for w in warnings.splitlines() if w.startswith(prefix) and "[infralens.lab-text]" in w}


GOOD = """# Good page

:::{dropdown} Answers
The answer is $x^2$.
:::

```{note}
A note that stays.
```

```{code-block} python
print("kept")
```

A [good link](https://example.org) and {doc}`the lab <index>`.
"""

# Build 1: pages that read files of the build machine or make a request.


def reading_pages(secret: Path, port: int) -> dict[str, str | bytes | None]:
    url = f"http://127.0.0.1:{port}/data.csv"
    return {
        "good.md": GOOD,
        "csv-file.md": (
            f"# CSV\n\n```{{csv-table}}\n---\nfile: {secret}\n---\n```\n\n"
            "```{csv-table}\n---\nfile: ../../../../secret.txt\n---\n```\n\n"
            '```{csv-table}\n---\nfile: /etc/passwd\ndelim: ":"\n---\n```\n\n'
            f":::{{csv-table}}\n:file: {secret}\n:::\n"
        ),
        "csv-url.md": f"# URL\n\n```{{csv-table}}\n---\nurl: {url}\n---\n```\n\n```{{csv-table}}\n:url: {url}\n```\n",
        "include.md": (
            f"# Include\n\n```{{include}} {secret}\n---\nliteral: true\n---\n```\n\n"
            f"```{{include}} {secret}\n:literal:\n```\n\n"
            f"```{{literalinclude}} {secret}\n---\nlanguage: text\n---\n```\n\n"
            f":::{{literalinclude}} {secret}\n:lines: 1\n:::\n\n"
            f"```{{raw}} html\n---\nfile: {secret}\n---\n```\n\n"
            "```{function} evil()\n```\n\n"
            f"And {{download}}`a file <{secret}>`.\n"
        ),
    }


@pytest.fixture(scope="module")
def reading(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lab-reads")
    secret = tmp / "secret.txt"
    secret.write_text(f"{SECRET},{SECRET}\n")
    with loopback() as (port, seen):
        root, outdir, warnings, status = build(tmp, reading_pages(secret, port))
    return root, outdir, warnings, status, list(seen)


def _passwd_cells() -> set[str]:
    passwd = Path("/etc/passwd")
    if not passwd.is_file():
        return set()
    return {cell for line in passwd.read_text("utf-8", "replace").splitlines() for cell in line.split(":")[5:7] if len(cell) > 8}


def test_csv_table_options_in_a_yaml_block_read_no_file(reading):
    root, outdir, warnings, status, _ = reading
    text = (root / LAB / "csv-file.md").read_text("utf-8")
    expected = {line_of(text, "```{csv-table}", n) for n in (1, 2, 3)} | {line_of(text, ":::{csv-table}")}
    assert expected <= lab_text_at(warnings, root, "csv-file.md"), warnings
    site = published(outdir)
    assert SECRET not in site
    assert not any(cell in site for cell in _passwd_cells())
    assert status == 0 and (outdir / "_infralens" / LAB / "csv-file.html").is_file()
    good = (outdir / "_infralens" / LAB / "good.html").read_text("utf-8")  # the lab's other pages are built as written
    assert "A note that stays." in good and "print" in good and 'href="https://example.org"' in good and "Answers" in good
    assert (outdir / "_infralens" / LAB / "index.html").is_file() and (outdir / "index.html").is_file()


def test_csv_table_url_makes_no_request(reading):
    root, _, warnings, _, seen = reading
    text = (root / LAB / "csv-url.md").read_text("utf-8")
    assert seen == []
    assert {line_of(text, "```{csv-table}", 1), line_of(text, "```{csv-table}", 2)} <= lab_text_at(warnings, root, "csv-url.md"), warnings


def test_include_literalinclude_and_raw_are_refused_in_both_option_syntaxes(reading):
    root, outdir, warnings, _, _ = reading
    text = (root / LAB / "include.md").read_text("utf-8")
    expected = {line_of(text, "```{include}", 1), line_of(text, "```{include}", 2), line_of(text, "```{literalinclude}"), line_of(text, ":::{literalinclude}")}
    expected |= {line_of(text, "```{raw}"), line_of(text, "```{function}"), line_of(text, "And {download}")}
    assert expected <= lab_text_at(warnings, root, "include.md"), warnings
    assert SECRET not in published(outdir)


# Build 2: pages that stopped or hung the whole build.


def _cells(levels: int) -> str:
    """Tables nested in each other's cells, each cell a note holding 15 quote levels: MyST parses a cell, so each table
    is nested in the one before, in lines no Markdown parser of the page sees as fences (25 levels stopped the build)."""
    text = "deep"
    for level, quote in enumerate("0123456789ABCFGHIJKLMNOQRSUVWYZ"[:levels], 1):
        body = "\n".join("> " * 15 + line for line in text.split("\n"))
        fence = "`" * (3 + level)
        text = f"{fence}{{csv-table}}\n:quote: {quote}\n\n{quote}:::{{note}}\n{body}\n:::{quote}\n{fence}"
    return text


NESTED = (
    "# Nested\n\n" + "".join(":" * (303 - level) + "{note}\n" for level in range(300)) + "deep\n" + "".join(":" * (4 + level) + "\n" for level in range(300))
)


def stopping_pages() -> dict[str, str | bytes | None]:
    return {
        "index.md": "# Lab 01: Toy blending\n\n```{toctree}\n:glob:\n\n../../../*\ngood\n```\n\n```{infralens-function} toypkg.mixing.blend\n```\n",
        "good.md": GOOD,
        "button.md": "# Button\n\n```{button-link} javascript:alert('button')\nPress\n```\n\nAfter the button.\n",
        "card.md": (
            "# Card\n\n```{card} Title\n:link: javascript:alert('card')\n\nCard body stays.\n```\n\n"
            '```{card} Second\n---\nlink: "JaVaScRiPt:alert(2)"\n---\nSecond body.\n```\n'
        ),
        "nested.md": NESTED,
        "cells.md": "# Cells\n\n" + _cells(25) + "\n\nAfter the cells.\n",
        "crash.md": "# Crash\n\n```{csv-table}\n:quote: |\n\n|a|\n```\n\nAfter the table.\n",
        "utf8.md": b"# UTF-8\n\nfine line\nbad \xff byte here\n",
        "big.md": b"# Big\n\n" + b"word " * 5_000_000,
        "fifo.md": None,
    }


@pytest.fixture(scope="module")
def stopping(tmp_path_factory):
    return build(tmp_path_factory.mktemp("lab-stops"), stopping_pages())


def test_a_javascript_button_link_is_refused_and_the_build_goes_on(stopping):
    root, outdir, warnings, status = stopping
    assert status == 0
    assert 3 in lab_text_at(warnings, root, "button.md"), warnings
    page = (outdir / "_infralens" / LAB / "button.html").read_text("utf-8")
    assert "javascript:" not in page.lower() and "After the button." in page


def test_a_javascript_card_link_is_dropped_and_the_card_kept(stopping):
    root, outdir, warnings, _ = stopping
    text = (root / LAB / "card.md").read_text("utf-8")
    assert {line_of(text, "```{card}", 1), line_of(text, "```{card}", 2)} <= lab_text_at(warnings, root, "card.md"), warnings
    page = (outdir / "_infralens" / LAB / "card.html").read_text("utf-8")
    assert "javascript:" not in page.lower() and "Card body stays." in page and "Second body." in page


def test_a_toctree_glob_stays_inside_the_lab(stopping):
    root, outdir, warnings, status = stopping
    assert status == 0 and 3 in lab_text_at(warnings, root, "index.md"), warnings
    page = (outdir / "_infralens" / LAB / "index.html").read_text("utf-8")
    toctree = page.split('class="toctree-wrapper', 1)[1].split("</div>", 1)[0]
    assert "plain.html" not in toctree and "../../../index.html" not in toctree and "good.html" in toctree


def test_300_nested_fences_are_cut_at_the_depth_limit(stopping):
    root, outdir, warnings, _ = stopping
    assert lab_text_at(warnings, root, "nested.md"), warnings
    assert (outdir / "_infralens" / LAB / "nested.html").is_file()


def test_directives_nested_in_table_cells_are_cut_at_the_depth_limit(stopping):
    root, outdir, warnings, _ = stopping
    assert any("nests blocks more than" in w for w in warnings.splitlines() if f"{root / LAB / 'cells.md'}:" in w), warnings
    assert "After the cells." in (outdir / "_infralens" / LAB / "cells.html").read_text("utf-8")


def test_an_option_that_crashed_its_parser_is_an_invalid_option(stopping):
    _, outdir, warnings, _ = stopping
    assert any("crash.md:" in w and "Invalid option value for 'quote'" in w for w in warnings.splitlines()), warnings
    assert "After the table." in (outdir / "_infralens" / LAB / "crash.html").read_text("utf-8")


def test_invalid_utf8_is_reported_at_its_line_and_the_page_built(stopping):
    root, outdir, warnings, _ = stopping
    assert 4 in lab_text_at(warnings, root, "utf8.md"), warnings
    page = (outdir / "_infralens" / LAB / "utf8.html").read_text("utf-8")
    assert "fine line" in page and "bad \N{REPLACEMENT CHARACTER} byte here" in page


def test_a_25_mb_page_is_left_out_with_a_warning(stopping):
    root, outdir, warnings, _ = stopping
    assert any(f"{root / LAB / 'big.md'}:" in w and "[infralens.lab-text]" in w and "1,000,000 bytes" in w for w in warnings.splitlines()), warnings
    assert not (outdir / "_infralens" / LAB / "big.html").exists()


def test_a_fifo_page_is_left_out_without_waiting(stopping):
    root, outdir, warnings, _ = stopping
    assert any(f"{root / LAB / 'fifo.md'}:" in w and "FIFO" in w for w in warnings.splitlines()), warnings
    assert not (outdir / "_infralens" / LAB / "fifo.html").exists()


def test_the_other_pages_of_a_stopping_lab_are_built(stopping):
    _, outdir, _, status = stopping
    good = (outdir / "_infralens" / LAB / "good.html").read_text("utf-8")
    assert status == 0 and "A note that stays." in good and (outdir / "index.html").is_file()


def test_preview_reads_no_file_and_makes_no_request(tmp_path, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text(f"{SECRET},{SECRET}\n")
    root = tmp_path / "project"
    shutil.copytree(ROOT, root)
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    with loopback() as (port, seen):
        pages = reading_pages(secret, port)
        lab = root / LAB
        (lab / "index.md").write_text(str(pages["csv-url.md"]).replace("# URL", "# Lab 01: Toy") + str(pages["csv-file.md"]).replace("# CSV", ""), "utf-8")
        (lab / "utf8.md").write_bytes(b"# UTF-8\n\nbad \xff\n")
        project = find_project(root)
        with deadline(120):
            built = build_preview(project, choose_page(project, "01-toy"), tmp_path / "out")
        assert seen == []
    assert not any(SECRET.encode() in path.read_bytes() for path in (tmp_path / "out").rglob("*") if path.is_file())
    lab_text = [line for line in built.warnings if "[infralens.lab-text]" in line]
    assert any(line.startswith(f"{LAB}/index.md:") for line in lab_text), built.warnings
    assert any(line.startswith(f"{LAB}/utf8.md:3:") for line in lab_text), built.warnings


# The concept map: one bounded reader.


def test_the_concept_map_is_read_bounded_with_located_errors(tmp_path):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with deadline(30):
        read = load_concepts(fifo, None, ("diffusers", "diffsynth"))
    assert read.pairs == () and "FIFO" in read.diagnostics[0].message
    big = tmp_path / "big.yaml"
    big.write_text("- pair: x\n  title: '" + "y" * 2_000_000 + "'\n")
    assert "larger than" in load_concepts(big, None, ("diffusers", "diffsynth")).diagnostics[0].message
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"- pair: ok\n  title: fine\n  same: \xff\n")
    (problem,) = load_concepts(bad, None, ("diffusers", "diffsynth")).diagnostics
    assert (problem.location.line, problem.location.col) == (3, 9) and "0xff" in problem.message


def test_a_lab_page_is_read_bounded_with_located_errors(tmp_path):
    from infralens.annotations import read_lab_page

    page = tmp_path / "page.md"
    page.write_bytes(b"ok\n\xfe\xff\nok\n\x80\n")
    read = read_lab_page(page, "page.md")
    assert read.text == "ok\n\ufffd\ufffd\nok\n\ufffd\n" and [p.location.line for p in read.problems] == [2, 4]


# The table covers every directive and role the site's Sphinx app registers, and the project's own labs pass it.


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    """``(directives, roles)``: every name the site's extensions register, with its class or role function."""
    from docutils.parsers.rst import directives, roles
    from docutils.parsers.rst.languages import en
    from docutils.utils import new_document
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    tmp = tmp_path_factory.mktemp("registry")
    (tmp / "project" / "labs").mkdir(parents=True)  # an empty project: nothing to resolve
    (tmp / "src").mkdir()
    (tmp / "src" / "conf.py").write_text(
        f"extensions = {SITE['extensions']!r}\nmyst_enable_extensions = {SITE['myst_enable_extensions']!r}\n"
        f"infralens_project_root = {str(tmp / 'project')!r}\ninfralens_generate_pages = False\n"
    )
    (tmp / "src" / "index.md").write_text("# Index\n")
    with docutils_namespace():
        app = Sphinx(str(tmp / "src"), str(tmp / "src"), str(tmp / "out"), str(tmp / "doctrees"), "html", status=None, warning=io.StringIO())
        document = new_document("registry")
        found_directives: dict[str, object] = {}
        for name in sorted(set(directives._directives) | set(directives._directive_registry) | set(en.directives)):
            found_directives[name] = directives.directive(name, en, document)[0]
        found_roles = {name: roles.role(name, en, 0, document.reporter)[0] for name in sorted(set(roles._roles) | set(roles._role_registry) | set(en.roles))}
        domains = list(app.env.domains.sorted()) if hasattr(app.env.domains, "sorted") else list(app.env.domains.values())
        for domain in domains:
            found_directives.update({f"{domain.name}:{name}": cls for name, cls in domain.directives.items()})
            found_roles.update({f"{domain.name}:{name}": role for name, role in domain.roles.items()})
    return found_directives, found_roles


FILE_OPTIONS = {"file", "url", "encoding", "parser", "literal", "code", "start-after", "end-before", "start-line", "end-line", "style", "icon"}
"""Option names that read a file or URL, or insert raw markup or styling, in the directives registered today: never allowed."""


def test_every_registered_directive_is_allowed_with_classified_options_or_refused(registry):
    from docutils.parsers.rst.directives.misc import Include

    from infralens.sphinx.lab_allow import DIRECTIVES, REFUSED_DIRECTIVES, REFUSED_DOMAIN_DIRECTIVES

    found, _ = registry
    unclassified = [
        name for name in found if name not in DIRECTIVES and name not in REFUSED_DIRECTIVES and name.partition(":")[0] not in REFUSED_DOMAIN_DIRECTIVES
    ]
    assert unclassified == [], f"classify these in infralens.sphinx.lab_allow: {unclassified}"
    assert set(DIRECTIVES) | set(REFUSED_DIRECTIVES) <= set(found) | {"eval-rst"}, "the table names directives nobody registers"
    for name, rule in DIRECTIVES.items():
        cls = found[name]
        spec = set(getattr(cls, "option_spec", None) or {})
        assert not issubclass(cls, Include), f"{name}: MyST reads an include-like directive's file without running it"
        assert spec == rule.options | rule.refused_options and not rule.options & rule.refused_options, (
            f"{name}: classify {sorted(spec ^ (rule.options | rule.refused_options))}"
        )
        assert not rule.options & FILE_OPTIONS and rule.links <= rule.options, name


def test_every_registered_role_is_allowed_or_refused(registry):
    from infralens.sphinx.lab_allow import LINK_ROLES, REFUSED_DOMAIN_ROLES, REFUSED_ROLES, ROLES

    _, found = registry
    unclassified = [name for name in found if name not in ROLES | LINK_ROLES | REFUSED_ROLES.keys() and name.partition(":")[0] not in REFUSED_DOMAIN_ROLES]
    assert unclassified == [], f"classify these in infralens.sphinx.lab_allow: {unclassified}"
    assert ROLES | LINK_ROLES | REFUSED_ROLES.keys() <= set(found), "the table names roles nobody registers"
    assert not ROLES & REFUSED_ROLES.keys() and not LINK_ROLES & REFUSED_ROLES.keys()


def _blocks(markdown, text: str) -> Iterator[tuple[str, str, str, int, list]]:
    """``(name, argument line, body, line, inline tokens)`` of every directive (nested ones too) and ``("", …)`` for the top level."""
    work = [(text, 0)]
    while work:
        chunk, offset = work.pop()
        tokens = markdown.parse(chunk)
        yield "", "", "", offset, [child for token in tokens if token.type == "inline" for child in token.children or ()]
        for token in tokens:
            info = token.info.strip()
            if token.type in ("fence", "colon_fence") and info.startswith("{") and "}" in info:
                name, first = info[1 : info.index("}")].lower(), info[info.index("}") + 1 :].strip()
                yield name, first, token.content, offset + token.map[0] + 1, []
                if name not in ("code-block", "code", "math"):
                    work.append((token.content, offset + token.map[0] + 1))


def test_the_projects_own_labs_use_nothing_the_table_refuses(registry):
    from myst_parser.config.main import MdParserConfig
    from myst_parser.mdit_to_docutils.sphinx_ import SphinxRenderer
    from myst_parser.parsers.directives import parse_directive_text
    from myst_parser.parsers.mdit import create_md_parser

    from infralens.annotations import read_lab_page
    from infralens.sphinx.lab_allow import directive_rule, judge, link_refusal, role_refusal
    from infralens.sphinx.lab_policy import refusals

    classes, _ = registry
    markdown = create_md_parser(MdParserConfig(enable_extensions=set(SITE["myst_enable_extensions"])), SphinxRenderer)
    pages = sorted((REPO / "labs").glob("lab-*/**/*.md"))
    assert len(pages) >= 18
    problems = []
    for page in pages:
        read = read_lab_page(page, str(page))
        assert read.text is not None and read.problems == (), read.problems
        problems += [(page, line, reason) for line, reason, _, _ in refusals(markdown, read.text)]
        for name, first, body, line, inline in _blocks(markdown, read.text):
            problems += [(page, line, role_refusal(token.meta["name"])) for token in inline if token.type == "myst_role" and role_refusal(token.meta["name"])]
            problems += [
                (page, line, link_refusal(str(token.attrGet("href"))))
                for token in inline
                if token.type == "link_open" and link_refusal(str(token.attrGet("href")))
            ]
            if not name:
                continue
            rule = directive_rule(name)
            if isinstance(rule, str):
                problems.append((page, line, f"{name}: {rule}"))
                continue
            parsed = parse_directive_text(classes[name], first, body)
            verdict = judge(rule, parsed.options, parsed.arguments)
            if verdict.refusal or verdict.dropped:
                problems.append((page, line, f"{name}: {verdict}"))
    assert problems == []
