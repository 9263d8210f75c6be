"""How much the InfraLens site costs to build, and what an annotation edit re-reads.

1. Full build of ``docs/`` (infralens.sphinx: annotated pages, labs, source browser)
   against a plain copy of the same pages (same theme, parser, toctrees) where
   every ``infralens-function``/``infralens-compare`` became ``literalinclude
   :pyobject:`` of the same functions.
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


def sphinx(srcdir: Path, outdir: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run sphinx-build; return (wall seconds, CPU seconds, output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "--keep-going", *extra, str(srcdir), str(outdir)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"sphinx-build failed for {srcdir}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, result.stdout + result.stderr


PLAIN_CONF = """project = "plain"
extensions = ["myst_parser"]
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
exclude_patterns = ["_build"]
html_theme = "furo"
pygments_style = "friendly"
html_copy_source = False
"""
FUNCTION = re.compile(r"^```\{infralens-function\}\s+(\S+)\s*\n(?::\S+:.*\n)*```", re.M)
COMPARE = re.compile(r"^```\{infralens-compare\}\s*\n((?::\S+:.*\n)*)```", re.M)


def plain_project(folder: Path) -> int:
    """``docs/`` (with its generated pages) where every annotated function is a literalinclude instead.

    Same pages, theme, parser and toctrees: the only difference is how the functions render.
    Returns how many directives were replaced.
    """
    from infralens.sphinx import Settings, load_catalog

    settings = Settings(project_root=REPO, annotations_dir=REPO / "annotations", labs_dir=REPO / "labs", reports_dir=REPO / "reports")
    catalog = load_catalog(settings)
    shutil.copytree(REPO / "docs", folder, ignore=shutil.ignore_patterns("_build", "conf.py"))
    (folder / "conf.py").write_text(PLAIN_CONF)
    replaced = 0

    page: Path = folder

    def include(target: str) -> str:
        function = catalog.function(target)
        if function is None:
            return f"(no annotation targets `{target}`)"
        # literalinclude reads a path relative to the page ("/..." would mean the source dir).
        source = os.path.relpath(next(p for p in function.dependencies if p.endswith(".py")), page.parent)
        return f"```{{literalinclude}} {source}\n:pyobject: {function.qualname}\n:lineno-match:\n:language: python\n```"

    def one(match: re.Match) -> str:
        nonlocal replaced
        replaced += 1
        return include(match.group(1))

    def pair(match: re.Match) -> str:
        nonlocal replaced
        replaced += 1
        targets = re.findall(r"^:\S+:\s*(\S+)", match.group(1), re.M)
        return "\n\n".join(include(t) for t in targets)

    for page in folder.rglob("*.md"):
        text = page.read_text("utf-8")
        new = COMPARE.sub(pair, FUNCTION.sub(one, text))
        if new != text:
            page.write_text(new, "utf-8")
    return replaced


def pages_showing(doctrees: Path, target: str) -> list[str]:
    """Docnames that embed ``target``, as recorded by the infralens domain in the pickled environment."""
    import pickle

    with open(doctrees / "environment.pickle", "rb") as handle:
        env = pickle.load(handle)
    uses = env.domaindata["infralens"]["uses"]
    return sorted(doc for doc, targets in uses.items() if target in targets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="full builds per project (the best is kept)")
    parser.add_argument("--annotation", default="annotations/diffusers/02-ddim-step.yaml", help="annotation file to touch")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-site-"))
    try:
        sphinx(REPO / "docs", work / "warm" / "html", "-d", str(work / "warm" / "doctrees"))  # generates docs/_infralens
        count = plain_project(work / "plain")
        print(f"directives rendered (each also as a literalinclude in the plain copy): {count}")
        results = {}
        runs_output: dict[str, str] = {}
        for label, srcdir in (("infralens docs/", REPO / "docs"), ("plain literalinclude", work / "plain")):
            runs = []
            for attempt in range(args.repeat):
                out = work / f"out-{label.split()[0]}-{attempt}"
                wall, cpu, output = sphinx(srcdir, out / "html", "-d", str(out / "doctrees"))
                runs.append((wall, cpu))
                runs_output[label] = output
            wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
            results[label] = (wall, cpu)
            if "not found or reading it failed" in runs_output.get(label, ""):
                sys.exit(f"{label}: a literalinclude failed; the comparison would be unfair")
            print(f"{label:24s} full build: wall {wall:6.2f} s   cpu {cpu:6.2f} s   (best of {args.repeat})")
        (iw, ic), (pw, pc) = results["infralens docs/"], results["plain literalinclude"]
        print(f"ratio infralens/plain:   wall {iw / pw:.2f}x   cpu {ic / pc:.2f}x   (goal <= 1.5x)")

        out = work / "incremental"
        sphinx(REPO / "docs", out / "html", "-d", str(out / "doctrees"))
        sphinx(REPO / "docs", out / "html", "-d", str(out / "doctrees"))  # settle: absorbs pages others added meanwhile
        annotation = REPO / args.annotation
        os.utime(annotation)
        wall, cpu, output = sphinx(REPO / "docs", out / "html", "-d", str(out / "doctrees"))
        reread = sorted(set(READING.findall(output)))
        target = re.search(r"^target:\s*(\S+)", annotation.read_text(), re.M).group(1)
        expected = pages_showing(out / "doctrees", target)
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
