"""Notes are data, not markup we trust: hostile notes, built into a real page, come out inert.

Builds the Sphinx extension's small test root (copied from ``tests/sphinx/roots/test-basic``)
with notes full of raw HTML, scripts, ``javascript:`` links and file-including directives,
then searches the built HTML. Also: notes cannot inject terminal escapes into ``infralens show``.
"""

from __future__ import annotations

import re
import shutil
from io import StringIO
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from sphinx.testing.util import SphinxTestApp

ROOT = Path(__file__).resolve().parents[1] / "sphinx" / "roots" / "test-basic"
SECRET = "TOP-SECRET-CONTENT-7f3a"

HOSTILE_NOTES = {
    "raw-html": '<div onclick="steal()">x</div> <img src=x onerror="alert(1)"> <iframe src="https://evil.example"></iframe>',
    "script": "<script>document.cookie</script> and <SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "js-link": "[click me](javascript:alert('link')) and <javascript:alert('auto')> and [ref][r]\n\n[r]: javascript:alert('ref')",
    "js-image": "![pic](javascript:alert('img'))",
    "data-link": "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "include": "```{include} {secret}\n```",
    "literalinclude": "```{literalinclude} {secret}\n```",
    "raw-directive": '```{raw} html\n<script>alert("raw")</script>\n```',
    "eval-rst": "```{eval-rst}\n.. raw:: html\n\n   <script>alert('rst')</script>\n\n.. include:: {secret}\n```",
    "csv-file": "```{csv-table}\n:file: {secret}\n```",
    "entities": "&lt;script&gt;alert('entity')&lt;/script&gt; &#60;script&#62;",
}


def hostile_root(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "site"
    shutil.copytree(ROOT, root)
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    steps = []
    for key, note in HOSTILE_NOTES.items():
        body = "\n".join("      " + line for line in note.replace("{secret}", str(secret)).splitlines())
        steps.append(f'  - at: {{contains: "spread = "}}\n    key: {key}\n    note: |\n{body}\n')
    # One annotation per hostile note would need many statements; one statement can carry many steps
    # only if their keys differ, which they do.
    (root / "annotations" / "toypkg" / "hostile.yaml").write_text(
        "id: toy-hostile\nlab: 01-toy\nsource: toypkg\ntarget: toypkg.mixing.blend\nsummary: '<script>alert(\"summary\")</script>'\nsteps:\n" + "".join(steps)
    )
    return root, secret


def all_html(outdir: Path) -> str:
    return "\n".join(p.read_text("utf-8") for p in sorted(outdir.rglob("*.html")))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("notes")
    root, _ = hostile_root(tmp_path)
    warnings = StringIO()
    app = SphinxTestApp("html", srcdir=root, warning=warnings)
    try:
        app.build()
    finally:
        app.cleanup()
    return all_html(Path(app.outdir)), re.sub(r"\x1b\[[0-9;]*m", "", warnings.getvalue())


def test_every_hostile_note_is_on_the_page(built):
    html, _ = built
    assert "il-hostile" in html or "toy-hostile" in html
    assert "click me" in html and "and <b>" not in html


def test_no_script_or_event_handler_survives(built):
    html, _ = built
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S | re.I)
    for script in scripts:
        assert "alert" not in script and "cookie" not in script, script
    assert not re.search(r"<script[^>]*evil\.example", html, re.I)
    assert not re.search(r"<(img|div|iframe)\b[^>]*\bon(error|click)=", html, re.I)
    assert not re.search(r"<iframe\b", html, re.I)
    assert "&lt;script&gt;" in html  # shown as text


def test_no_javascript_or_data_urls_in_links(built):
    html, _ = built
    assert not re.search(r"""(href|src)\s*=\s*["']?\s*(javascript|data|vbscript):""", html, re.I)


def test_file_including_directives_are_refused_and_warned(built):
    html, warnings = built
    assert SECRET not in html
    assert "hostile.yaml" in warnings and "[infralens.note]" in warnings


def test_terminal_output_escapes_control_characters(tmp_path, capsys, monkeypatch):
    from infralens.cli import main

    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "project"
    shutil.copytree(ROOT, root)
    (root / "annotations" / "toypkg" / "blend.yaml").write_text(
        "id: toy-blend\nlab: 01-toy\nsource: toypkg\ntarget: toypkg.mixing.blend\nsummary: s\nsteps:\n"
        '  - at: "signal = math.sqrt(alpha) * clean"\n    note: "clear \\e[2J\\e]0;pwned\\a screen \\x9b31m and \\r overwrite"\n'
    )
    assert main(["--project", str(root), "--source", f"toypkg={root / 'src'}", "show", "toypkg.mixing.blend", "--color", "never"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]", out), repr(out)
    for shown in ("◀ clear \\x1b[2J\\x1b]0;pwned\\x07 screen", "\\x9b31m", "\\x0d"):
        assert shown in out
