"""Drift classification accuracy on the real-history corpus (tests/data/history_corpus.yaml).

Each statement was locked from an older diffusers wheel and its truth decided by reading the
installed 0.42.1 sources. Prints accuracy per expected class and the confusion matrix.

    .venv/bin/python benchmarks/bench_drift_accuracy.py

Needs the old wheels in the InfraLens cache (fetched with pip on first use).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "drift"))

from test_history_corpus import run_corpus  # the corpus runner the test uses

from infralens.source.cache import default_cache_dir


def main() -> int:
    started = time.perf_counter()
    rows = run_corpus(default_cache_dir())
    seconds = time.perf_counter() - started
    kinds = ["unchanged", "moved", "changed", "deleted", "unreadable"]
    confusion = Counter((want, got) for _, want, got, _, _ in rows)
    right = sum(n for (want, got), n in confusion.items() if want == got)
    print(f"{right}/{len(rows)} right ({100 * right / len(rows):.1f}%) over {len({r[0] for r in rows})} releases in {seconds:.1f} s")
    print("per expected class:")
    for want in kinds:
        total = sum(n for (w, _), n in confusion.items() if w == want)
        if total:
            print(f"  {want:<10} {confusion[(want, want)]}/{total}")
    print("confusion (rows: expected, columns: got):")
    print("  " + " " * 10 + "".join(f"{k:>11}" for k in kinds))
    for want in kinds:
        print(f"  {want:<10}" + "".join(f"{confusion[(want, got)]:>11}" for got in kinds))
    false_unchanged = sum(n for (want, got), n in confusion.items() if got == "unchanged" and want != "unchanged")
    false_moved = sum(n for (want, got), n in confusion.items() if got == "moved" and want != "moved")
    print(f"false unchanged: {false_unchanged}; false moved: {false_moved}")
    for release, want, got, statement, result in rows:
        if want != got:
            print(f"  wrong: {release} {want} -> {got}: {statement['text'][:80]!r} ({result.message})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
