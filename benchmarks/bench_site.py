"""How much the InfraLens site costs to build, and what an annotation edit re-reads.

1. Full build of ``docs/`` (infralens.sphinx: annotated pages, labs, source browser)
   against a plain Sphinx project with the same theme that renders the same
   functions through ``literalinclude :pyobject:`` (one page per function).
   Goal: at most 1.5x.
2. Touch one annotation file and rebuild ``docs/``: count the documents Sphinx
   re-reads (from its "reading sources" lines) and compare with the pages that
   show that annotation's function.

Run: ``.venv/bin/python benchmarks/bench_site.py [--repeat N] [--annotation PATH]``.
Reports wall time and CPU time (user+sys of the build process): on a shared
machine CPU time is the steadier number.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

READING = re.compile(r"reading sources\.\.\. \[\s*\d+%\] (\S+)")


def sphinx(srcdir: Path, outdir: Path, *extra: str, env: dict | None = None) -> tuple[float, float, str]:
    """Run sphinx-build; return (wall seconds, CPU seconds, output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "--keep-going", *extra, str(srcdir), str(outdir)],
                            capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1", **(env or {})})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"sphinx-build failed for {srcdir}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, result.stdout + result.stderr


def plain_project(folder: Path) -> int:
    """The same functions as literalinclude pages, same theme and parser. Returns the page count."""
    from infralens.sphinx.catalog import load_catalog
    from infralens.sphinx.config import Settings

    settings = Settings(project_root=REPO, annotations_dir=REPO / "annotations", labs_dir=REPO / "labs", reports_dir=REPO / "reports")
    catalog = load_catalog_quietly(load_catalog, settings)
    folder.mkdir(parents=True)
    (folder / "conf.py").write_text('extensions = ["myst_parser"]\nhtml_theme = "furo"\nproject = "plain"\n')
    names = []
    for function in catalog.functions.values():
        tree_root = Path(function.dependencies[-1]) if function.dependencies[-1].endswith(".py") else None
        source = next((Path(p) for p in function.dependencies if p.endswith(".py")), tree_root)
        name = function.target.replace(".", "-")
        names.append(name)
        (folder / f"{name}.md").write_text(
            f"---\norphan: true\n---\n# `{function.qualname}`\n\n```{{literalinclude}} {source}\n:pyobject: {function.qualname}\n"
            f":lineno-match:\n:language: python\n```\n"
        )
    index = ["# Plain", "", "Functions:", ""] + [f"- {{doc}}`{n}`" for n in names]
    (folder / "index.md").write_text("\n".join(index) + "\n")
    return len(names)


def load_catalog_quietly(load, settings):
    from sphinx.util import logging as sphinx_logging  # noqa: F401  (warnings need no app here)

    return load(settings)


def pages_showing(docs: Path, target: str) -> set[str]:
    """Docnames whose source embeds ``target`` with one of the two directives."""
    found = set()
    pattern = re.compile(r"(infralens-function\}\s+|:diffusers:\s+|:diffsynth:\s+)" + re.escape(target) + r"\s*$", re.M)
    for path in docs.rglob("*.md"):
        if "_build" in path.parts:
            continue
        if pattern.search(path.read_text("utf-8", errors="replace")):
            found.add(path.relative_to(docs).with_suffix("").as_posix())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="full builds per project (the best is kept)")
    parser.add_argument("--annotation", default="annotations/diffusers/02-ddim-step.yaml", help="annotation file to touch")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-site-"))
    try:
        count = plain_project(work / "plain")
        print(f"functions rendered: {count}")
        results = {}
        for label, srcdir in (("infralens docs/", REPO / "docs"), ("plain literalinclude", work / "plain")):
            runs = []
            for attempt in range(args.repeat):
                out = work / f"out-{label.split()[0]}-{attempt}"
                runs.append(sphinx(srcdir, out / "html", "-d", str(out / "doctrees"))[:2])
            wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
            results[label] = (wall, cpu)
            print(f"{label:24s} full build: wall {wall:6.2f} s   cpu {cpu:6.2f} s   (best of {args.repeat})")
        (iw, ic), (pw, pc) = results["infralens docs/"], results["plain literalinclude"]
        print(f"ratio infralens/plain:   wall {iw / pw:.2f}x   cpu {ic / pc:.2f}x   (goal <= 1.5x)")

        out = work / "incremental"
        sphinx(REPO / "docs", out / "html", "-d", str(out / "doctrees"))
        annotation = REPO / args.annotation
        os.utime(annotation)
        wall, cpu, output = sphinx(REPO / "docs", out / "html", "-d", str(out / "doctrees"))
        reread = sorted(set(READING.findall(output)))
        target = re.search(r"^target:\s*(\S+)", annotation.read_text(), re.M).group(1)
        expected = sorted(pages_showing(REPO / "docs", target))
        total = len(list((out / "html").rglob("*.html")))
        print(f"\ntouched {args.annotation} (target {target})")
        print(f"rebuild: wall {wall:.2f} s   cpu {cpu:.2f} s; re-read {len(reread)} of ~{total} pages:")
        for docname in reread:
            print(f"  {docname}")
        print(f"pages that show {target}: {len(expected)}; re-read exactly those: {reread == expected}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
