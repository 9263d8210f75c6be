"""Sources and a project for the 'infralens fix' tests: annotations locked against a synthetic distribution 'demo'."""

from __future__ import annotations

from pathlib import Path

DIST = "fakedist"


FIX_PYPROJECT = '[tool.infralens]\nannotations = "annotations"\nlabs = "labs"\nlock = "annotations/annotations.lock"\n'

CORE = """\
import math


class Sampler:
    def __init__(self, steps):
        self.steps = steps
        self.sigmas = [0.0, 0.5, 1.0]

    def step(self, x, t):
        alpha = math.cos(t / self.steps)
        sigma = math.sin(t / self.steps)
        guided = x * alpha + sigma * self.sigmas[t + 1]
        out = guided / (alpha + sigma)
        return out


def other(x, t):
    y = x + t
    z = y * 2
    return z
"""

STEP_ANNOTATION = """\
# A comment fix keeps.
id: demo-step
lab: 01-demo
source: demo
target: demo.core.Sampler.step
summary: A made-up sampler step.
steps:
  - at: "alpha = math.cos(t / self.steps)"
    key: alpha
    note: signal scale
  - at: "sigma = math.sin(t / self.steps)"
    key: sigma
    note: noise scale
  - at: {contains: "self.sigmas[t + 1]"}
    key: guided
    note: guidance
  - at: "out = guided / (alpha + sigma)"
    key: out
    note: normalised output
"""


class FixProject:
    """A project whose annotations are locked against ``demo`` 1.0; ``release`` writes a later one."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def release(self, version: str, core: str, **files: str) -> Path:
        base = self.root.parent / f"demo-{version}"
        for relpath, text in {"core.py": core, **{k.replace("__", "/") + ".py": v for k, v in files.items()}}.items():
            path = base / "demo" / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
        (base / "demo" / "__init__.py").write_text(f"__version__ = {version!r}\n", "utf-8")
        return base

    def annotation(self, name: str, text: str | bytes) -> Path:
        path = self.root / "annotations" / "demo" / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, "utf-8", newline="")
        return path

    def run(self, base: Path, *args: str) -> int:
        from infralens.cli import main

        return main(["--project", str(self.root), "--source", f"demo={base}", *args])

    def locked(self, *annotations: tuple[str, str | bytes]) -> Path:
        """Write the annotations, lock them against release 1.0, and return that release's folder."""
        base = self.release("1.0", CORE)
        for name, text in annotations:
            self.annotation(name, text)
        assert self.run(base, "lock") == 0
        return base


OTHER_ANNOTATION = """\
id: demo-other
lab: 01-demo
source: demo
target: demo.core.other
summary: A made-up helper.
steps:
  - at: "z = y * 2"
    key: z
    note: doubled
"""
CHANGED_BOTH = CORE.replace("alpha = math.cos(t / self.steps)", "alpha = math.cos(t / self.steps) ** 2").replace("z = y * 2", "z = y * 3")
"""A release where a statement of each of ``STEP_ANNOTATION`` and ``OTHER_ANNOTATION`` changed: fix writes two files."""
RENAMED = CORE.replace("class Sampler:", "class EulerSampler:")
"""A release where ``Sampler`` became ``EulerSampler``."""
