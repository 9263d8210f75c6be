"""Tracer overhead: each scenario untraced vs traced with the project's real probes (median of N runs).

    .venv/bin/python benchmarks/bench_tracer.py                      # every scenario with annotations
    .venv/bin/python benchmarks/bench_tracer.py --scenario tiny-sd-ddim --repeats 7

Times are CPU seconds of the benchmark process (``time.process_time``), so other load on the
machine does not distort the ratio; wall-clock medians are printed too. Each scenario runs in a fresh process
(DiffSynth's loading modes cannot share one), one torch thread, on CPU unless --device says otherwise. Runs alternate untraced/traced after one warm-up
run of each, so machine load drifts affect both alike. Prints a table and the worst ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time


def measure(name: str, repeats: int, device: str, backend: str = "auto") -> dict:
    """In this process: time *name* untraced and traced."""
    from infralens.cli import open_context
    from infralens.project import load_annotations
    from infralens.tiny.device import pick_device
    from infralens.verify.run.plan import build_plan
    from infralens.verify.run.worker import import_probe_modules
    from infralens.verify.trace.context import ScenarioContext
    from infralens.verify.trace.tracer import Tracer

    args = argparse.Namespace(project=None, source=[], no_cache=False)
    project, resolver = open_context(args)
    loaded = load_annotations(project)
    plan = build_plan(project, resolver, loaded.annotations)
    probes = plan.probes_for(name)
    device = pick_device(device)
    spec = plan.catalog.spec(name)
    function = spec.load()
    import_probe_modules(spec.process, probes)  # the instrument backend needs them imported

    def once(traced: bool) -> tuple[float, float]:
        context = ScenarioContext(device)
        wall, cpu = time.perf_counter(), time.process_time()
        if traced:
            with Tracer(probes, backend=backend):
                function(context)
        else:
            function(context)
        return time.perf_counter() - wall, time.process_time() - cpu

    once(False), once(True)  # warm-up: lazy imports, first-call caches
    plain, traced = [], []
    for _ in range(repeats):
        plain.append(once(False))
        traced.append(once(True))
    return {
        "scenario": name,
        "probes": len(probes),
        "untraced": statistics.median(p[1] for p in plain),
        "traced": statistics.median(t[1] for t in traced),
        "untraced_wall": statistics.median(p[0] for p in plain),
        "traced_wall": statistics.median(t[0] for t in traced),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", action="append", default=[])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--backend", default="auto", choices=("auto", "settrace", "instrument", "monitoring"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.scenario[0], args.repeats, args.device, args.backend)))
        return 0
    names = args.scenario or _annotated_scenarios()
    rows = []
    for name in names:
        command = [sys.executable, __file__, "--child", "--scenario", name, "--repeats", str(args.repeats), "--device", args.device, "--backend", args.backend]
        done = subprocess.run(command, check=False, capture_output=True, text=True, env=_env())
        if done.returncode != 0:
            print(f"{name}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
            return 1
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{'scenario':22} {'probes':>6} {'cpu untraced':>12} {'cpu traced':>10} {'ratio':>6} {'wall untraced':>13} {'wall traced':>11} {'ratio':>6}")
    for row in rows:
        print(
            f"{row['scenario']:22} {row['probes']:6d} {row['untraced']:12.4f} {row['traced']:10.4f} {row['traced'] / row['untraced']:6.2f}"
            f" {row['untraced_wall']:13.4f} {row['traced_wall']:11.4f} {row['traced_wall'] / row['untraced_wall']:6.2f}"
        )
    plain, traced = sum(r["untraced"] for r in rows), sum(r["traced"] for r in rows)
    plain_wall, traced_wall = sum(r["untraced_wall"] for r in rows), sum(r["traced_wall"] for r in rows)
    print(
        f"{'all':22} {sum(r['probes'] for r in rows):6d} {plain:12.4f} {traced:10.4f} {traced / plain:6.2f}"
        f" {plain_wall:13.4f} {traced_wall:11.4f} {traced_wall / plain_wall:6.2f}"
    )
    return 0


def _annotated_scenarios() -> list[str]:
    from infralens.cli import open_context
    from infralens.project import load_annotations
    from infralens.verify.run.plan import build_plan

    args = argparse.Namespace(project=None, source=[], no_cache=False)
    project, resolver = open_context(args)
    loaded = load_annotations(project)
    return list(build_plan(project, resolver, loaded.annotations).scenarios())


def _env() -> dict:
    import os

    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TRANSFORMERS_VERBOSITY="error", HF_HUB_OFFLINE="1")
    return env


if __name__ == "__main__":
    sys.exit(main())
