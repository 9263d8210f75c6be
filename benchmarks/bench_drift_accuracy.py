"""Drift classification accuracy on a real-history corpus (default tests/data/history_corpus.yaml).

Each statement was locked from an older wheel (diffusers, or diffsynth for groups that say so) and
its truth decided by reading the installed sources (diffusers 0.42.1, diffsynth 2.1.12). Prints accuracy per expected class, the confusion matrix, the false
unchanged / false moved counts and every wrong row.

    .venv/bin/python benchmarks/bench_drift_accuracy.py
    .venv/bin/python benchmarks/bench_drift_accuracy.py --corpus tests/data/drift_benchmark.yaml
    .venv/bin/python benchmarks/bench_drift_accuracy.py --corpus tests/data/drift_untouched.yaml   # held out: tune nothing on it
    .venv/bin/python benchmarks/bench_drift_accuracy.py --corpus tests/data/drift_untouched2_a.yaml --corpus tests/data/drift_untouched2_b.yaml

Groups with ``against:`` are checked against that release's wheel instead of the installed one. Every row's result
names the rule that decided it (:mod:`infralens.drift.match.decide`); the rules are counted, right and wrong.

Needs the old wheels in the InfraLens cache (fetched with pip on first use).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "drift"))

from test_history_corpus import CORPUS, run_corpus  # the corpus runner the test uses

from infralens.source.cache import default_cache_dir


def _home(statement: dict) -> str:
    """The function a moved statement's ``now:`` names ('' when it is prose)."""
    now = str(statement.get("now", ""))
    return now.split(":", maxsplit=1)[0] if now.startswith(("diffusers.", "diffsynth.")) else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, action="append", help=f"corpus YAML, repeatable: the parts are scored together (default: {CORPUS})")
    args = parser.parse_args(argv)
    corpora = args.corpus or [CORPUS]
    started = time.perf_counter()
    rows = [row for corpus in corpora for row in run_corpus(default_cache_dir(), corpus.resolve())]
    seconds = time.perf_counter() - started
    releases = Counter(r[0] for r in rows)
    print(f"corpus {' + '.join(str(c) for c in corpora)}: {len(rows)} statements; by release: {dict(sorted(releases.items()))}")
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
    misplaced = [row for row in rows if row[1] == row[2] == "moved" and _home(row[3]) and _home(row[3]) != f"{row[4].new.module}.{row[4].new.target}"]
    print(f"moved to the wrong place: {len(misplaced)}")
    for release, _, _, statement, result in misplaced:
        print(f"  misplaced: {release} {statement['text'][:80]!r} -> {result.new.module}.{result.new.target} (true: {_home(statement)})")
    rules = Counter((getattr(r[4], "rule", "") or "?", r[1] == r[2]) for r in rows)
    print("rules (right/wrong): " + ", ".join(f"{rule} {rules[(rule, True)]}/{rules[(rule, False)]}" for rule in sorted({k for k, _ in rules})))
    wrong = [row for row in rows if row[1] != row[2]]
    print(f"wrong rows: {len(wrong)}")
    for release, want, got, statement, result in wrong:
        nth = f" nth={statement['nth']}" if "nth" in statement else ""
        print(f"  wrong: {release} {want} -> {got}:{nth} {statement['text'][:100]!r}")
        print(f"         [{getattr(result, 'rule', '')}] {result.message}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
