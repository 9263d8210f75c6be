"""How lab pages lay out and respond in a real browser: notes read whole and level with their lines, code unclipped.

Usage: ``.venv/bin/python benchmarks/bench_lab_layout.py [SITE_HTML_DIR]`` (default: build ``docs`` into a temporary
folder first). Opens every lab page in Debian's chromium (Playwright), with only a fresh Debian machine's fonts
(DejaVu, as the browser tests do), at 1440 and 390 px and prints, per page:

- how many notes start within 24 px of where they belong, how many more than 120 px away (and the worst), and
  pairs of notes drawn over each other (tests/browser/note_layout.py says where a note belongs);
- the share of the notes' text a reader sees without a click (words inside the note's visible box, not under
  a button or another note; closed folds and tooltips are not counted) and the notes shown whole;
- the share of code lines that wrap, code cut off beyond reach, line numbers alone on a row, sideways scrolling,
  the page height and its functions;
- at 1440 px, when the page is interactive (the end of the last main-thread task over 50 ms after navigation
  started, or DOMContentLoaded when there is none) and what a window resize costs (from the resize event to the
  frame after the notes near the window were placed again, and until every note was; the mean of a narrowing and
  a widening by 40 px).

Needs /usr/bin/chromium (``make browser-setup``).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # reported when the benchmark starts the browser
    PlaywrightTimeout = TimeoutError
WIDTHS = (1440, 390)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
MEASURE = """() => {
  const lines = [...document.querySelectorAll('.il-line')];
  let wrapped = 0;
  for (const line of lines) {
    const style = getComputedStyle(line);
    const height = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.45;
    if (line.getBoundingClientRect().height > height * 1.5) wrapped += 1;
  }
  let lonely = 0;
  for (const line of lines) {
    const number = line.querySelector('.il-ln');
    if (!number || !number.nextSibling) continue;
    const range = document.createRange(); range.setStartAfter(number); range.setEnd(line, line.childNodes.length);
    const first = [...range.getClientRects()].find(r => r.width > 0);
    if (first && first.top >= number.getBoundingClientRect().bottom - 1) lonely += 1;
  }
  const clipped = [...document.querySelectorAll('.il-code pre')].filter(pre =>
    pre.scrollWidth > pre.clientWidth + 1 && !['auto', 'scroll'].includes(getComputedStyle(pre).overflowX)).length;
  const root = document.scrollingElement;
  return {lines: lines.length, wrapped, lonely, clipped, sideways: root.scrollWidth > root.clientWidth + 1,
          height: root.scrollHeight, functions: document.querySelectorAll('.infralens-function').length};
}"""
TIMING = """() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.startTime + e.duration); })
    .observe({type: 'longtask', buffered: true});
  window.addEventListener('resize', () => {
    window.__resizeStart = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { window.__resizeEnd = performance.now(); }));
  }, true);
}"""
INTERACTIVE = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  return Math.max(nav.domContentLoadedEventEnd, ...window.__longTasks);
}"""


def build(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-d", str(out / "doctrees"), str(REPO / "docs"), str(out / "html")], check=True)
    return out / "html"


def measure(site: Path) -> list[tuple[str, int, dict]]:
    from playwright.sync_api import sync_playwright

    pages = sorted((site / "_infralens" / "labs").glob("lab-*/index.html"))
    rows = []
    sys.path.insert(0, str(REPO / "tests" / "browser"))
    from conftest import fresh_machine_fontconfig  # the browser tests' font set: only a fresh machine's DejaVu
    from note_layout import settled

    with tempfile.TemporaryDirectory() as fonts, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, env=fresh_machine_fontconfig(Path(fonts)))
        for width in WIDTHS:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.add_init_script(f"({TIMING})()")
            for path in pages:
                page.goto(path.as_uri())
                page.wait_for_timeout(1000 if width == WIDTHS[0] else 0)
                try:
                    settled(page, timeout=3_000)
                except PlaywrightTimeout:  # a build from before the page said when its notes were placed
                    page.wait_for_timeout(300)
                row = {**page.evaluate(MEASURE), **notes(page)}
                if width == WIDTHS[0]:
                    row["interactive"] = page.evaluate(INTERACTIVE)
                    (narrower, narrower_all), (wider, wider_all) = resize_cost(page, width - 40), resize_cost(page, width)
                    row["resize"], row["resize_all"] = (narrower + wider) / 2, (narrower_all + wider_all) / 2
                rows.append((path.parent.name, width, row))
            page.close()
        browser.close()
    return rows


def notes(page) -> dict:
    """Where the notes start (see tests/browser/note_layout.py), how many overlap, and how much of their text shows."""
    from note_layout import NOTE_PLACES, NOTE_TEXT

    placed, text = page.evaluate(NOTE_PLACES), page.evaluate(NOTE_TEXT)
    offsets = [abs(place["offset"]) for place in placed["places"]]
    return {
        "notes": len(offsets),
        "level": sum(1 for d in offsets if d <= 24),
        "far": sum(1 for d in offsets if d > 120),
        "worst": max(offsets, default=0),
        "overlaps": placed["overlaps"],
        "textTotal": text["total"],
        "textSeen": text["seen"],
        "wholeNotes": text["whole"],
    }


def resize_cost(page, width: int) -> tuple[float, float]:
    """Milliseconds from a resize event (the window goes to *width*) to the frame after the notes near the window
    were placed again, and to when every note of the page was (the far ones are placed in idle time)."""
    page.evaluate("() => { window.__resizeStart = window.__resizeEnd = undefined; }")
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_function("() => window.__resizeEnd !== undefined", timeout=10_000)
    if not page.evaluate("() => document.documentElement.classList.contains('il-notes-placed')"):  # placing far notes
        with contextlib.suppress(PlaywrightTimeout):  # a build from before far notes were placed in idle time
            page.wait_for_function("() => document.documentElement.classList.contains('il-notes-placed')", polling=5, timeout=3_000)
    return page.evaluate("() => [window.__resizeEnd - window.__resizeStart, performance.now() - window.__resizeStart]")


def main() -> int:
    site = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else build(Path(tempfile.mkdtemp(prefix="infralens-layout-")))
    rows = measure(site)
    head = (
        f"{'lab':34} {'width':>5} {'notes':>5} {'≤24px':>6} {'>120':>4} {'worst':>5} {'text':>6} {'whole':>5} {'over':>4} "
        f"{'lines':>6} {'wrap':>6} {'clip':>4} {'alone':>5} {'sideways':>8} {'height':>6} {'ready':>6} {'resize':>6} {'all':>6}"
    )
    print(head)
    for width in WIDTHS:
        keys = ("notes", "level", "far", "lines", "wrapped", "clipped", "lonely", "textTotal", "textSeen", "wholeNotes", "overlaps")
        sums = dict.fromkeys(keys, 0)
        worst = 0
        slowest = {"interactive": 0.0, "resize": 0.0, "resize_all": 0.0}
        for lab, w, m in rows:
            if w != width:
                continue
            for key in sums:
                sums[key] += m[key]
            worst = max(worst, m["worst"])
            share = m["wrapped"] / m["lines"] if m["lines"] else 0.0
            text = m["textSeen"] / m["textTotal"] if m["textTotal"] else 1.0
            timing = f"{m['interactive']:>6.0f} {m['resize']:>6.0f} {m['resize_all']:>6.0f}" if "interactive" in m else ""
            for key, value in slowest.items():
                slowest[key] = max(value, m.get(key, 0.0))
            print(
                f"{lab:34} {w:>5} {m['notes']:>5} {m['level']:>6} {m['far']:>4} {m['worst']:>5} {text:>6.1%} {m['wholeNotes']:>5} {m['overlaps']:>4} "
                f"{m['lines']:>6} {share:>6.1%} {m['clipped']:>4} {m['lonely']:>5} {'yes' if m['sideways'] else 'no':>8} {m['height']:>6} {timing}"
            )
        level = sums["level"] / max(sums["notes"], 1)
        text = sums["textSeen"] / max(sums["textTotal"], 1)
        timing = f"{slowest['interactive']:>6.0f} {slowest['resize']:>6.0f} {slowest['resize_all']:>6.0f}" if width == WIDTHS[0] else ""
        print(
            f"{'all labs (timings: slowest)':34} {width:>5} {sums['notes']:>5} {level:>6.1%} {sums['far']:>4} {worst:>5} {text:>6.1%} "
            f"{sums['wholeNotes']:>5} {sums['overlaps']:>4} {sums['lines']:>6} {sums['wrapped'] / max(sums['lines'], 1):>6.1%} "
            f"{sums['clipped']:>4} {sums['lonely']:>5} {'':>8} {'':>6} {timing}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
