"""How lab pages lay out in a real browser: wrapped code lines, sideways scrolling, page height.

Usage: ``.venv/bin/python benchmarks/bench_lab_layout.py [SITE_HTML_DIR]`` (default: build ``docs`` into a temporary
folder first). Opens every lab page in Debian's chromium (Playwright) at 1440 and 390 px and prints, per page, the
share of code lines that wrap, whether the page scrolls sideways, its height in px and how many functions it draws.
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
  const root = document.scrollingElement;
  return {lines: lines.length, wrapped, sideways: root.scrollWidth > root.clientWidth + 1,
          height: root.scrollHeight, functions: document.querySelectorAll('.infralens-function').length};
}"""


def build(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-d", str(out / "doctrees"), str(REPO / "docs"), str(out / "html")], check=True)
    return out / "html"


def measure(site: Path) -> list[tuple[str, int, dict]]:
    from playwright.sync_api import sync_playwright

    pages = sorted((site / "_infralens" / "labs").glob("lab-*/index.html"))
    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for width in WIDTHS:
            page = browser.new_page(viewport={"width": width, "height": 900})
            for path in pages:
                page.goto(path.as_uri())
                rows.append((path.parent.name, width, page.evaluate(MEASURE)))
            page.close()
        browser.close()
    return rows


def main() -> int:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else build(Path(tempfile.mkdtemp(prefix="infralens-layout-")))
    rows = measure(site)
    print(f"{'lab':36} {'width':>5} {'lines':>6} {'wrapped':>8} {'share':>6} {'sideways':>8} {'height px':>9} {'functions':>9}")
    for width in WIDTHS:
        total = wrapped = 0
        for lab, w, m in rows:
            if w != width:
                continue
            total += m["lines"]
            wrapped += m["wrapped"]
            share = m["wrapped"] / m["lines"] if m["lines"] else 0.0
            print(f"{lab:36} {w:>5} {m['lines']:>6} {m['wrapped']:>8} {share:>6.1%} {'yes' if m['sideways'] else 'no':>8} {m['height']:>9} {m['functions']:>9}")
        print(f"{'all labs':36} {width:>5} {total:>6} {wrapped:>8} {wrapped / max(total, 1):>6.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
