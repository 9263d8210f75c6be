"""Time ``infralens history`` for the whole annotation set, cold and warm, downloads excluded.

    .venv/bin/python benchmarks/bench_history.py [--repeat 1] [--full] [--walk]

Every figure is a fresh ``infralens history ... --offline --format json`` process:

* ``cold`` — ``INFRALENS_CACHE_DIR`` is a new folder holding only the wheels (linked from your cache):
  no parsed index, no remembered release; every changed file of every release is read and indexed;
* ``warm`` — the same command again on that folder.

The 13-release run is diffusers 0.30.0 → 0.42.x with ``--per-series`` (the newest release of each
minor series: 13 of them) plus diffsynth's 2.0 and 2.1 series. ``--full`` also times the committed
report's range (every final release since diffusers 0.30.0 and diffsynth 2.0.0). Missing wheels are
fetched once before any timing (issue 17 targets: cold <= 60 s, warm <= 5 s). ``--walk`` times ``history --walk``
(each release reached through the ones before it; its rows are not remembered, so warm only saves the indexing).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INFRALENS = [str(ROOT / ".venv/bin/infralens")] if (ROOT / ".venv/bin/infralens").exists() else [sys.executable, "-m", "infralens.cli"]
RANGE = ["--since", "0.30.0", "--since", "diffsynth=2.0.0"]
RUNS = {"13 releases (--per-series)": [*RANGE, "--per-series"], "every final release (the committed report)": RANGE}


def history(arguments: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall seconds of one ``infralens history`` process, and its report."""
    start = time.perf_counter()
    done = subprocess.run([*INFRALENS, "history", *arguments, "--format", "json"], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"infralens history {' '.join(arguments)} failed ({done.returncode}): {done.stderr[-600:]}")
    return seconds, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--full", action="store_true", help="also time every final release since 0.30.0 / 2.0.0")
    parser.add_argument("--walk", action="store_true", help="time history --walk instead")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from infralens.cachedir import cache_root

    wheels = Path(cache_root()) / "wheels"
    runs = {label: [*arguments, "--walk"] if args.walk else arguments for label, arguments in list(RUNS.items())[: 2 if args.full else 1]}
    for label, arguments in runs.items():
        print(f"{label}: making sure every wheel is cached (not timed) ...", flush=True)
        history(arguments, dict(os.environ))  # fetches what is missing into the user's cache
        colds, warms, sizes = [], [], set()
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="infralens-bench-history-") as folder:
                (Path(folder) / "wheels").symlink_to(wheels, target_is_directory=True)
                env = {**os.environ, "INFRALENS_CACHE_DIR": folder}
                cold, report = history([*arguments, "--offline"], env)
                warm, again = history([*arguments, "--offline"], env)
                if again != report:
                    raise SystemExit("the warm run's report differs from the cold run's")
                colds.append(cold)
                warms.append(warm)
                sizes.add(_releases(report))
        print(f"  {sizes.pop()}")
        print(f"  cold {statistics.median(colds):6.1f} s wall   (target <= 60 s; median of {args.repeat})")
        print(f"  warm {statistics.median(warms):6.2f} s wall   (target <= 5 s)", flush=True)


def _releases(report: str) -> str:
    import json

    data = json.loads(report)
    steps = sum(len(a["steps"]) for a in data["annotations"])
    spans = ", ".join(f"{d['distribution']} {len(d['releases'])} releases ({d['releases'][0]}-{d['releases'][-1]})" for d in data["distributions"])
    return f"{len(data['annotations'])} annotations, {steps} steps; {spans}"


if __name__ == "__main__":
    main()
