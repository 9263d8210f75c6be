"""Time ``infralens check`` cold and warm, beside the floor and beside ``infralens --version``.

    .venv/bin/python benchmarks/bench_check.py [--repeat 5] [--against diffusers==0.36.0] [--walk]

Every figure is a fresh process, as a user runs it (median of ``--repeat``; wall and CPU seconds):

* ``--version``   — ``infralens --version`` (interpreter start + CLI import);
* ``floor``       — a process that reads and ``ast.parse``-s the same upstream files the lock points to;
* ``check cold``  — ``infralens check`` with ``INFRALENS_CACHE_DIR`` set to a new empty folder each run;
* ``check warm``  — ``infralens check`` again with a populated cache.

Targets: cold <= 3x floor (issue 3), warm <= 1.1x ``--version`` (issue 14; 1.5x in issue 3). With ``--against SPEC`` it also times a
check against another release (cold and warm cache) beside the floor for the files that check must parse.
With ``--walk`` as well, it times ``check --against SPEC --walk`` (every minor series in between, one check each) with a
cold index cache but the wheels already cached (downloads are not timed; budget: 20 s for 5 releases in between).
Wall time on a shared machine can be far above CPU time; both are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INFRALENS = [sys.executable, "-m", "infralens.cli"] if not (ROOT / ".venv/bin/infralens").exists() else [str(ROOT / ".venv/bin/infralens")]

FLOOR_CODE = """
import ast, sys, zipfile
paths = sys.argv[1:]
for path in paths:
    if "!" in path:
        wheel, member = path.split("!", 1)
        data = zipfile.ZipFile(wheel).read(member)
    else:
        data = open(path, "rb").read()
    ast.parse(data)
"""


def run(command: list[str], env: dict | None = None) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the child, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-400:]}")
    return wall, cpu, done.returncode


def measure(label: str, make_command, repeat: int, env_for_run=None) -> tuple[float, float]:
    walls, cpus = [], []
    for index in range(repeat):
        env = env_for_run(index) if env_for_run else None
        wall, cpu, _ = run(make_command(), env)
        walls.append(wall)
        cpus.append(cpu)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    print(f"{label:34} wall {wall:7.3f} s   cpu {cpu:7.3f} s   (median of {repeat})", flush=True)
    return wall, cpu


def locked_files(against: str | None) -> list[str]:
    """The upstream files the lock points to (inside the --against wheel when given)."""
    sys.path.insert(0, str(ROOT / "src"))
    from infralens.drift import read_lock
    from infralens.project import find_project
    from infralens.source import InstalledTree, open_against

    project = find_project(ROOT)
    lock = read_lock(project.lock_path)
    files: list[str] = []
    wheel = None
    if against:
        wheel = open_against(against, {e.distribution for e in lock.annotations.values()})
    trees: dict[str, object] = {}
    for entry in lock.annotations.values():
        if wheel is not None and entry.distribution == wheel.distribution:
            if wheel._exists(entry.relpath):
                files.append(f"{wheel.path}!{entry.relpath}")
            continue
        tree = trees.setdefault(entry.distribution, InstalledTree(entry.distribution))
        files.append(str(tree.root / entry.relpath))
    return sorted(set(files))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", help="also time a check against this release (e.g. diffusers==0.36.0)")
    parser.add_argument("--walk", action="store_true", help="with --against: also time the walk through the releases in between")
    args = parser.parse_args()

    files = locked_files(None)
    print(f"lock points to {len(files)} upstream files; annotations in {ROOT / 'annotations'}")
    with tempfile.TemporaryDirectory(prefix="infralens-bench-") as folder:  # every cache of the run, removed after
        measure_all(args, files, Path(folder))


def measure_all(args: argparse.Namespace, files: list[str], scratch: Path) -> None:
    """Time --version, the floor, cold and warm checks (and --against), with caches under *scratch*."""
    warm_env = {**os.environ, "INFRALENS_CACHE_DIR": str(scratch / "warm")}

    def cold_env(index: int) -> dict:
        return {**os.environ, "INFRALENS_CACHE_DIR": str(scratch / f"cold-{index}")}

    version = measure("infralens --version", lambda: [*INFRALENS, "--version"], args.repeat)
    floor = measure("floor (read + ast.parse)", lambda: [sys.executable, "-c", FLOOR_CODE, *files], args.repeat)
    cold = measure("infralens check, cold cache", lambda: [*INFRALENS, "check"], args.repeat, cold_env)
    run([*INFRALENS, "check"], warm_env)
    warm = measure("infralens check, warm cache", lambda: [*INFRALENS, "check"], args.repeat, lambda _: warm_env)
    print()
    print(f"cold / floor      = {cold[0] / floor[0]:.2f}x wall, {cold[1] / floor[1]:.2f}x cpu   (target <= 3)")
    print(f"warm / --version  = {warm[0] / version[0]:.2f}x wall, {warm[1] / version[1]:.2f}x cpu   (target <= 1.1)")

    if args.against:
        print()
        against_files = locked_files(args.against)  # fetches the wheel once, outside the timings
        wheel = against_files[0].split("!", 1)[0] if "!" in against_files[0] else args.against
        command = [*INFRALENS, "check", "--against", wheel]
        print(f"--against {args.against} = {wheel}")
        floor2 = measure("floor for those files", lambda: [sys.executable, "-c", FLOOR_CODE, *against_files], args.repeat)
        cold2 = measure(
            "check --against, cold index cache", lambda: command, args.repeat, lambda i: {**os.environ, "INFRALENS_CACHE_DIR": str(scratch / f"against-{i}")}
        )
        run(command, warm_env)
        warm2 = measure("check --against, warm index cache", lambda: command, args.repeat, lambda _: warm_env)
        print(
            f"against cold / floor = {cold2[0] / floor2[0]:.2f}x wall, {cold2[1] / floor2[1]:.2f}x cpu; "
            f"warm / floor = {warm2[0] / floor2[0]:.2f}x wall, {warm2[1] / floor2[1]:.2f}x cpu"
        )
        if args.walk:
            measure_walk(args, scratch)


def measure_walk(args: argparse.Namespace, scratch: Path) -> None:
    """``check --against SPEC --walk``: index cache cold each run, every wheel of the walk already downloaded."""
    from infralens.source.cache import default_cache_dir

    walk = [*INFRALENS, "check", "--against", args.against, "--walk"]
    run(walk)  # fetch every wheel of the walk into the user's cache, outside the timings
    wheels = default_cache_dir() / "wheels"
    name = args.against.split("==")[0]
    stops = sorted(p.name for p in wheels.glob(f"{name}-*.whl"))

    def cold_walk(index: int) -> dict:
        folder = scratch / f"walk-{index}"
        folder.mkdir()
        (folder / "wheels").symlink_to(wheels, target_is_directory=True)
        return {**os.environ, "INFRALENS_CACHE_DIR": str(folder)}

    print(f"--walk to {args.against} ({len(stops)} cached {name} wheels available)")
    cold = measure("check --against --walk, cold index", lambda: walk, args.repeat, cold_walk)
    print(f"walk cold = {cold[0]:.1f} s wall, {cold[1]:.1f} s cpu   (target <= 20 s for 5 releases in between)")


if __name__ == "__main__":
    main()
