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

Every figure is given three ways, for the checker and for a naive baseline beside it: the total, the accuracy on
the rows whose truth is not *unchanged* (most rows of a release pair are, and they are the easy ones), and the
recall of each of moved, changed and deleted. The baseline: *unchanged* when each of the step's statement texts
is still a statement of the function of the same name in the same module, *deleted* when that function is gone,
else *changed* (it never says *moved*).

A *changed* verdict counts right on its kind; how many of them point at the very statement the truth's ``now:`` names
is printed beside (the older corpora describe that statement in words, so only the recent ones can score there).

Needs the old wheels in the InfraLens cache (fetched with pip on first use).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # _shared, which the corpus runner reads
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "drift"))

import yaml
from test_history_corpus import CORPUS, DEFAULT_DISTRIBUTION, _label, _wheel, misplaced, run_corpus, truth_home  # the corpus runner the tests use

from infralens.errors import InfralensError
from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache, default_cache_dir
from infralens.source.distributions import InstalledTree, WheelTree

HARD = ("moved", "changed", "deleted")


def naive_kinds(cache_dir: Path, corpus: Path, rows: list) -> list[str]:
    """The naive baseline's verdict for each of *rows* (one corpus's rows, as :func:`run_corpus` gives them)."""
    groups = {_label(group): group for group in yaml.safe_load(corpus.read_text("utf-8"))}
    resolvers: dict[str, tuple[Resolver, str]] = {}
    kinds = []
    for label, _, _, _, result in rows:
        if label not in resolvers:
            group = groups[label]
            distribution = group.get("distribution", DEFAULT_DISTRIBUTION)
            against = group.get("against")
            tree = WheelTree(_wheel(distribution, against)) if against else InstalledTree(distribution)
            resolvers[label] = (Resolver({distribution: tree}, cache=IndexCache(cache_dir)), distribution)
        resolver, distribution = resolvers[label]
        entry = result.entry
        try:
            target = resolver.resolve_target(distribution, f"{entry.module}.{entry.target}")
        except InfralensError:
            kinds.append("deleted")
            continue
        definition = target.definition
        texts = {s.text for s in resolver.index(target.source).statements_within(definition.start_line, definition.end_line)}
        kinds.append("unchanged" if all(text in texts for text in entry.texts) else "changed")
    return kinds


MISPLACED = "moved elsewhere"
"""A row judged *moved*, as its truth says, but placed in another function than the truth names: wrong, and a false
*moved*."""


def three_ways(wants: list[str], gots: list[str]) -> str:
    """Total, accuracy on the rows whose truth is not unchanged, and each hard class's recall, on one line."""
    right = sum(w == g for w, g in zip(wants, gots, strict=True))
    hard = [(w, g) for w, g in zip(wants, gots, strict=True) if w != "unchanged"]
    hard_right = sum(w == g for w, g in hard)
    parts = [
        f"total {right}/{len(wants)} ({100 * right / max(len(wants), 1):.1f}%)",
        f"not-unchanged {hard_right}/{len(hard)} ({100 * hard_right / max(len(hard), 1):.1f}%)",
    ]
    for kind in HARD:
        of = [g for w, g in zip(wants, gots, strict=True) if w == kind]
        if of:
            parts.append(f"{kind} {sum(g == kind for g in of)}/{len(of)}")
    false_unchanged = sum(g == "unchanged" and w != "unchanged" for w, g in zip(wants, gots, strict=True))
    false_moved = sum(g in ("moved", MISPLACED) and w != g for w, g in zip(wants, gots, strict=True))
    return "; ".join(parts) + f"; false unchanged {false_unchanged}, false moved {false_moved}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, action="append", help=f"corpus YAML, repeatable: the parts are scored together (default: {CORPUS})")
    args = parser.parse_args(argv)
    corpora = args.corpus or [CORPUS]
    started = time.perf_counter()
    rows, naive = [], []
    for corpus in corpora:
        found = run_corpus(default_cache_dir(), corpus.resolve())
        rows.extend(found)
        naive.extend(naive_kinds(default_cache_dir(), corpus.resolve(), found))
    seconds = time.perf_counter() - started
    releases = Counter(r[0] for r in rows)
    print(f"corpus {' + '.join(str(c) for c in corpora)}: {len(rows)} statements; by release: {dict(sorted(releases.items()))}")
    kinds = ["unchanged", "moved", "changed", "deleted", "unreadable", MISPLACED]
    confusion = Counter((row[1], MISPLACED if misplaced(row) else row[2]) for row in rows)
    right = sum(n for (want, got), n in confusion.items() if want == got)
    print(f"{right}/{len(rows)} right ({100 * right / len(rows):.1f}%) over {len({r[0] for r in rows})} releases in {seconds:.1f} s")
    wants = [row[1] for row in rows]
    print(f"checker:  {three_ways(wants, [MISPLACED if misplaced(row) else row[2] for row in rows])}")
    print(f"baseline: {three_ways(wants, naive)}")
    print("per expected class:")
    for want in kinds:
        total = sum(n for (w, _), n in confusion.items() if w == want)
        if total:
            print(f"  {want:<10} {confusion[(want, want)]}/{total}")
    print("confusion (rows: expected, columns: got):")
    print("  " + " " * 10 + "".join(f"{k:>16}" for k in kinds))
    for want in kinds[:-1]:
        print(f"  {want:<10}" + "".join(f"{confusion[(want, got)]:>16}" for got in kinds))
    false_unchanged = sum(n for (want, got), n in confusion.items() if got == "unchanged" and want != "unchanged")
    elsewhere = [row for row in rows if misplaced(row)]
    false_moved = sum(n for (want, got), n in confusion.items() if got in ("moved", MISPLACED) and want != got)
    print(f"false unchanged: {false_unchanged}; false moved: {false_moved} (of them moved to the wrong place: {len(elsewhere)})")
    for release, _, _, statement, result in elsewhere:
        print(f"  misplaced: {release} {statement['text'][:80]!r} -> {result.new.module}.{result.new.target} (true: {truth_home(statement)})")
    judged = [row for row in rows if row[1] == row[2] == "changed" and row[3].get("now")]
    at_truth = sum(
        1 for row in judged if row[4].new is not None and row[4].new.texts and " ".join(row[4].new.texts[0].split()) == " ".join(str(row[3]["now"]).split())
    )
    print(f"changed rows judged changed at the statement the truth names (its `now:` text): {at_truth}/{len(judged)}")
    rules = Counter((getattr(r[4], "rule", "") or "?", r[1] == r[2] and not misplaced(r)) for r in rows)
    print("rules (right/wrong): " + ", ".join(f"{rule} {rules[(rule, True)]}/{rules[(rule, False)]}" for rule in sorted({k for k, _ in rules})))
    wrong = [row for row in rows if row[1] != row[2] or misplaced(row)]
    print(f"wrong rows: {len(wrong)}")
    for release, want, got, statement, result in wrong:
        nth = f" nth={statement['nth']}" if "nth" in statement else ""
        print(f"  wrong: {release} {want} -> {got}:{nth} {statement['text'][:100]!r}")
        print(f"         [{getattr(result, 'rule', '')}] {result.message}")
    return 0


def _spaced(text: str) -> str:
    """``text`` with its whitespace runs made single spaces (a truth's ``now:`` may wrap)."""
    return " ".join(text.split())


if __name__ == "__main__":
    raise SystemExit(main())
