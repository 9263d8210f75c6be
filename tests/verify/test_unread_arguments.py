"""An argument mutant whose nudged value the called function never reads (or reads only for a tensor's dtype, device
or shape, which the nudge keeps) ran no wrong version: it is equivalent, not a mutant that got past the expects."""

from __future__ import annotations

import textwrap

import pytest
from _device import requires_torch
from verify_helpers import upstream_module

from infralens.reports import MutantVerdict
from infralens.verify.mutate import perturb
from infralens.verify.mutate.trials import Baseline, mutate_steps
from infralens.verify.mutate.unread import METADATA, loads_value
from infralens.verify.trace.context import ScenarioContext
from infralens.verify.trace.execute import execute
from infralens.verify.trace.probes import Probe
from infralens.verify.trace.tracer import Tracer


def _ignores_first(ids, n):
    return n


def _metadata_only(states):
    return states.dtype, tuple(states.shape), states.device


def _calls_a_method(states):
    return states.size()


def _reads_locals(states):
    return locals()


def test_a_parameter_never_loaded_is_unread_and_any_other_load_is_a_read():
    assert not loads_value(_ignores_first.__code__, "ids", metadata=METADATA)
    assert loads_value(_ignores_first.__code__, "n", metadata=METADATA)
    assert not loads_value(_metadata_only.__code__, "states", metadata=METADATA)
    assert loads_value(_metadata_only.__code__, "states", metadata=frozenset())  # metadata counts only when the nudge kept it
    assert loads_value(_calls_a_method.__code__, "states", metadata=METADATA)
    assert loads_value(_reads_locals.__code__, "states", metadata=METADATA)  # reached without loading it


CALLEES = textwrap.dedent(
    """\
    class Box:
        def __init__(self):
            self.items = []
            self.kind = None

        def note(self, ids, n):
            self.items.append(n)

        def start(self, states):
            self.kind = (states.dtype, tuple(states.shape))

        def take(self, states):
            self.items.append(float(states.sum()))

        def keep(self, *parts):
            self.items.append(len(parts))

        def later(self, states):
            return [states for _ in range(1)]


    def run(box, ids, n, states, empty):
        box.note(ids, n)
        box.start(states)
        box.take(states)
        box.start(empty)
        box.keep(states)
        box.later(states)
        return box
    """
)


@pytest.fixture
def callees(tmp_path):
    with upstream_module(tmp_path, "callees", CALLEES) as loaded:
        yield loaded


def _mutate(scenario, probes, keys):
    tracer = Tracer(probes, fingerprint=True)
    context = ScenarioContext("cpu")
    run = execute(scenario, context, tracer)
    assert run.status.value == "passed", run.failure
    baseline = Baseline(run.seconds, tracer.table.fingerprints(), dict(context.facts), tracer.table.trails())
    return mutate_steps(scenario, probes, keys, "cpu", "auto", baseline, 8, timeout=2.0)


@requires_torch
def test_an_argument_the_callee_ignores_or_reads_only_for_metadata_is_equivalent(callees):
    import torch

    module, path = callees
    weak = ("len(box.items) >= 1",)
    probes = (
        Probe("u/note", path, "run", (23, 23), (23, 23), expects=("box.items[-1] == n",), module="callees"),
        Probe("u/start", path, "run", (24, 24), (24, 24), expects=("box.kind[0] == states.dtype",), module="callees"),
        Probe("u/take", path, "run", (25, 25), (25, 25), expects=weak, module="callees"),
        Probe("u/empty", path, "run", (26, 26), (26, 26), expects=("box.kind is not None",), module="callees"),
        Probe("u/star", path, "run", (27, 27), (27, 27), expects=weak, module="callees"),
        Probe("u/closure", path, "run", (28, 28), (28, 28), expects=weak, module="callees"),
    )

    def scenario(ctx):
        module.run(module.Box(), torch.tensor([3, 4]), 5, torch.ones(2, 3), torch.zeros(0))

    found = _mutate(scenario, probes, tuple(p.key for p in probes))

    def arguments(key):
        return [(record.change, record.verdict) for record in found[key].records if record.kind == "argument"]

    assert arguments("u/note") == [
        ("box.note(_infralens_nudge_argument(ids), n)", MutantVerdict.EQUIVALENT),  # `note` never loads `ids`
        ("box.note(ids, _infralens_nudge_argument(n))", MutantVerdict.CAUGHT),
    ]
    # `start` reads dtype and shape only: the nudge is equivalent, and the argument in another dtype is the wrong version
    assert arguments("u/start") == [
        ("box.start(_infralens_nudge_argument(states))", MutantVerdict.EQUIVALENT),
        ("box.start(_infralens_retype_argument(states))", MutantVerdict.CAUGHT),
    ]
    # read for its values, through a starred parameter, by a closure, or its dtype changed (an empty tensor's nudge):
    # each is judged as any value mutant is, and each got past these weak expects
    for key in ("u/take", "u/star", "u/closure", "u/empty"):
        assert [verdict.got_past for _, verdict in arguments(key)] == [True], (key, found[key].records)


@requires_torch
def test_a_retyped_argument_counts_only_where_the_callee_reads_it():
    import torch

    perturb.install()
    perturb.reset()

    def ignores(value):
        return 1

    def reads_dtype(value):
        return value.dtype

    ignores(perturb.retype_argument(torch.ones(2)))  # never loaded: unread
    assert perturb.retype_argument(torch.ones(2, dtype=torch.bool)).dtype == torch.bool  # no other width: unchanged
    assert reads_dtype(perturb.retype_argument(torch.ones(2))) == torch.float64  # metadata is what changed: a read
    assert perturb.applied() == 2 and perturb.changes_read() == 1 and not perturb.read_only_metadata()
    reads_dtype(perturb.nudge_argument(torch.ones(2)))  # a nudge keeps the dtype: unread, through metadata only
    assert perturb.read_only_metadata()


def test_the_watch_ends_at_the_callers_next_call_and_restores_the_profile_hook():
    import sys

    perturb.install()
    perturb.reset()
    assert sys.getprofile() is None

    def ignores(value):
        return 1

    def caller():
        ignores(perturb.nudge_argument(2))  # unread
        len([perturb.nudge_argument(3)])  # a built-in call comes first: counted as read
        return perturb.nudge_argument(4)  # never passed on: the caller's return ends the watch

    assert caller() == 5
    assert sys.getprofile() is None
    assert perturb.applied() == 3 and perturb.changes_read() == 2
