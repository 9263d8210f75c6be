"""Synthetic sources shared by the drift tests (a tiny sampler module and its annotation)."""

from __future__ import annotations

OLD_CORE = """
import math


class Sampler:
    def __init__(self, steps):
        self.steps = steps
        self.scale = 1.0

    def step(self, x, t):
        alpha = math.cos(t / self.steps)
        sigma = math.sin(t / self.steps)
        guided = x * alpha + sigma * 0.5
        out = guided / (alpha + sigma)
        return out


def other(x, t, alpha, sigma):
    y = x + t
    guided = x * alpha + sigma * 0.5
    return guided + y
"""

ANNOTATION = """
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
  - at: "guided = x * alpha + sigma * 0.5"
    key: guided
    note: the line copied into other()
  - at: "out = guided / (alpha + sigma)"
    key: out
    note: normalised output
"""

STEP_OF_SAMPLER = OLD_CORE[OLD_CORE.index("    def step") : OLD_CORE.index("\n\ndef other")]
OTHER = OLD_CORE[OLD_CORE.index("def other") :]


def _without(text: str, line: str) -> str:
    assert line in text
    return text.replace(line + "\n", "")


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


MIXER_ANNOTATION = """
id: mixer
lab: 01-demo
source: demo
target: demo.mixer.Mixer.run
summary: A mixer.
steps:
{steps}
"""
"""An annotation on ``demo.mixer.Mixer.run`` (the matcher's synthetic trees); ``{steps}`` takes the steps' YAML."""
