"""``infralens matrix --emit github-actions``: the matrix as a GitHub Actions workflow, one job per cell.

Each ``cell`` job runs ``infralens matrix --cell DIST==X.Y.Z,DEVICE`` on its own runner (``ubuntu-latest``
for cpu, a GPU runner label for cuda), restores and saves the InfraLens cache with ``actions/cache`` and
uploads its cell report; the ``merge`` job downloads them all and runs ``infralens matrix --merge``, the
merge a local run uses, under the exit policy. The cache is restored in three parts, each under its own key
(see ``docs/guide/matrix.md``): the release's wheel, the release's verify environment (it depends on the
project's environment, so its key hashes the dependency files), and the content-addressed index and
check caches (always saved anew, the newest restored). The text is generated the same way every time, so a
committed workflow can be compared with what the command writes now.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

import yaml

from infralens.matrix.cells import Cell

CACHE_DIR = "${{ github.workspace }}/.infralens-cache"
STEP_CACHE = ".infralens-cache"
"""The cache root in the workflow (``INFRALENS_CACHE_DIR``), relative to the workspace for ``actions/cache``."""


@dataclass(frozen=True)
class WorkflowOptions:
    """What the emitted workflow needs besides its cells."""

    releases: tuple[str, ...]
    """The ``--releases`` values as given (written into the header and the merge job's command)."""
    devices: tuple[str, ...]
    scenarios: tuple[str, ...] = ()
    policy: str = "newest"
    gpu_runner: str = "gpu"
    """``runs-on`` label of the cuda cells."""
    python: str = "3.11"
    install: str = "pip install -e ."
    """How a job installs the project and InfraLens."""
    dependency_files: str = "pyproject.toml"
    """Glob(s) of the files that pin the project's environment (a verify environment's cache key hashes them)."""
    project: str | None = None
    name: str = "infralens matrix"


def _matrix_args(options: WorkflowOptions) -> list[str]:
    args = [arg for scenario in options.scenarios for arg in ("--scenario", scenario)]
    return (["--project", options.project] if options.project else []) + args


def command_line(options: WorkflowOptions) -> str:
    """The ``infralens matrix --emit`` command that writes this workflow (its header says it)."""
    args = ["infralens", "matrix", "--emit", "github-actions"]
    args += [arg for release in options.releases for arg in ("--releases", release)]
    args += ["--devices", ",".join(options.devices), "--fail-on", options.policy, *_matrix_args(options)]
    if options.gpu_runner != WorkflowOptions.gpu_runner:
        args += ["--gpu-runner", options.gpu_runner]
    if options.install != WorkflowOptions.install:
        args += ["--install", options.install]
    return shlex.join(args)


def _cache_steps(cell_keyed: bool) -> list[dict[str, object]]:
    release = "${{ matrix.release }}" if cell_keyed else "all"
    deps = "${{ hashFiles(env.INFRALENS_DEPENDENCY_FILES) }}"
    steps: list[dict[str, object]] = [
        {
            "name": "Restore the index and check caches (content-addressed: any older copy is safe)",
            "uses": "actions/cache@v4",
            "with": {
                "path": f"{STEP_CACHE}/index-v*\n{STEP_CACHE}/check-v*\n{STEP_CACHE}/verify-timings\n",
                "key": "infralens-index-${{ runner.os }}-${{ github.run_id }}-" + ("${{ matrix.slug }}" if cell_keyed else "merge"),
                "restore-keys": "infralens-index-${{ runner.os }}-\n",
            },
        }
    ]
    if cell_keyed:
        steps += [
            {
                "name": "Restore the release's wheel",
                "uses": "actions/cache@v4",
                "with": {"path": f"{STEP_CACHE}/wheels", "key": f"infralens-wheels-{release}"},
            },
            {
                "name": "Restore the release's verify environment",
                "uses": "actions/cache@v4",
                "with": {
                    "path": f"{STEP_CACHE}/verify-envs",
                    "key": f"infralens-verify-env-${{{{ runner.os }}}}-py${{{{ env.PYTHON_VERSION }}}}-{release}-{deps}",
                },
            },
        ]
    return steps


def _setup(options: WorkflowOptions) -> list[dict[str, object]]:
    return [
        {"uses": "actions/checkout@v4"},
        {"uses": "actions/setup-python@v5", "with": {"python-version": "${{ env.PYTHON_VERSION }}"}},
        {"name": "Install the project and InfraLens", "run": options.install},
    ]


def workflow(cells: Sequence[Cell], options: WorkflowOptions) -> dict[str, object]:
    """The workflow document."""
    include = [
        {"release": cell.pin, "device": cell.device, "runner": options.gpu_runner if cell.device == "cuda" else "ubuntu-latest", "slug": cell.slug}
        for cell in cells
    ]
    extra = shlex.join(_matrix_args(options))
    cell_run = f'infralens matrix --cell "${{{{ matrix.release }}}},${{{{ matrix.device }}}}" --fail-on none {extra} --out "cell-${{{{ matrix.slug }}}}.json"'
    releases = " ".join(f"--releases {shlex.quote(release)}" for release in options.releases)
    merge_run = (
        f"infralens matrix --merge cells/cell-*.json {releases} --devices {','.join(options.devices)} "
        f"--fail-on {options.policy} {extra} --out combined.json --history-runs history-runs.json"
    )
    cell_job = {
        "name": "${{ matrix.release }} on ${{ matrix.device }}",
        "runs-on": "${{ matrix.runner }}",
        "timeout-minutes": 60,
        "strategy": {"fail-fast": False, "matrix": {"include": include}},
        "steps": [
            *_setup(options),
            *_cache_steps(cell_keyed=True),
            {"name": "Run the cell (its findings are judged by the merge job)", "run": " ".join(cell_run.split())},
            {
                "uses": "actions/upload-artifact@v4",
                "if": "${{ !cancelled() }}",
                "with": {"name": "matrix-cell-${{ matrix.slug }}", "path": "cell-${{ matrix.slug }}.json", "if-no-files-found": "error"},
            },
        ],
    }
    merge_job = {
        "needs": "cell",
        "if": "${{ !cancelled() }}",
        "runs-on": "ubuntu-latest",
        "timeout-minutes": 15,
        "steps": [
            *_setup(options),
            {"uses": "actions/download-artifact@v4", "with": {"pattern": "matrix-cell-*", "path": "cells", "merge-multiple": True}},
            {"name": "Merge the cells under the exit policy", "run": " ".join(merge_run.split())},
            {
                "uses": "actions/upload-artifact@v4",
                "if": "${{ !cancelled() }}",
                "with": {"name": "matrix-combined", "path": "combined.json\nhistory-runs.json\n", "if-no-files-found": "warn"},
            },
        ],
    }
    return {
        "name": options.name,
        "on": {"workflow_dispatch": None, "schedule": [{"cron": "0 4 * * 1"}]},
        "permissions": {"contents": "read"},
        "env": {"PYTHON_VERSION": options.python, "INFRALENS_CACHE_DIR": CACHE_DIR, "INFRALENS_DEPENDENCY_FILES": options.dependency_files},
        "jobs": {"cell": cell_job, "merge": merge_job},
    }


def workflow_text(cells: Sequence[Cell], options: WorkflowOptions) -> str:
    """The workflow as YAML, with a header naming the command that writes it."""
    header = (
        f"# Generated by: {command_line(options)}\n"
        "# Do not edit by hand: run the command again (a test compares this file with its output).\n"
        "# One job per release and device runs `infralens matrix --cell`; the merge job runs `infralens matrix --merge`.\n"
    )
    body = yaml.dump(workflow(cells, options), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=200, default_flow_style=False)
    return header + body


class _Dumper(yaml.SafeDumper):
    """Safe YAML whose multi-line strings (lists of cache paths) are written as ``|`` blocks."""


def _string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _string)
