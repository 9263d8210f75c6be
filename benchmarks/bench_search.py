"""Does the site search find the lab that teaches a topic? The rank of that lab for each topic word, in a real browser.

Usage: ``.venv/bin/python benchmarks/bench_search.py [SITE_HTML_DIR] [--topics FILE ...] [--json OUT]``
(default site: build ``docs`` into a temporary folder first; default topics: ``benchmarks/search_topics.yaml``
and, when present, ``benchmarks/search_topics_untouched.yaml``). Serves the site on 127.0.0.1, opens its own
``search.html?q=…`` in Debian's chromium (Playwright, only a fresh machine's DejaVu fonts, as the browser tests
do) for each query, waits until the search has finished and every snippet has loaded, and prints per query:
where the teaching lab first appears among the results (1 = first), how many results there were and what came
first. Then, per list: how many labs rank first, in the first 3 and in the first 10, and how many snippets of the
first 10 results are mostly table cells or code rather than prose. Needs /usr/bin/chromium (``make browser-setup``).
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import yaml

REPO = Path(__file__).resolve().parents[1]
TOPIC_FILES = (REPO / "benchmarks" / "search_topics.yaml", REPO / "benchmarks" / "search_topics_untouched.yaml")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
SEARCH_DONE = "() => /finished|did not match/.test(document.querySelector('#search-results .search-summary')?.textContent || '')"
SNIPPETS_SHOWN = 10
NOT_PROSE = 0.3
"""A snippet is counted as table or code when at least this share of its text is whole table cells or code lines."""

RESULTS = """async (shown) => {
  const items = [...document.querySelectorAll('#search-results ul.search > li')];
  const pages = new Map();
  const cellsOf = async (href) => {
    const url = href.split('#')[0];
    if (!pages.has(url)) {
      const html = await (await fetch(url)).text();
      const main = new DOMParser().parseFromString(html, 'text/html').querySelector('[role="main"]');
      const pieces = main ? [...main.querySelectorAll('td, th, pre, .il-code, math')].flatMap(e =>
        e.matches('pre, .il-code') ? e.textContent.split('\\n') : [e.textContent]) : [];
      pages.set(url, [...new Set(pieces.map(t => t.trim()).filter(t => t.length >= 6))]);
    }
    return pages.get(url);
  };
  const out = [];
  for (const [index, item] of items.entries()) {
    const link = item.querySelector('a');
    const context = item.querySelector('.context');
    const row = {href: link.getAttribute('href'), title: link.textContent, snippet: context ? context.textContent : null, tableShare: null};
    if (index < shown && row.snippet) {
      const snippet = row.snippet.replace(/\\s+/g, ' ');
      const covered = (await cellsOf(link.href)).filter(t => snippet.includes(t.replace(/\\s+/g, ' ')))
        .reduce((sum, t) => sum + t.length, 0);
      row.tableShare = Math.min(1, covered / Math.max(1, snippet.length));
    }
    out.push(row);
  }
  return out;
}"""


def build(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-d", str(out / "doctrees"), str(REPO / "docs"), str(out / "html")], check=True)
    return out / "html"


def load_topics(path: Path) -> list[dict]:
    """The ``topics`` of a list file: each a query, its lab and optionally ``also`` (another lab that teaches it)."""
    data = yaml.safe_load(path.read_text("utf-8"))
    topics = data.get("topics") if isinstance(data, dict) else None
    if not isinstance(topics, list) or not all(isinstance(t, dict) and isinstance(t.get("query"), str) and isinstance(t.get("lab"), str) for t in topics):
        raise SystemExit(f"{path}: expected 'topics:', a list of mappings each with a 'query' and a 'lab' string")
    return topics


def rank_of(hrefs: list[str], labs: list[str]) -> int | None:
    """1-based position of the first result on one of ``labs``' pages (any section of it), or None."""
    for position, href in enumerate(hrefs, 1):
        if any(f"labs/{lab}/index.html" in href for lab in labs):
            return position
    return None


@contextmanager
def served(folder: Path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(folder)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("http.server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def search_all(site: Path, topics: list[dict]) -> list[dict]:
    """Each topic with ``rank``, ``count``, ``first`` and the results' snippets, measured in chromium."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(REPO / "tests" / "browser"))
    from conftest import fresh_machine_fontconfig  # the browser tests' font set: only a fresh machine's DejaVu

    measured = []
    with tempfile.TemporaryDirectory() as fonts, served(site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, env=fresh_machine_fontconfig(Path(fonts)))
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        for topic in topics:
            page.goto(f"{base}/search.html?q={quote(topic['query'])}", wait_until="load")
            page.wait_for_function(SEARCH_DONE, timeout=120_000)
            page.wait_for_load_state("networkidle")
            results = page.evaluate(RESULTS, SNIPPETS_SHOWN)
            hrefs = [row["href"] for row in results]
            labs = [topic["lab"], *([topic["also"]] if topic.get("also") else [])]
            measured.append({**topic, "rank": rank_of(hrefs, labs), "count": len(hrefs), "first": results[0]["title"] if results else "", "results": results})
        browser.close()
    return measured


def summary(rows: list[dict]) -> dict:
    ranks = [row["rank"] for row in rows]
    shares = [r["tableShare"] for row in rows for r in row["results"][:SNIPPETS_SHOWN] if r["tableShare"] is not None]
    return {
        "queries": len(rows),
        "first": sum(1 for r in ranks if r == 1),
        "top3": sum(1 for r in ranks if r is not None and r <= 3),
        "top10": sum(1 for r in ranks if r is not None and r <= 10),
        "not_found": sum(1 for r in ranks if r is None),
        "snippets": len(shares),
        "snippets_table_or_code": sum(1 for s in shares if s >= NOT_PROSE),
    }


def report(name: str, rows: list[dict]) -> None:
    print(f"\n{name}")
    print(f"{'query':<28} {'lab':<36} {'rank':>5} {'of':>5}  first result")
    for row in rows:
        rank = "-" if row["rank"] is None else str(row["rank"])
        print(f"{row['query']:<28} {row['lab']:<36} {rank:>5} {row['count']:>5}  {row['first'][:60]}")
    s = summary(rows)
    print(
        f"teaching lab first: {s['first']} of {s['queries']}; in the first 3: {s['top3']}; in the first 10: {s['top10']}; "
        f"not found: {s['not_found']}. Snippets of the first {SNIPPETS_SHOWN} results that are mostly table cells or code: "
        f"{s['snippets_table_or_code']} of {s['snippets']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", type=Path, help="a built site (default: build docs/ into a temporary folder)")
    parser.add_argument("--topics", action="append", type=Path, help="a topic list (repeatable; default: the lists in benchmarks/)")
    parser.add_argument("--json", type=Path, help="also write every measurement here")
    args = parser.parse_args()
    files = args.topics or [path for path in TOPIC_FILES if path.is_file()]
    site = args.site or build(Path(tempfile.mkdtemp(prefix="infralens-search-")))
    everything = {}
    for path in files:
        rows = search_all(site, load_topics(path))
        report(str(path.relative_to(REPO) if path.is_relative_to(REPO) else path), rows)
        everything[path.name] = {"summary": summary(rows), "topics": rows}
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
