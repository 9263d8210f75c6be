"""Issue 27 in a real browser: a site built from every attack opens no dialog and goes nowhere.

The site is :mod:`hostile_site`'s (tests/hardening): substitutions turned on from front matter,
HTML in formulas, markup in concept titles and in ``reports/history.json``, symlinked labs. Each page
is opened in Chromium and hovered, focused and clicked over; no ``alert``/``confirm``/``prompt``
may open, no page may navigate away or refresh itself, and no request may leave the machine.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.browser

HARDENING = Path(__file__).resolve().parents[1] / "hardening"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    sys.path.insert(0, str(HARDENING))
    try:
        from hostile_site import make_hostile_root
    finally:
        sys.path.remove(str(HARDENING))
    root, canary = make_hostile_root(tmp_path_factory.mktemp("hostile-browser"))
    outdir = root / "_build" / "html"
    # Not -W: the site is meant to warn (every attack is refused with a warning); it must still build.
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(root), str(outdir)], capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return outdir, canary


def test_no_page_of_the_hostile_site_opens_a_dialog_or_navigates(browser, hostile_site, serve) -> None:
    outdir, canary = hostile_site
    assert not canary.exists()
    base = serve(outdir)
    pages = sorted(p.relative_to(outdir).as_posix() for p in outdir.rglob("*.html") if "_static" not in p.parts)
    assert any("compare/hostile-pair" in p for p in pages) and any(p.endswith("history.html") for p in pages)
    dialogs: list[str] = []
    foreign: list[str] = []
    for relative in pages:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("dialog", lambda dialog, relative=relative: (dialogs.append(f"{relative}: {dialog.type} {dialog.message}"), dialog.dismiss()))

        def guard(route, relative=relative) -> None:
            url = route.request.url
            if urlparse(url).scheme in ("http", "https", "ws", "wss") and urlparse(url).hostname not in ("127.0.0.1", "localhost"):
                foreign.append(f"{relative}: {url}")
                route.abort()
            else:
                route.continue_()

        page.route("**/*", guard)
        url = f"{base}/{relative}"
        page.goto(url, wait_until="load")
        page.evaluate(
            """() => { for (const el of document.querySelectorAll('math, mtext, h1, a, .il-note, .il-history, .il-matrix td')) {
                 for (const type of ['mouseover', 'mouseenter', 'focus', 'load', 'error']) el.dispatchEvent(new Event(type)); } }"""
        )
        page.wait_for_timeout(300)  # a <meta http-equiv=refresh content=0> or a timer would have fired by now
        assert page.url == url, f"{relative} navigated to {page.url}"
        assert page.evaluate("() => document.querySelectorAll('iframe, meta[http-equiv], img[onerror], svg[onload]').length") == 0, relative
        page.close()
    assert not dialogs, dialogs
    assert not foreign, foreign
