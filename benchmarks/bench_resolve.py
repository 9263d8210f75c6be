"""Time resolving every annotation in annotations/: cold cache, warm cache, and the floor.

    .venv/bin/python benchmarks/bench_resolve.py [--repeat 3] [--jobs N]

* cold  — an empty ``INFRALENS_CACHE_DIR``: every upstream file is parsed by libcst
  (libcst's import time included, as a user pays it);
* warm  — the same cache directory again, in a new process: every index is a JSON read;
* floor — reading the same upstream files and ``ast.parse``-ing them, nothing else.

Each phase runs in its own fresh interpreter (so nothing is memoised between phases)
and times itself from before loading the annotations to the end; interpreter start-up
is not counted. Prints one line per phase and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children (parse workers)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def phase_resolve(jobs: int | None) -> dict:
    start, cpu_start = time.perf_counter(), cpu_seconds()
    from infralens.project import find_project, load_annotations
    from infralens.resolve.resolver import Resolver
    from infralens.source.cache import IndexCache

    project = find_project(ROOT)
    loaded = load_annotations(project)
    cache = IndexCache()
    resolver = Resolver(cache=cache)
    resolver.prefetch(loaded.annotations, jobs=jobs)  # what `infralens validate` does
    failures = 0
    for annotation in loaded.annotations:
        resolved, _problems = resolver.resolve_annotation(annotation)
        failures += resolved is None
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
    files = sorted({(source.origin, source.relpath) for source in resolver._files.values()})
    return {
        "seconds": seconds,
        "cpu": cpu,
        "annotations": len(loaded.annotations),
        "steps": sum(len(a.steps) for a in loaded.annotations),
        "failures": failures,
        "files": [str(Path(origin.removeprefix("installed at ")) / rel) for origin, rel in files],
        "misses": cache.misses,
        "hits": cache.hits,
    }


def phase_floor(paths: list[str]) -> dict:
    start, cpu_start = time.perf_counter(), cpu_seconds()
    import ast

    for path in paths:
        ast.parse(Path(path).read_bytes())
    return {"seconds": time.perf_counter() - start, "cpu": cpu_seconds() - cpu_start}


def run_phase(args: list[str], cache_dir: str) -> dict:
    env = {**os.environ, "INFRALENS_CACHE_DIR": cache_dir}
    output = subprocess.run([sys.executable, __file__, *args], env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per phase (the median is shown)")
    parser.add_argument("--jobs", type=int, default=None, help="parse cache misses in N processes (default: one per CPU; 1 = serial)")
    parser.add_argument("--phase", choices=("resolve", "floor"), help=argparse.SUPPRESS)
    parser.add_argument("--files", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "resolve":
        print(json.dumps(phase_resolve(args.jobs)))
        return
    if args.phase == "floor":
        print(json.dumps(phase_floor(json.loads(Path(args.files).read_text()))))
        return

    jobs = ["--jobs", str(args.jobs)] if args.jobs is not None else []
    cold, warm, floor = [], [], []
    info = None
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="infralens-bench-") as cache_dir:
            first = run_phase(["--phase", "resolve", *jobs], cache_dir)
            second = run_phase(["--phase", "resolve", *jobs], cache_dir)
            if second["misses"]:
                print(f"note: the warm run parsed {second['misses']} file(s): annotations changed between runs?", file=sys.stderr)
            cold.append((first["seconds"], first["cpu"]))
            warm.append((second["seconds"], second["cpu"]))
            info = first
            files_json = Path(cache_dir) / "files.json"
            files_json.write_text(json.dumps(first["files"]))
            measured = run_phase(["--phase", "floor", "--files", str(files_json)], cache_dir)
            floor.append((measured["seconds"], measured["cpu"]))
    assert info is not None
    size = sum(Path(p).stat().st_size for p in info["files"])
    load = os.getloadavg()[0]
    print(f"command: {sys.executable} benchmarks/bench_resolve.py --repeat {args.repeat}" + (f" --jobs {args.jobs}" if args.jobs is not None else ""))
    print(
        f"resolved {info['annotations']} annotations ({info['steps']} steps, {info['failures']} failing) "
        f"in {len(info['files'])} upstream files ({size / 1e6:.2f} MB); median of {args.repeat} runs; "
        f"{os.cpu_count()} CPUs, load average {load:.1f}"
    )
    f_wall = statistics.median(run[0] for run in floor)
    print(f"{'':36}{'wall':>9} {'cpu':>9}   wall vs floor")
    for label, runs in (("cold  (empty cache, libcst parse)", cold), ("warm  (cache hit, JSON read)", warm), ("floor (read + ast.parse)", floor)):
        wall, cpu = (statistics.median(x) for x in zip(*runs, strict=True))
        print(f"{label:36}{wall * 1000:7.0f}ms {cpu * 1000:7.0f}ms   {wall / f_wall:5.1f}x")


if __name__ == "__main__":
    main()
