"""Lab pages are published like notes: the same constructs are refused in lab text unless the lab is trusted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from test_notes_are_data import ROOT, SECRET, all_html, sphinx_build

HOSTILE_LAB = """# Lab 01: Toy blending

Read the blend function.

<div onclick="steal()">raw html block</div>

```{{include}} {secret}
```

````{{note}}
Nested:

```{{literalinclude}} {secret}
```
````

```{{csv-table}}
:file: {secret}
```

```{{eval-rst}}
.. raw:: html

   <script>alert('rst')</script>
```

```{{raw}} html
<script>alert("raw")</script>
```

A [bad link](javascript:alert('lab')) and a [good one](https://example.org) and {{download}}`{secret}`.

Inline <span onmouseover="x()">html</span>.

```{{image}} {secret_png}
```

```{{image}} ok.png
```

```{{infralens-function}} toypkg.mixing.blend
```
"""


def build(tmp_path: Path, trusted: list[str] | None = None) -> tuple[str, str, Path]:
    root = tmp_path / "site"
    shutil.copytree(ROOT, root)
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    secret_png = tmp_path / "secret.png"
    secret_png.write_bytes(b"\x89PNG\r\n\x1a\n" + SECRET.encode())
    lab = root / "labs" / "lab-01-toy"
    (lab / "ok.png").write_bytes(b"\x89PNG\r\n\x1a\nfine")
    (lab / "index.md").write_text(HOSTILE_LAB.format(secret=secret, secret_png=secret_png))
    if trusted is not None:
        with (root / "conf.py").open("a") as conf:
            conf.write(f"\ninfralens_trusted_labs = {trusted!r}\n")
    outdir, warnings = sphinx_build(root)
    # Every published file except _sources/ (the page's Markdown as plain text, never rendered).
    files = "\n".join(p.read_bytes().decode("utf-8", "replace") for p in outdir.rglob("*") if p.is_file() and "_sources" not in p.parts)
    if trusted is None:
        assert not any(SECRET.encode() in p.read_bytes() for p in outdir.rglob("*") if p.is_file())
    return all_html(outdir) + files, warnings, lab / "index.md"


@pytest.fixture(scope="module")
def untrusted(tmp_path_factory):
    return build(tmp_path_factory.mktemp("lab"))


def test_a_hostile_lab_page_publishes_none_of_it(untrusted):
    site, _, _ = untrusted
    assert SECRET not in site
    lowered = site.lower()
    for marker in ("<script>alert", 'onclick="steal', 'onmouseover="x', 'href="javascript:alert', "raw html block"):
        assert marker not in lowered, marker
    assert 'href="https://example.org"' in site
    assert "bad link" in site  # the refused link keeps its text (as inert text)
    assert "Read the blend function." in site


def test_each_refusal_names_the_lab_file_and_line(untrusted):
    _, warnings, page = untrusted
    text = page.read_text()
    lines = {n: line for n, line in enumerate(text.splitlines(), 1)}
    found = [w for w in warnings.splitlines() if "[infralens.lab-text]" in w]
    where = {int(w.split(f"{page}:", 1)[1].split(":", 1)[0]) for w in found if f"{page}:" in w}
    expected = {
        n for n, line in lines.items() if line.startswith(("<div", "```{include}", "```{literalinclude}", "```{csv-table}", "```{eval-rst}", "```{raw}"))
    }
    assert expected <= where, (sorted(expected - where), found)
    assert len(found) >= len(expected) + 4  # + the inline html, the javascript: link, the download and the outside image
    assert all(f"{page}:" in w for w in found), found


def test_images_inside_the_lab_folder_are_kept(untrusted):
    site, _, _ = untrusted
    assert "ok.png" in site


def test_a_trusted_lab_is_left_as_written(tmp_path):
    site, warnings, _ = build(tmp_path, trusted=["01-toy"])
    assert "[infralens.lab-text]" not in warnings
    assert "steal()" in site
