"""Ablation of the drift matcher's rules: every rule that may be switched off, off in turn, on every corpus.

    .venv/bin/python benchmarks/ablate_drift_rules.py                      # all corpora, all rules (about an hour)
    .venv/bin/python benchmarks/ablate_drift_rules.py --corpus tests/data/drift_untouched13.yaml --rule moved-with-block
    .venv/bin/python benchmarks/ablate_drift_rules.py --part 1/2 --out a.json & ... --part 2/2 --out b.json   # two cores
    .venv/bin/python benchmarks/ablate_drift_rules.py --merge a.json b.json                                # one report

Each corpus is locked once from its old wheels; then a new matcher, built with a :class:`~infralens.drift.match.rules.Policy`
that switches one rule off, checks every row. For each rule and corpus it prints how many rows turn right and how
many turn wrong against the full matcher, on all rows and on the rows whose truth is not *unchanged*, and writes the
whole table to ``reports/drift-ablation.json`` (``--out``). A rule the corpora do not need shows 0 / 0 everywhere: it
must then state an invariant of its own (``SPECS``) or go. Essential rules (the engine cannot work without them) are
not switched off.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # _shared, which the corpus runner reads
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "drift"))

from test_history_corpus import match_prepared, misplaced, prepare_corpus  # the corpus runner the tests use

from infralens.drift.match.rulebook import SPECS
from infralens.drift.match.rules import Policy
from infralens.source.cache import default_cache_dir

ROOT = Path(__file__).resolve().parents[1]

UNTOUCHED_LAST = ("drift_untouched13.yaml", "drift_untouched_transformers.yaml")
"""The corpora written last (the most changed rows; seen since their one untouched run)."""


def corpora(chosen: list[str]) -> list[Path]:
    if chosen:
        return [Path(c) for c in chosen]
    return sorted((ROOT / "tests" / "data").glob("drift_*.yaml")) + [ROOT / "tests" / "data" / "history_corpus.yaml"]


def verdicts(rows: list) -> dict[str, tuple[str, str, str]]:
    """step id → (expected, got, rule); a row moved elsewhere than its truth names gets ``moved elsewhere`` (wrong)."""
    return {row[4].entry.step_id: (row[1], "moved elsewhere" if misplaced(row) else row[2], row[4].rule) for row in rows}


def compare(full: dict[str, tuple[str, str, str]], ablated: dict[str, tuple[str, str, str]]) -> dict[str, int]:
    """Rows the ablation turns wrong (``lost``) and right (``gained``), in all and on rows not unchanged by truth."""
    counts = {"lost": 0, "gained": 0, "lost_changed_rows": 0, "gained_changed_rows": 0, "verdicts_changed": 0}
    for step_id, (expect, got, _) in full.items():
        other = ablated[step_id][1]
        if other == got:
            continue
        counts["verdicts_changed"] += 1
        hard = expect != "unchanged"
        if got == expect:
            counts["lost"] += 1
            counts["lost_changed_rows"] += hard
        elif other == expect:
            counts["gained"] += 1
            counts["gained_changed_rows"] += hard
    return counts


def print_table(table: dict[str, dict[str, dict[str, int]]]) -> dict[str, dict[str, int]]:
    """Print each rule's totals over the corpora; return them."""
    print()
    print(f"{'rule off':42} {'lost':>5} {'gained':>6} {'lost*':>6} {'gained*':>7}   (* rows not unchanged by truth; untouched-last corpora in brackets)")
    summary = {}
    for key, by_corpus in table.items():
        lost = sum(c["lost"] for c in by_corpus.values())
        gained = sum(c["gained"] for c in by_corpus.values())
        lost_hard = sum(c["lost_changed_rows"] for c in by_corpus.values())
        gained_hard = sum(c["gained_changed_rows"] for c in by_corpus.values())
        last = [by_corpus[name] for name in UNTOUCHED_LAST if name in by_corpus]
        bracket = f"[{sum(c['lost'] for c in last)}/{sum(c['gained'] for c in last)}]" if last else ""
        summary[key] = {"lost": lost, "gained": gained, "lost_changed_rows": lost_hard, "gained_changed_rows": gained_hard}
        print(f"{key:42} {lost:5} {gained:6} {lost_hard:6} {gained_hard:7}   {bracket}")
    return summary


def merge(paths: list[Path], out: Path) -> int:
    """One report from the reports of several parts (each ran other corpora with the same rules)."""
    documents = [json.loads(path.read_text("utf-8")) for path in paths]
    table: dict[str, dict[str, dict[str, int]]] = {}
    for document in documents:
        for rule, by_corpus in document["by_corpus"].items():
            table.setdefault(rule, {}).update(by_corpus)
    merged = {
        "command": documents[0]["command"] + f" (in {len(documents)} parts)",
        "seconds": max(d["seconds"] for d in documents),
        "corpora": {name: totals for d in documents for name, totals in d["corpora"].items()},
        "invariants": {rule: text for d in documents for rule, text in d["invariants"].items()},
        "summary": print_table(table),
        "by_corpus": table,
    }
    out.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n", "utf-8")
    print(f"wrote {out}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", default=[], help="a corpus YAML (repeatable; default: every corpus)")
    parser.add_argument("--rule", action="append", default=[], help="a rule value to ablate (repeatable; default: every one)")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "drift-ablation.json")
    parser.add_argument("--part", default="1/1", help="K/N: only every N-th corpus from the K-th (to run N processes)")
    parser.add_argument("--merge", nargs="+", type=Path, help="merge the reports of the parts into --out, and print the table")
    args = parser.parse_args()
    if args.merge:
        return merge(args.merge, args.out)
    cache = default_cache_dir()
    rules = [s.rule for s in SPECS.values() if not s.essential and (not args.rule or s.rule.value in args.rule)]
    table: dict[str, dict[str, dict[str, int]]] = {f"{r.__class__.__name__}:{r.value}": {} for r in rules}
    totals: dict[str, dict[str, int]] = {}
    start = time.perf_counter()
    part, parts = (int(n) for n in args.part.split("/"))
    for corpus in corpora(args.corpus)[part - 1 :: parts]:
        prepared = prepare_corpus(cache, corpus)
        readers: dict = {}  # what the full matcher read, reused by every ablated one (a policy changes decisions, not reading)
        full = verdicts(match_prepared(cache, prepared, readers=readers))
        hard = [v for v in full.values() if v[0] != "unchanged"]
        totals[corpus.name] = {
            "rows": len(full),
            "right": sum(1 for e, g, _ in full.values() if e == g),
            "changed_rows": len(hard),
            "right_changed_rows": sum(1 for e, g, _ in hard if e == g),
        }
        for rule in rules:
            ablated = verdicts(match_prepared(cache, prepared, policy=Policy(off=frozenset({rule})), readers=readers))
            table[f"{rule.__class__.__name__}:{rule.value}"][corpus.name] = compare(full, ablated)
        print(f"{corpus.name}: {totals[corpus.name]} ({time.perf_counter() - start:.0f} s)", flush=True)
    summary = print_table(table)
    document = {
        "command": " ".join(["benchmarks/ablate_drift_rules.py", *(f"--corpus {c}" for c in args.corpus), *(f"--rule {r}" for r in args.rule)]),
        "seconds": round(time.perf_counter() - start, 1),
        "corpora": totals,
        "invariants": {f"{r.__class__.__name__}:{r.value}": SPECS[r].invariant for r in rules},
        "summary": summary,
        "by_corpus": table,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", "utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
