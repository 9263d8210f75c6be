"""Wall time of ``infralens verify --mutate`` (and of plain ``verify``) over all scenarios.

    .venv/bin/python benchmarks/bench_mutate.py                     # --mutate --jobs 2, then plain verify
    .venv/bin/python benchmarks/bench_mutate.py --jobs 2 --max-mutants 3 --no-plain
    .venv/bin/python benchmarks/bench_mutate.py --scenario forward-noise

Runs the real CLI (``infralens verify --device cpu``, next to this Python) in a fresh process (with the
usual cache folder, so the source index is warm; ``--fresh-cache`` for an empty one), writes the reports
under a temporary folder and prints wall seconds, the
mutation summary line and the targets (issue 13: ``--mutate --jobs 2`` within 10 minutes on a
2-core machine, plain ``verify`` within 60 s). Wall time depends on other load on the machine; the
CPU seconds of the command and its workers do not (much): on an otherwise idle machine, wall time
is about CPU seconds / jobs plus the worker start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

MUTATE_TARGET_S = 600.0
PLAIN_TARGET_S = 60.0


def run(extra: list[str], report: str, cache: str) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (the command and its workers), exit status and the last lines of output of one ``infralens verify``."""
    command = [os.path.join(os.path.dirname(sys.executable), "infralens"), "verify", "--device", "cpu", "--report", report, *extra]
    env = dict(os.environ, INFRALENS_CACHE_DIR=cache) if cache else dict(os.environ)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-4:])
    return seconds, cpu, done.returncode, tail


def _verdict(seconds: float, target: float) -> str:
    return "ok" if seconds <= target else "OVER"


def summarize(report: str) -> str:
    """Steps per tier and how many mutated steps kill at least one mutant."""
    with open(report, encoding="utf-8") as handle:
        steps = json.load(handle)["steps"].values()
    tiers: dict[str, int] = {}
    steps = list(steps)
    for step in steps:
        tiers[step.get("tier", "?")] = tiers.get(step.get("tier", "?"), 0) + 1
    mutated = [step["mutants"] for step in steps if step.get("mutants", {}).get("tried")]
    killing = sum(m.get("killed_by", {}).get("expect", 0) > 0 for m in mutated)
    tried = sum(m["tried"] for m in mutated)
    share = f"{100 * killing / len(mutated):.0f}%" if mutated else "-"
    return f"tiers {tiers}; mutants tried {tried}; steps where an expect catches >= 1: {killing}/{len(mutated)} ({share})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-mutants", type=int, default=None, help="default: the CLI's default")
    parser.add_argument("--scenario", action="append", default=[])
    parser.add_argument("--no-plain", action="store_true", help="skip the plain verify run")
    parser.add_argument("--fresh-cache", action="store_true", help="use an empty cache folder (cold source index; no timing hints)")
    args = parser.parse_args()
    scenarios = [item for name in args.scenario for item in ("--scenario", name)]
    with tempfile.TemporaryDirectory(prefix="infralens-bench-mutate-") as folder:
        cache = os.path.join(folder, "cache") if args.fresh_cache else os.environ.get("INFRALENS_CACHE_DIR", "")
        if not args.no_plain:
            report = os.path.join(folder, "plain.json")
            seconds, cpu, code, _ = run(["--jobs", str(args.jobs), *scenarios], report, cache)
            print(
                f"plain verify --jobs {args.jobs}: {seconds:.1f} s wall, {cpu:.1f} CPU s "
                f"(exit {code}; target {PLAIN_TARGET_S:.0f} s: {_verdict(seconds, PLAIN_TARGET_S)})",
                flush=True,
            )
        report = os.path.join(folder, "mutate.json")
        extra = ["--mutate", "--jobs", str(args.jobs), *scenarios]
        if args.max_mutants is not None:
            extra += ["--max-mutants", str(args.max_mutants)]
        seconds, cpu, code, tail = run(extra, report, cache)
        print(
            f"verify {' '.join(extra)}: {seconds:.1f} s wall, {cpu:.1f} CPU s "
            f"(exit {code}; target {MUTATE_TARGET_S:.0f} s: {_verdict(seconds, MUTATE_TARGET_S)})"
        )
        print(tail)
        if os.path.exists(report):
            print(summarize(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
