"""The committed ``reports/history.json`` (``make history``) covers every annotated distribution: a span of releases
for each, starting where the Makefile's ``--since`` says, and a state in each release for every annotation."""

from __future__ import annotations

import json
import re
from pathlib import Path

from infralens.annotations.load import load_file

REPO = Path(__file__).resolve().parents[2]


def _history() -> dict:
    return json.loads((REPO / "reports" / "history.json").read_text("utf-8"))


def _since() -> dict[str, str]:
    """Distribution → first release, from the Makefile's history target (a bare version is diffusers')."""
    target = re.search(r"^history:.*\n\t(.*)$", (REPO / "Makefile").read_text("utf-8"), re.M)
    assert target, "the Makefile has no history target"
    found = {}
    for value in re.findall(r"--since (\S+)", target.group(1)):
        dist, _, version = value.rpartition("=")
        found[dist or "diffusers"] = version
    return found


def _annotated() -> dict[str, set[str]]:
    """Distribution → the annotation ids of its folder under annotations/."""
    found: dict[str, set[str]] = {}
    for path in sorted((REPO / "annotations").glob("*/*.yaml")):
        loaded = load_file(path)
        assert loaded.annotations and not loaded.diagnostics, path
        found.setdefault(path.parent.name, set()).update(annotation.id for annotation in loaded.annotations)
    return found


def test_every_annotated_distribution_has_its_span_from_the_makefiles_since() -> None:
    spans = {span["distribution"]: span for span in _history()["distributions"]}
    annotated = _annotated()
    assert "transformers" in annotated
    assert sorted(spans) == sorted(annotated), "reports/history.json is older than annotations/: run `make history`"
    for dist, first in _since().items():
        assert spans[dist]["releases"][0] == first, f"{dist}: the history starts at {spans[dist]['releases'][0]}, the Makefile at {first}"
        assert spans[dist]["releases"][-1] == spans[dist]["baseline"], dist
        assert not spans[dist]["missing"], f"{dist}: releases whose wheel could not be read: {spans[dist]['missing']}"
    assert sorted(_since()) == sorted(annotated), "the Makefile's history target names no --since for some distribution"


def test_every_annotation_has_a_state_in_each_release() -> None:
    history = _history()
    releases = {span["distribution"]: len(span["releases"]) for span in history["distributions"]}
    rows = {(row["distribution"], row["id"]): row for row in history["annotations"]}
    annotated = _annotated()
    assert annotated and all(annotated.values()), "no annotations found to look up in the history"
    for dist, ids in annotated.items():
        missing = sorted(i for i in ids if (dist, i) not in rows)
        assert not missing, f"{dist}: annotations without a history row (run `make history`): {missing}"
        for annotation_id in ids:
            row = rows[(dist, annotation_id)]
            assert len(row["states"]) == releases[dist] and all(len(step["states"]) == releases[dist] for step in row["steps"]), annotation_id
