"""Positional evidence (issue 28): the diff of the reviewed and the new body places an edited statement.

Synthetic releases as in ``test_match_synthetic``: each test locks a step on release 1.0 of a small module and
checks it against a release 2.0 with one kind of rewrite. Each of these failed before :mod:`.position` existed.
"""

from __future__ import annotations

from types import SimpleNamespace

from drift_samples import MIXER_ANNOTATION as ANNOTATION

from infralens.drift.lock.entries import short_hash
from infralens.drift.match.position import Alignment, Position
from infralens.source.index import index_source

OLD = """
import torch


class Mixer:
    def run(self, x, steps):
        self.steps = steps
        ramp = torch.linspace(0, 1, self.steps)
        sig = self.karras(ramp)
        out = self.scale(sig, x)
        self.done = True
        return out

    def preview(self):
        ramp = torch.linspace(0, 1, self.steps)
        return ramp
"""

# Upstream renamed ramp/sig to sigmas through the block and gave linspace a dtype: every neighbour of the
# linspace line changed too, so neighbour context is zero; the copy of the old line in preview() is a decoy.
NEW = OLD.replace(
    """        ramp = torch.linspace(0, 1, self.steps)
        sig = self.karras(ramp)
        out = self.scale(sig, x)""",
    """        dtype = torch.float64
        device = x.device
        sigmas = torch.linspace(0, 1, self.steps, dtype=dtype)
        sigmas = self.compute_karras_sigmas(sigmas, device=device)
        result = rescale_output(sigmas, x, mode="edm")
        out = result""",
    1,
)


def _check(demo, old: str, new: str, *texts: str):
    steps = "".join(f"  - key: s{n}\n    at: {text!r}\n    note: step {n}\n" for n, text in enumerate(texts))
    demo.write_annotation("mixer.yaml", ANNOTATION.format(steps=steps.rstrip("\n")))
    demo.lock(demo.write_source("1.0", {"mixer.py": old}))
    report = demo.check(demo.write_source("2.0", {"mixer.py": new}))
    return {s.entry.step_id.split("/")[1]: s for s in report.steps}


def test_a_rewrite_whose_neighbours_changed_too_is_changed_not_deleted(demo):
    steps = _check(demo, OLD, NEW, "ramp = torch.linspace(0, 1, self.steps)")
    step = steps["s0"]
    assert step.kind.value == "changed" and step.rule in ("edit", "same-action"), step.message  # keywords: same-action
    assert step.new is not None and step.new.texts == ("sigmas = torch . linspace ( 0 , 1 , self . steps , dtype = dtype )",)
    assert "position in its hunk" in step.evidence


def test_a_renamed_action_outside_the_steps_hunk_with_no_neighbours_is_not_its_edit(demo):
    old = OLD.replace("        self.done = True\n", "        if quantizer is None:\n            self.done = True\n")
    # The check went; a look-alike on another name arrived at the other end of the function.
    new = old.replace("        if quantizer is None:\n            self.done = True\n", "        self.done = True\n").replace(
        "        self.steps = steps\n", "        if dtype is None:\n            dtype = x.dtype\n        self.steps = steps\n"
    )
    steps = _check(demo, old, new, "if quantizer is None:")
    assert steps["s0"].kind.value == "deleted", steps["s0"].message


def _aligned(old: str, new: str):
    """The bodies of ``f`` in two versions, aligned; and the new body's statements."""

    def body(code: str):
        return tuple(s for s in index_source(code).statements if s.scope == "f")

    new_body = body(new)
    return Alignment(tuple(short_hash(s.text) for s in body(old)), new_body), new_body


def _step(text: str):
    """A stand-in for a locked step: what the alignment reads of one (its first text, its occurrence)."""
    return SimpleNamespace(texts=(text,), occurrence=1)


def test_alignment_pairs_ranks_inside_an_equal_hunk():
    alignment, new_body = _aligned("def f():\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n", "def f():\n    a = 1\n    b = 20\n    c = 30\n    d = 4\n")
    positions = [alignment.position(_step("b = 2"), s) for s in new_body]  # type: ignore[arg-type]
    assert positions == [Position.OUTSIDE, Position.PAIRED, Position.IN_HUNK, Position.OUTSIDE]


def test_a_call_that_gained_a_keyword_and_a_new_name_is_the_same_action(demo):
    # ``sig = self.karras(ramp)`` became ``sigmas = self.karras(ramp, rho=self.rho, device=x.device)``... too far; one
    # keyword and one rename keep the action: the replacement is named, and neighbours all changed around it.
    old = OLD.replace("        sig = self.karras(ramp)\n", "        sig = self.karras(ramp)\n        sig.flag = 1\n")
    new = NEW.replace(
        "        sigmas = self.compute_karras_sigmas(sigmas, device=device)\n",
        "        sigma = self.karras(ramp, rho=self.rho)\n",
    )
    steps = _check(demo, old, new, "sig = self.karras(ramp)")
    step = steps["s0"]
    assert (step.kind.value, step.rule) == ("changed", "same-action"), step.message
    assert "keyword arguments changed: sig -> sigma, rho=" in step.message


def test_rank_gap_prefers_the_old_statement_at_the_nearer_rank():
    alignment, new_body = _aligned(
        "def f():\n    a = 1\n    b = g(x, flag=True)\n    c = 0\n    b = g(x)\n    d = 4\n", "def f():\n    a = 1\n    b = h(x)\n    d = 4\n"
    )
    first, second = _step("b = g ( x , flag = True )"), _step("b = g ( x )")
    assert alignment.rank_gap(first, new_body[1]) == 0  # type: ignore[arg-type]
    assert alignment.rank_gap(second, new_body[1]) == 2  # type: ignore[arg-type]
    assert alignment.rank_gap(first, new_body[0]) is None  # type: ignore[arg-type]
