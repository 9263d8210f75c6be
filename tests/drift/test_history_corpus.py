"""Real-history corpus: statements locked from old diffusers wheels, checked against the installed 0.42.1.

The truth table (tests/data/history_corpus.yaml) was decided by reading the sources. The wheels are
downloaded with pip into the InfraLens cache on first use; without a registry the test is skipped.
Goal: zero false "unchanged" and at least 95% of classes right.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from infralens.annotations.models import Annotation, ExactSelector, Step
from infralens.drift import DistributionMatcher, StepKind, compose, entries_for, parse_lock
from infralens.errors import SourceNotFoundError
from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache
from infralens.source.distributions import InstalledTree, WheelTree
from infralens.source.wheels import fetch_wheel

CORPUS = Path(__file__).parents[1] / "data" / "history_corpus.yaml"
pytestmark = [pytest.mark.network, pytest.mark.slow]


def _wheel(version: str) -> Path:
    try:
        return fetch_wheel("diffusers", version)
    except SourceNotFoundError as error:
        pytest.skip(f"no package registry reachable to fetch diffusers=={version} ({error})")


def _annotations(groups: list[dict], release: str) -> list[tuple[Annotation, list[dict]]]:
    result = []
    for number, group in enumerate(groups):
        if group["release"] != release:
            continue
        steps = tuple(Step(at=ExactSelector(item["text"], item.get("nth")), note="", key=f"s{index}") for index, item in enumerate(group["statements"]))
        annotation = Annotation(id=f"history-{number}", lab="corpus", source="diffusers", target=group["target"], summary=group["history"], steps=steps)
        result.append((annotation, group["statements"]))
    return result


def run_corpus(cache_dir: Path, corpus: Path = CORPUS) -> list[tuple[str, str, str, dict, object]]:
    """(release, expected, got, statement, result) for every statement of ``corpus``."""
    groups = yaml.safe_load(corpus.read_text("utf-8"))
    installed = InstalledTree("diffusers")
    rows = []
    for release in sorted({g["release"] for g in groups}):
        old = Resolver({"diffusers": WheelTree(_wheel(release))}, cache=IndexCache(cache_dir))
        entries = []
        expected: dict[str, dict] = {}
        for annotation, statements in _annotations(groups, release):
            resolved, problems = old.resolve_annotation(annotation)
            assert resolved is not None, [str(p) for p in problems]
            entries.extend(entries_for(resolved, old.index(resolved.target.source), f"tests/data/{corpus.name}", "0" * 64))
            for step, statement in zip(annotation.steps, statements, strict=True):
                expected[annotation.step_id(step)] = statement
        lock = parse_lock(compose(None, entries, None, set()), Path("history.lock")).lock  # through the real file format
        matcher = DistributionMatcher(Resolver(cache=IndexCache(cache_dir)), installed)
        for annotation_entry in lock.annotations.values():
            siblings = lock.steps_of(annotation_entry.id)
            for step_entry in siblings:
                result = matcher.step(step_entry, annotation_entry, siblings)
                statement = expected[step_entry.step_id]
                rows.append((release, statement["expect"], result.kind.value, statement, result))
    return rows


def test_history_corpus_against_installed_release(tmp_path_factory):
    from infralens.source.cache import default_cache_dir

    rows = run_corpus(default_cache_dir())
    assert len(rows) >= 60
    assert {r[0] for r in rows} >= {"0.30.3", "0.36.0"}
    false_unchanged = [r for r in rows if r[2] == StepKind.UNCHANGED.value and r[1] != "unchanged"]
    wrong = [r for r in rows if r[1] != r[2]]
    confusion = Counter((r[1], r[2]) for r in rows)
    summary = f"{len(rows) - len(wrong)}/{len(rows)} right; confusion (expected, got): {dict(sorted(confusion.items()))}"
    print(summary)
    for release, want, got, statement, result in wrong:
        print(f"  {release} {want} -> {got}: {statement['text'][:90]!r} ({result.message})")
    assert not false_unchanged, summary
    assert (len(rows) - len(wrong)) / len(rows) >= 0.95, summary
    for _, want, got, statement, result in rows:
        if want == got == "moved" and statement.get("now", "").startswith("diffusers."):
            new_home = statement["now"].split(":")[0]
            assert f"{result.new.module}.{result.new.target}" == new_home, (statement["text"], result.new)
