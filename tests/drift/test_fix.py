"""``infralens fix``: re-anchor moved and changed steps in the YAML, flag every drifted step, keep everything else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from drift_samples import ANNOTATION, OLD_CORE, OTHER, _edit, _without

from infralens.cli import main

COMMENTED = "# A hand-written comment that fix must keep.\n" + ANNOTATION.lstrip("\n").replace("steps:\n", "steps:\n  # the steps, in order\n")


def _cli(demo, base: Path, *args: str) -> int:
    return main(["--project", str(demo.root), "--source", f"demo={base}", *args])


def _reviewed(path: Path) -> None:
    """What a maintainer does after re-reading the notes: remove every 'review:' line."""
    path.write_text(re.sub(r"(?m)^ *review: .*\n", "", path.read_text()))


@pytest.fixture
def locked(demo):
    base = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("sampler.yaml", COMMENTED)
    assert _cli(demo, base, "lock") == 0
    return base


def test_a_changed_step_is_re_anchored_flagged_and_then_locks_clean(demo, locked, capsys):
    new = demo.write_source("2.0", {"core.py": _edit(OLD_CORE, "alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) ** 2")})
    path = demo.root / "annotations" / "demo" / "sampler.yaml"
    capsys.readouterr()
    assert _cli(demo, new, "fix") == 0
    out = capsys.readouterr().out
    assert "demo-step/alpha: changed: re-anchored (review: set)" in out
    text = path.read_text()
    assert '  - at: "alpha = math.cos(t / self.steps) ** 2"\n    review: "infralens fix: changed upstream; re-anchored at' in text
    assert text.startswith("# A hand-written comment that fix must keep.\n") and "  # the steps, in order\n" in text
    assert text.count("review:") == 1 and "note: signal scale" in text
    assert _cli(demo, new, "validate") == 0
    assert "step 'alpha' needs review" in capsys.readouterr().err
    assert _cli(demo, new, "lock", "--update") == 0
    assert _cli(demo, new, "check") == 1  # the step is still under review: the lock keeps the mark
    assert "demo-step/alpha: under-review:" in capsys.readouterr().out
    _reviewed(path)
    assert _cli(demo, new, "check") == 0


def test_a_deleted_step_keeps_its_selector_and_is_flagged_with_candidates(demo, locked, capsys):
    new = demo.write_source("2.0", {"core.py": _edit(_without(OLD_CORE, "        guided = x * alpha + sigma * 0.5"), "out = guided /", "out = x /")})
    path = demo.root / "annotations" / "demo" / "sampler.yaml"
    assert _cli(demo, new, "fix") == 0
    text = path.read_text()
    assert '  - at: "guided = x * alpha + sigma * 0.5"\n    review: "infralens fix: deleted upstream:' in text
    assert "closest: " in text and " other" in text
    assert _cli(demo, new, "validate") == 1  # the deleted step is the one error left
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "'guided = x * alpha + sigma * 0.5' matches no statement" in err


def test_a_moved_target_is_rewritten_with_its_steps(demo, locked, capsys):
    moved = {"core.py": "import math\n\n\n" + OTHER, "samplers/__init__.py": "", "samplers/sampler.py": OLD_CORE[: OLD_CORE.index("\n\ndef other")] + "\n"}
    new = demo.write_source("2.0", moved)
    assert _cli(demo, new, "fix") == 0
    text = (demo.root / "annotations" / "demo" / "sampler.yaml").read_text()
    assert "target: demo.samplers.sampler.Sampler.step\n" in text
    assert "review:" not in text  # every statement is byte for byte the same: nothing to re-read
    assert _cli(demo, new, "validate") == 0
    assert _cli(demo, new, "lock", "--update") == 0
    assert _cli(demo, new, "check") == 0


def test_dry_run_prints_the_diff_and_writes_nothing(demo, locked, capsys):
    new = demo.write_source("2.0", {"core.py": _edit(OLD_CORE, "alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) ** 2")})
    path = demo.root / "annotations" / "demo" / "sampler.yaml"
    before = path.read_bytes()
    capsys.readouterr()
    assert _cli(demo, new, "fix", "--dry-run") == 0
    out = capsys.readouterr().out
    assert out.startswith("--- a/annotations/demo/sampler.yaml\n+++ b/annotations/demo/sampler.yaml\n")
    assert '-  - at: "alpha = math.cos(t / self.steps)"' in out and '+  - at: "alpha = math.cos(t / self.steps) ** 2"' in out
    assert path.read_bytes() == before


def test_nothing_to_fix_when_clean(demo, locked, capsys):
    capsys.readouterr()
    assert _cli(demo, locked, "fix") == 0
    assert capsys.readouterr().out == "nothing to fix: every locked step is unchanged\n"


BLOCK = """
id: demo-block
lab: 01-demo
source: demo
target: demo.core.Sampler.step
summary: A block step.
steps:
  - at:
      from: "alpha = math.cos(t / self.steps)"
      to: "sigma = math.sin(t / self.steps)"
    key: scales
    note: both scales
"""


def test_a_changed_block_step_gets_a_new_from_to_selector(demo, capsys):
    base = demo.write_source("1.0", {"core.py": OLD_CORE})
    demo.write_annotation("block.yaml", BLOCK)
    assert _cli(demo, base, "lock") == 0
    moved = OLD_CORE.replace("    def step(self, x, t):\n", "    def step(self, x, t):\n        x = x + 0\n")
    new = demo.write_source("2.0", {"core.py": moved})
    capsys.readouterr()
    assert _cli(demo, new, "check") == 0  # lines shifted only: nothing to fix
    changed = OLD_CORE.replace("alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) * 1.0")
    new = demo.write_source("3.0", {"core.py": changed})
    assert _cli(demo, new, "fix") == 0
    text = (demo.root / "annotations" / "demo" / "block.yaml").read_text()
    assert '  - at:\n      from: "alpha = math.cos(t / self.steps) * 1.0"\n      to: "sigma = math.sin(t / self.steps)"\n    review: ' in text, text
    assert _cli(demo, new, "validate") == 0, text
    out = capsys.readouterr()
    assert "demo-block/scales" in out.out
