"""Compare the regex token scanner with :mod:`tokenize` on every statement of some wheels: equality and speed.

    .venv/bin/python benchmarks/bench_normal_form.py --cached diffusers==0.30.3 diffusers==0.36.0 diffsynth==2.0.0
    .venv/bin/python benchmarks/bench_normal_form.py WHEEL [WHEEL ...]

Every statement slice the index twin normalises (each distinct file once) is normalised both ways:
by :func:`~infralens.source.normal_form.normalize_with_last_line` (scanner, falling back to tokenize) and by
:func:`~infralens.source.normal_form.tokenized_with_last_line` (tokenize alone). Any difference in text or in the
last token's row is printed and makes the exit status 1.
"""

from __future__ import annotations

import argparse
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from bench_fast_index import wheels_of  # noqa: E402  (the same wheel arguments)

from infralens.hashing import sha256_text  # noqa: E402
from infralens.source import fast_index  # noqa: E402
from infralens.source.normal_form import normalize_with_last_line, tokenized_with_last_line  # noqa: E402
from infralens.source.token_scan import scan  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wheels", nargs="*")
    parser.add_argument("--cached", nargs="*", default=[], metavar="DIST==VERSION", help="wheels from the infralens cache")
    wheels = wheels_of(parser.parse_args())
    slices: list[str] = []
    fast_index.normalize_with_last_line = lambda code: (slices.append(code), normalize_with_last_line(code))[1]  # type: ignore[assignment]
    seen: set[str] = set()
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            for name in sorted(n for n in archive.namelist() if n.endswith(".py")):
                text = archive.read(name).decode("utf-8", "replace")
                if sha256_text(text) not in seen:
                    seen.add(sha256_text(text))
                    fast_index.fast_index_source(text)
    differing = sum(1 for code in slices if normalize_with_last_line(code) != tokenized_with_last_line(code))
    for code in [c for c in slices if normalize_with_last_line(c) != tokenized_with_last_line(c)][:10]:
        print(f"DIFFERS {code[:120]!r}\n  scanner:  {normalize_with_last_line(code)}\n  tokenize: {tokenized_with_last_line(code)}")
    handed = sum(1 for code in slices if scan(code) is None)
    start = time.perf_counter()
    for code in slices:
        normalize_with_last_line(code)
    scanner_seconds = time.perf_counter() - start
    start = time.perf_counter()
    for code in slices:
        tokenized_with_last_line(code)
    tokenize_seconds = time.perf_counter() - start
    print(f"{len(slices)} statements of {len(seen)} distinct files: {differing} differ, {handed} read by tokenize (scanner unsure)")
    print(f"tokenize {tokenize_seconds:.2f} s, scanner {scanner_seconds:.2f} s ({tokenize_seconds / max(scanner_seconds, 1e-9):.1f}x)")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
