"""A ``return`` statement's expects read the returned value as ``__return__`` (``verify --mutate``).

A returned value never lands in a name of its frame, so before, the value mutant of a ``return`` reached no expect of
its own step: it was stopped by the scenario or caught downstream, and the step stayed *ran* however sharp its claim.
With ``__return__`` the step's own expect rejects the nudged value, and an expect that does not read it still lets
the same mutant past.
"""

from __future__ import annotations

import textwrap

import pytest
from verify_helpers import upstream_module

from infralens.reports import MutantVerdict
from infralens.verify.mutate.trials import Baseline, mutate_steps
from infralens.verify.trace.context import ScenarioContext
from infralens.verify.trace.execute import execute
from infralens.verify.trace.probes import Probe
from infralens.verify.trace.tracer import Tracer

SOURCE = textwrap.dedent(
    """\
    def scaled(values, factor):
        total = sum(values)
        return total * factor, len(values)


    def scaled_again(values, factor):
        total = sum(values)
        return total * factor, len(values)
    """
)


@pytest.fixture
def returns(tmp_path):
    with upstream_module(tmp_path, "returns_mod", SOURCE) as loaded:
        yield loaded


def _mutate(module, probes):
    def scenario(ctx):
        module.scaled([1, 2, 3], 4)
        module.scaled_again([1, 2, 3], 4)

    tracer = Tracer(probes, fingerprint=True)
    context = ScenarioContext("cpu")
    run = execute(scenario, context, tracer)
    assert run.status.value == "passed", run.failure
    baseline = Baseline(run.seconds, tracer.table.fingerprints(), dict(context.facts), tracer.table.trails())
    return mutate_steps(scenario, probes, tuple(p.key for p in probes), "cpu", "auto", baseline, 8, timeout=2.0)


def test_the_returned_value_is_pinned_by_its_own_expect_only_when_the_expect_reads_it(returns):
    module, path = returns
    probes = (
        Probe("r/own", path, "scaled", (3, 3), (3, 3), expects=("__return__ == (total * factor, len(values))",), module="returns_mod"),
        Probe("r/blind", path, "scaled_again", (8, 8), (8, 8), expects=("total == sum(values)",), module="returns_mod"),
    )
    found = _mutate(module, probes)
    own = [r for r in found["r/own"].records if r.kind == "value"]
    blind = [r for r in found["r/blind"].records if r.kind == "value"]
    assert own and all(r.verdict is MutantVerdict.CAUGHT and r.caught_by == "r/own" for r in own), found["r/own"]
    assert blind and all(r.verdict is not MutantVerdict.CAUGHT for r in blind), found["r/blind"]
    assert module.scaled([1], 2) == (2, 1)  # the original code is back
