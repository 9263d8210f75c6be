"""Compare the ``ast`` index twin with libcst on every Python file of some wheels: equality and speed.

    .venv/bin/python benchmarks/bench_fast_index.py WHEEL [WHEEL ...]
    .venv/bin/python benchmarks/bench_fast_index.py --cached diffusers==0.30.0 diffsynth==2.0.0

Each distinct file (by SHA-256) is indexed by both; any difference is printed (first differing
definitions and statements) and makes the exit status 1. Files the twin hands to libcst (``match``
statements, syntax errors) are counted, not compared.
"""

from __future__ import annotations

import argparse
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from infralens.hashing import sha256_text  # noqa: E402
from infralens.source import cached_wheel  # noqa: E402
from infralens.source.fast_index import fast_index_source  # noqa: E402
from infralens.source.index import index_source  # noqa: E402


def wheels_of(arguments: argparse.Namespace) -> list[Path]:
    found = [Path(w) for w in arguments.wheels]
    for spec in arguments.cached:
        name, _, version = spec.partition("==")
        wheel = cached_wheel(name, version)
        if wheel is None:
            raise SystemExit(f"{spec}: no cached wheel (run 'infralens history --since {version}' or 'check --against {spec}' once)")
        found.append(wheel)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wheels", nargs="*")
    parser.add_argument("--cached", nargs="*", default=[], metavar="DIST==VERSION", help="wheels from the infralens cache")
    arguments = parser.parse_args()
    seen: set[str] = set()
    compared = handed_over = differing = 0
    libcst_seconds = fast_seconds = 0.0
    for wheel in wheels_of(arguments):
        with zipfile.ZipFile(wheel) as archive:
            for name in sorted(n for n in archive.namelist() if n.endswith(".py")):
                text = archive.read(name).decode("utf-8", "replace")
                digest = sha256_text(text)
                if digest in seen:
                    continue
                seen.add(digest)
                start = time.perf_counter()
                reference = index_source(text)
                libcst_seconds += time.perf_counter() - start
                start = time.perf_counter()
                twin = fast_index_source(text)
                fast_seconds += time.perf_counter() - start
                if twin is None:
                    handed_over += 1
                    continue
                compared += 1
                if twin != reference:
                    differing += 1
                    print(f"DIFFERS {wheel.name}!{name}")
                    print(
                        "  libcst only:",
                        [d for d in reference.definitions if d not in twin.definitions][:2],
                        [s for s in reference.statements if s not in twin.statements][:3],
                    )
                    print(
                        "  ast only:   ",
                        [d for d in twin.definitions if d not in reference.definitions][:2],
                        [s for s in twin.statements if s not in reference.statements][:3],
                    )
    print(f"{compared} distinct files compared, {differing} differ, {handed_over} handed to libcst")
    print(f"libcst {libcst_seconds:.1f} s, ast twin {fast_seconds:.1f} s ({libcst_seconds / max(fast_seconds, 1e-9):.1f}x)")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
