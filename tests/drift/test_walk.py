"""``check --against --walk``: a statement followed release by release, where one jump loses it.

The lock is reviewed on ``demo`` 1.0. In 1.1 the method ``step`` is renamed ``advance`` (body as reviewed);
in 1.2 ``advance`` is rewritten around the statement, which is edited too. Compared in one jump, 1.0 and 1.2
share no function and no statement, so the statement reads as deleted; walked through 1.1, the rename is
one hop (moved) and the edit the next (changed), so it is *changed*.
"""

from __future__ import annotations

import json
import textwrap
import zipfile

import pytest

from infralens.cli import main
from infralens.drift import StepKind, TargetKind, read_lock
from infralens.drift.history.walk import compose_steps, compose_targets, walk_check, walk_stops
from infralens.project import find_project
from infralens.source import WheelTree

REVIEWED = """
class Scheduler:
    def step(self, model_output, sample):
        scale = self.scale
        pred = model_output * 2
        noise = self.noise(sample)
        prev = sample - scale * pred + noise
        return prev

    def noise(self, sample):
        return sample * 0
"""

RELEASES = {
    "1.1.0": REVIEWED.replace("def step(", "def advance("),
    "1.2.0": """
        class Scheduler:
            def advance(self, model_output, sample, generator=None):
                factor = self.config.factor
                pred = model_output * factor
                jitter = self.noise(sample, generator)
                out = (sample - factor * pred) + jitter
                return out

            def noise(self, sample, generator=None):
                return sample * 0
        """,
}

ANNOTATION = """
id: sched-step
lab: 01-demo
source: demo
target: demo.core.Scheduler.step
summary: One step.
steps:
  - at: "pred = model_output * 2"
    key: predict
    note: The prediction, doubled.
  - at: "scale = self.scale"
    key: scale
    note: The scale.
"""


def _wheel(folder, version, text):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"demo-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("demo/__init__.py", "")
        archive.writestr("demo/core.py", textwrap.dedent(text).lstrip("\n"))
        archive.writestr(f"demo-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: demo\nVersion: {version}\n")
    return path


@pytest.fixture
def walk_demo(demo, monkeypatch):
    base = demo.write_source("1.0.0", {"core.py": REVIEWED})
    demo.write_annotation("step.yaml", ANNOTATION)
    demo.lock(base)
    wheels = {version: _wheel(demo.cache / "wheels", version, text) for version, text in RELEASES.items()}
    (demo.cache / "wheels" / "releases-demo.json").write_text(json.dumps({"versions": ["1.0.0", *RELEASES]}), "utf-8")
    return demo, base, wheels


def _walk(demo, base, wheels, versions):
    project = find_project(demo.root)
    lock = read_lock(project.lock_path, "annotations/annotations.lock")
    stops = [(v, WheelTree(wheels[v])) for v in versions]
    return walk_check(project, demo.resolver(base), lock, "demo", stops)


def test_one_jump_loses_the_statement_and_the_walk_follows_it(walk_demo):
    demo, base, wheels = walk_demo
    direct, _ = _walk(demo, base, wheels, ["1.2.0"])
    walked, hops = _walk(demo, base, wheels, ["1.1.0", "1.2.0"])
    kinds = {r.entry.step_id: r.kind for r in direct.steps}
    assert kinds["sched-step/predict"] is StepKind.DELETED
    by_hop = [{r.entry.step_id: r.kind for r in hop.report.steps} for hop in hops]
    assert by_hop[0]["sched-step/predict"] is StepKind.MOVED  # the rename
    assert by_hop[1]["sched-step/predict"] is StepKind.CHANGED  # the edit, judged against 1.1's statement
    predict = next(r for r in walked.steps if r.entry.step_id == "sched-step/predict")
    assert predict.kind is StepKind.CHANGED
    assert predict.entry.version == "1.0" and predict.entry.target == "Scheduler.step"  # the reviewed entry, for the diff
    assert predict.new is not None and predict.new.target == "Scheduler.advance" and predict.new.texts == ("pred = model_output * factor",)
    assert "1.1.0 moved" in predict.evidence and "1.2.0 changed" in predict.evidence
    target = walked.targets[0]
    assert target.kind is TargetKind.RENAMED and target.entry.target == "Scheduler.step"


def test_the_cli_walks_only_when_asked(walk_demo, capsys, monkeypatch):
    demo, base, _ = walk_demo
    monkeypatch.chdir(demo.root)
    source = ["--source", f"demo={base}"]
    main([*source, "check", "--against", "demo==1.2.0", "--format", "json"])
    direct = {k: s["kind"] for k, s in json.loads(capsys.readouterr().out)["steps"].items()}
    main([*source, "check", "--against", "demo==1.2.0", "--walk", "--format", "json"])
    walked = {k: s["kind"] for k, s in json.loads(capsys.readouterr().out)["steps"].items()}
    assert direct["sched-step/predict"] == "deleted" and walked["sched-step/predict"] == "changed"


def test_stops_are_the_newest_release_of_each_series_in_between(walk_demo, monkeypatch):
    demo, _, _ = walk_demo
    (demo.cache / "wheels" / "releases-demo.json").write_text(json.dumps({"versions": ["1.0.0", "1.1.0", "1.1.1", "1.2.0", "1.3.0"]}), "utf-8")
    _wheel(demo.cache / "wheels", "1.1.1", RELEASES["1.1.0"])
    stops, skipped = walk_stops("demo", "1.0.0", "1.3.0", offline=True)
    assert [v for v, _ in stops] == ["1.1.1", "1.2.0"] and skipped == ()
    stops, _ = walk_stops("demo", "1.3.0", "1.0.0", offline=True)  # back to an older release: newest first
    assert [v for v, _ in stops] == ["1.2.0", "1.1.1"]
    stops, skipped = walk_stops("demo", "1.0.0", "1.0.0", offline=True)
    assert stops == [] and skipped == ()


@pytest.mark.parametrize(
    ("hops", "kind"),
    [
        (["unchanged", "unchanged"], "unchanged"),
        (["moved", "unchanged"], "moved"),
        (["moved", "changed"], "changed"),
        (["changed", "moved"], "changed"),
        (["moved", "deleted"], "deleted"),
        (["changed", "deleted"], "deleted"),
        (["moved", "deleted", "unchanged"], "changed"),  # lost in one release, found again in the next: a gap
        (["unchanged", "deleted", "unchanged"], "changed"),  # what came back may be another copy: never unchanged
        (["unreadable", "changed"], "unreadable"),
    ],
)
def test_hop_kinds_compose(hops, kind):
    assert compose_steps([StepKind(h) for h in hops]) is StepKind(kind)


def test_target_kinds_compose():
    assert compose_targets([TargetKind.RENAMED, TargetKind.BODY_CHANGED]) is TargetKind.RENAMED
    assert compose_targets([TargetKind.UNCHANGED, TargetKind.DELETED]) is TargetKind.DELETED
    assert compose_targets([]) is TargetKind.UNCHANGED


def test_history_walks_when_asked(walk_demo):
    from infralens.drift.history import chosen_annotations, plan_history, run_history
    from infralens.reports import ReleaseState as S

    demo, base, _ = walk_demo
    project = find_project(demo.root)
    lock = read_lock(project.lock_path, "annotations/annotations.lock")
    annotations = chosen_annotations(lock, [])
    plans = plan_history(annotations, ("1.1.0",), (), offline=True)
    assert plans[0].releases == ("1.1.0", "1.2.0")
    rows = {}
    for walk in (False, True):
        report = run_history(project, demo.resolver(base), lock, annotations, plans, walk=walk)
        rows[walk] = {step.id: step.states for step in report.annotations[0].steps}
    assert rows[False]["sched-step/predict"] == (S.MOVED, S.DELETED)
    assert rows[True]["sched-step/predict"] == (S.MOVED, S.CHANGED)


def test_a_tree_of_no_known_release_is_one_jump(walk_demo):
    assert walk_stops("demo", "1.0.0", "unknown", offline=True) == ([], ())
