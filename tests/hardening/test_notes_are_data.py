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


def sphinx_build(root: Path) -> tuple[Path, str]:
    """Build *root* to HTML; the output folder and the warnings (colour codes removed)."""
    warnings = StringIO()
    app = SphinxTestApp("html", srcdir=root, warning=warnings)
    try:
        app.build()
    finally:
        app.cleanup()
    return Path(app.outdir), re.sub(r"\x1b\[[0-9;]*m", "", warnings.getvalue())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("notes")
    root, _ = hostile_root(tmp_path)
    outdir, warnings = sphinx_build(root)
    return all_html(outdir), warnings


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
    assert main(["--project", str(root), "--source", f"toypkg={root / 'src'}", "show", "toypkg.mixing.blend", "--color", "never", "--width", "160"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]", out), repr(out)
    for shown in ("◀ clear \\x1b[2J\\x1b]0;pwned\\x07 screen", "\\x9b31m", "and \\r overwrite"):
        assert shown in out


# Point 1 of the hardening issue: each attack below got through before; now it is refused with an
# infralens.note warning at the annotation's file and line, and nothing of it reaches the site.

OS_RELEASE = Path("/etc/os-release")
NESTED = "```{note}\n" * 300 + "deep"
ATTACKS = {
    "eval-rst-link": ("```{eval-rst}\n`click <javascript:alert('rst')>`_\n```", "{eval-rst} is refused in notes"),
    "vbscript-link": ("[v](VBScript:msgbox(1)) and <vbscript:msgbox(2)>", "a link with the 'vbscript' scheme is refused"),
    "data-link": ("[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", "a link with the 'data' scheme is refused"),
    "disguised-links": (
        "[a]( JaVaScRiPt:alert(1)) [b](java%0Ascript:alert(2)) [c](&#106;avascript:alert(3)) [d](file:///etc/passwd)",
        "a link with the 'javascript' scheme is refused",
    ),
    "meta-refresh": ("```{eval-rst}\n.. meta::\n   :http-equiv=refresh: 0; url=https://evil.example\n```", "{eval-rst} is refused in notes"),
    "meta-directive": ("```{meta}\n:http-equiv=refresh: 0; url=https://evil.example\n```", "the 'meta' directive is refused in notes"),
    "download": ("{download}`{secret}` and [p](path:{secret}) and [rel]({secret})", "the {download} role is refused in notes"),
    "image": ("```{image} {secret}\n```\n\n![pic]({secret})", "the 'image' directive is refused in notes"),
    "figure": ("```{figure} {secret}\ncaption\n```", "the 'figure' directive is refused in notes"),
    "raw-html-link": ('<a href="javascript:alert(1)">x</a> <meta http-equiv="refresh" content="0">', "raw HTML is refused in notes"),
    "nested": (NESTED, "the note nests markup too deeply to be read"),
}


def attack_root(tmp_path: Path, notes: dict[str, str], summary: str = "s") -> Path:
    """The test root with one more annotation whose notes (and summary) are ``notes`` (and ``summary``)."""
    root = tmp_path / "site"
    shutil.copytree(ROOT, root)
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    relative = Path("..") / secret.name  # from the site's source dir, where Sphinx resolves file paths

    def block(text: str, indent: str) -> str:
        return "\n".join(indent + line for line in text.replace("{secret}", str(relative)).splitlines())

    steps = "".join(f'  - at: {{contains: "spread = "}}\n    key: {key}\n    note: |\n{block(note, "      ")}\n' for key, note in notes.items())
    (root / "annotations" / "toypkg" / "hostile.yaml").write_text(
        f"id: toy-hostile\nlab: 01-toy\nsource: toypkg\ntarget: toypkg.mixing.blend\nsummary: |\n{block(summary, '  ')}\nsteps:\n{steps}"
    )
    return root


def build_site(root: Path) -> tuple[str, str, Path]:
    """The text of every page and of every file copied into the site, the warnings, and the output dir."""
    outdir, warnings = sphinx_build(root)
    copied = [p for folder in ("_downloads", "_images") for p in (outdir / folder).rglob("*") if p.is_file()]
    text = "\n".join(p.read_text("utf-8", errors="replace") for p in [*sorted(outdir.rglob("*.html")), *copied])
    return text, warnings, outdir


FORBIDDEN = ("javascript:", "vbscript:", "data:text/html", "http-equiv", "evil.example", "file:///", SECRET)


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_each_attack_is_refused_with_a_warning_and_left_out(tmp_path, attack):
    note, message = ATTACKS[attack]
    html, warnings, outdir = build_site(attack_root(tmp_path, {attack: note, "kept": "A harmless [link](https://ok.example/) stays."}))
    assert re.search(rf"hostile\.yaml:\d+: WARNING: {re.escape(message)}.*\[infralens\.note\]", warnings), warnings
    for forbidden in FORBIDDEN:
        assert forbidden not in html, forbidden
    assert not list(outdir.glob("_downloads/**/secret*")) and not list(outdir.glob("_images/secret*"))
    assert 'href="https://ok.example/"' in html  # the allowed link and the rest of the page survive


def test_a_summary_cannot_carry_a_javascript_link(tmp_path):
    summary = "[s](javascript:alert('summary'))\n\n```{eval-rst}\n`t <javascript:alert('rst')>`_\n```"
    html, warnings, _ = build_site(attack_root(tmp_path, {"kept": "fine"}, summary=summary))
    assert "javascript:" not in html
    assert re.search(r"hostile\.yaml:\d+: WARNING: a link with the 'javascript' scheme is refused", warnings), warnings
    assert re.search(r"hostile\.yaml:\d+: WARNING: \{eval-rst\} is refused in notes", warnings), warnings


def test_a_site_built_from_every_attack_contains_none_of_them(tmp_path):
    notes = {key: note for key, (note, _) in ATTACKS.items()}
    if OS_RELEASE.is_file():  # a real file of the build machine, by a path relative to the source dir
        notes["os-release"] = f"```{{image}} {'../' * 12}etc/os-release\n```\n\n{{download}}`{'../' * 12}etc/os-release`"
    summary = "[s](javascript:alert('summary')) [t](vbscript:x) [u](data:text/html,<b>x</b>)"
    html, warnings, outdir = build_site(attack_root(tmp_path, notes, summary=summary))
    assert "RecursionError" not in warnings
    for forbidden in (*FORBIDDEN, 'http-equiv="refresh"', "<iframe", "<script>alert"):
        assert forbidden.lower() not in html.lower(), forbidden
    if OS_RELEASE.is_file():
        secret_lines = [line for line in OS_RELEASE.read_text().splitlines() if len(line) > 12]
        assert not any(line in html for line in secret_lines)
        assert not [p for p in outdir.rglob("*os-release*")]
    assert len(re.findall(r"hostile\.yaml:\d+: WARNING: .*\[infralens\.note\]", warnings)) >= len(ATTACKS)


def test_sphinx_warnings_inside_a_note_name_that_notes_file_and_step(tmp_path):
    """Notes of one function from two annotation files are parsed together; a later Sphinx warning
    (an unknown ``{ref}`` label) must still point at the file and step that wrote it."""
    root = tmp_path / "site"
    shutil.copytree(ROOT, root)
    (root / "annotations" / "toypkg" / "second.yaml").write_text(
        "id: toy-second\nlab: 01-toy\nsource: toypkg\ntarget: toypkg.mixing.blend\nsummary: s\nsteps:\n"
        "  - at: {contains: 'spread = '}\n    key: first\n    note: fine\n"
        "  - at: {contains: 'spread = '}\n    key: second\n    note: |\n      see {ref}`no-such-label-xyz` here\n"
    )
    _, warnings = sphinx_build(root)
    lines = [line for line in warnings.splitlines() if "no-such-label-xyz" in line]
    assert lines, warnings
    assert all(line.startswith(f"{root}/annotations/toypkg/second.yaml:10: ") for line in lines), lines
