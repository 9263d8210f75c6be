"""How lab pages lay out in a real browser: notes level with their lines, wrapped code lines, sideways scrolling.

Usage: ``.venv/bin/python benchmarks/bench_lab_layout.py [SITE_HTML_DIR]`` (default: build ``docs`` into a temporary
folder first). Opens every lab page in Debian's chromium (Playwright), with only a fresh Debian machine's fonts
(DejaVu, as the browser tests do), at 1440 and 390 px and prints, per page: how many notes start within 24 px of
their line and how many more than 120 px away (and the worst), the share of code lines that wrap, code cut off
beyond reach, line numbers alone on a row, whether the page scrolls sideways, its height and its functions.
Needs /usr/bin/chromium (``make browser-setup``).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
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
  const offsets = [...document.querySelectorAll('.il-note')].filter(n => n.offsetParent !== null).map(note => {
    const line = document.getElementById(note.dataset.lineAnchor);
    return Math.abs(note.getBoundingClientRect().top - line.getBoundingClientRect().top);
  });
  const root = document.scrollingElement;
  return {lines: lines.length, wrapped, lonely, clipped, sideways: root.scrollWidth > root.clientWidth + 1,
          notes: offsets.length, level: offsets.filter(d => d <= 24).length, far: offsets.filter(d => d > 120).length,
          worst: Math.round(Math.max(0, ...offsets)),
          height: root.scrollHeight, functions: document.querySelectorAll('.infralens-function').length};
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

    with tempfile.TemporaryDirectory() as fonts, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, env=fresh_machine_fontconfig(Path(fonts)))
        for width in WIDTHS:
            page = browser.new_page(viewport={"width": width, "height": 900})
            for path in pages:
                page.goto(path.as_uri())
                page.evaluate("() => document.fonts.ready")
                page.wait_for_timeout(50)
                rows.append((path.parent.name, width, page.evaluate(MEASURE)))
            page.close()
        browser.close()
    return rows


def main() -> int:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else build(Path(tempfile.mkdtemp(prefix="infralens-layout-")))
    rows = measure(site)
    head = f"{'lab':34} {'width':>5} {'notes':>5} {'≤24px':>6} {'>120':>4} {'worst':>5} {'lines':>6} {'wrap':>6} {'clip':>4} {'alone':>5} {'sideways':>8} {'height':>6}"
    print(head)
    for width in WIDTHS:
        sums = {"notes": 0, "level": 0, "far": 0, "lines": 0, "wrapped": 0, "clipped": 0, "lonely": 0}
        worst = 0
        for lab, w, m in rows:
            if w != width:
                continue
            for key in sums:
                sums[key] += m[key]
            worst = max(worst, m["worst"])
            share = m["wrapped"] / m["lines"] if m["lines"] else 0.0
            print(
                f"{lab:34} {w:>5} {m['notes']:>5} {m['level']:>6} {m['far']:>4} {m['worst']:>5} {m['lines']:>6} {share:>6.1%} "
                f"{m['clipped']:>4} {m['lonely']:>5} {'yes' if m['sideways'] else 'no':>8} {m['height']:>6}"
            )
        level = sums["level"] / max(sums["notes"], 1)
        print(
            f"{'all labs':34} {width:>5} {sums['notes']:>5} {level:>6.1%} {sums['far']:>4} {worst:>5} {sums['lines']:>6} "
            f"{sums['wrapped'] / max(sums['lines'], 1):>6.1%} {sums['clipped']:>4} {sums['lonely']:>5}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
