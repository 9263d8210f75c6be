"""The release wheels the drift corpus guards read, and the command that puts them in the InfraLens cache.

Each corpus (``tests/data/history_corpus.yaml``, ``tests/data/drift_*.yaml``) locks its statements from an old
release's wheel and, where a group names ``against:``, checks them against a newer release's wheel. The wheels live
in ``<InfraLens cache>/wheels`` (``INFRALENS_CACHE_DIR``, by default ``~/.cache/infralens``), which a CI restores
between runs. ``make wheels`` runs this file: it fetches every wheel the corpora name that the cache lacks. Offline
and without them the guards fail and name the wheel and this command; they never skip.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from infralens.errors import SourceNotFoundError
from infralens.source.wheels import fetch_wheel, wheel_cache_dir

DATA = Path(__file__).resolve().parents[1] / "data"
DEFAULT_DISTRIBUTION = "diffusers"
FETCH_COMMAND = "make wheels"


def corpora() -> list[Path]:
    return [DATA / "history_corpus.yaml", *sorted(DATA.glob("drift_*.yaml"))]


def needed_wheels(paths: list[Path] | None = None) -> list[tuple[str, str]]:
    """(distribution, version) of every wheel the corpora read, sorted: each group's release and its ``against:``."""
    needed: set[tuple[str, str]] = set()
    for path in paths or corpora():
        for group in yaml.safe_load(path.read_text("utf-8")):
            distribution = group.get("distribution", DEFAULT_DISTRIBUTION)
            needed.add((distribution, str(group["release"])))
            if group.get("against"):
                needed.add((distribution, str(group["against"])))
    return sorted(needed)


def missing_wheel_message(distribution: str, version: str, error: object) -> str:
    return (
        f"the drift corpus guards need the wheel {distribution}=={version}, which is not in {wheel_cache_dir()} and "
        f"could not be fetched ({error}). Run `{FETCH_COMMAND}` where a package registry is reachable, or restore "
        "the InfraLens cache a CI kept (INFRALENS_CACHE_DIR)"
    )


def main() -> int:
    failed = 0
    wanted = needed_wheels()
    for distribution, version in wanted:
        try:
            fetch_wheel(distribution, version)
        except SourceNotFoundError as error:
            failed += 1
            print(f"{distribution}=={version}: {error}", file=sys.stderr)
    print(f"{len(wanted) - failed} of {len(wanted)} corpus wheels in {wheel_cache_dir()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
