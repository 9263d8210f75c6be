"""Time the maintainer tools: scaffolding, one-page previews, and the coverage recorder's overhead.

    .venv/bin/python benchmarks/bench_maintainer.py [--repeat 3] [--skip-coverage]

* add      — ``plan_scaffold`` for a bare target and for a line range (index cache warm), the
             work behind ``infralens add`` minus writing the file;
* preview  — ``build_preview`` of one function page and of one lab page (a fresh Sphinx
             project each time, as ``infralens preview --no-serve`` does), Sphinx import excluded;
* coverage — a scenario (``--scenario``, default ``tiny-sd-ddim``) with and without the :class:`CallRecorder`,
             after a warm-up run so imports are not counted.

Prints wall and CPU seconds (median of ``--repeat``). Wall time on a shared machine can be
far above CPU time; the CPU column is the one to compare between runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "diffusers.schedulers.scheduling_ddim.DDIMScheduler.step"
LINES = "diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py:L1000-L1080"
FUNCTION_PAGE = "ddim-step"
LAB_PAGE = "03-scheduler-reading"


def measure(label: str, function, repeat: int) -> None:
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    print(f"{label:42} wall {statistics.median(walls):7.3f} s   cpu {statistics.median(cpus):7.3f} s   (median of {repeat})", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-coverage", action="store_true")
    parser.add_argument("--scenario", default="tiny-sd-ddim", help="scenario for the recorder overhead (default tiny-sd-ddim)")
    args = parser.parse_args()

    from infralens.maintainer.scaffold import parse_selection, plan_scaffold
    from infralens.project import find_project
    from infralens.resolve.resolver import Resolver
    from infralens.source.cache import IndexCache

    project = find_project(ROOT)
    resolver = Resolver(cache=IndexCache())
    plan_scaffold(resolver, parse_selection(TARGET))  # warm the index cache
    plan_scaffold(resolver, parse_selection(LINES))
    measure(f"add {TARGET.rsplit('.', 2)[-2]}.step (plan)", lambda: plan_scaffold(Resolver(cache=IndexCache()), parse_selection(TARGET)), args.repeat)
    measure("add pipeline_stable_diffusion.py:L1000-L1080", lambda: plan_scaffold(Resolver(cache=IndexCache()), parse_selection(LINES)), args.repeat)

    import sphinx.application  # noqa: F401  (import time is not the preview's)

    from infralens.maintainer.preview import build_preview, choose_page

    measure(f"preview {FUNCTION_PAGE} (function page)", lambda: build_preview(project, choose_page(project, FUNCTION_PAGE)), args.repeat)
    if (project.labs_dir / f"lab-{LAB_PAGE}" / "index.md").is_file():
        measure(f"preview {LAB_PAGE} (lab page)", lambda: build_preview(project, choose_page(project, LAB_PAGE)), args.repeat)

    if not args.skip_coverage:
        from infralens.maintainer.coverage import CallRecorder, upstream_roots
        from infralens.tiny.device import pick_device
        from infralens.verify import project_catalog
        from infralens.verify.trace.context import ScenarioContext

        device = pick_device("cpu")
        scenario = project_catalog(project).spec(args.scenario).load()
        scenario(ScenarioContext(device))  # warm-up: imports and first-call costs
        roots = upstream_roots(resolver)

        def recorded() -> None:
            with CallRecorder(roots):
                scenario(ScenarioContext(device))

        measure(f"{args.scenario}, no recorder", lambda: scenario(ScenarioContext(device)), args.repeat)
        measure(f"{args.scenario}, with CallRecorder", recorded, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
