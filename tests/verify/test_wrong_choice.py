"""The value mutant on a pick (``verify --mutate``): another function or class of the same module, a container not empty.

A statement that picks a function or a class, or empties a list or a dict, used to pass through the nudge
unchanged, so its expects could never earn *checked*. These tests pin which other object is picked (same
module, same kind, the next by name, never the object itself), which values still pass through (nothing else
to pick), and that an expect on the picked name catches the wrong pick while a type-only check lets it past.
"""

from __future__ import annotations

import textwrap

import pytest
from verify_helpers import upstream_module

from infralens.reports import MutantVerdict
from infralens.verify.mutate import perturb
from infralens.verify.mutate.choice import NUDGED_KEY
from infralens.verify.mutate.trials import Baseline, mutate_steps
from infralens.verify.trace.context import ScenarioContext
from infralens.verify.trace.execute import execute
from infralens.verify.trace.probes import Probe
from infralens.verify.trace.tracer import Tracer

PICKS = textwrap.dedent(
    """\
    from textwrap import dedent  # imported: never a candidate


    class Layer:
        pass


    class QuantoLayer(Layer):
        pass


    class HqqLayer(Layer):
        pass


    class Alone:
        pass


    def sdpa_mask(size):
        return "sdpa"


    def eager_mask(size):
        return "eager"


    def zeta_helper(size, extra):
        return "two"


    def and_masks(first):
        def and_mask(size):
            return first(size)

        return and_mask


    ALIAS = eager_mask  # a second name for the same function: not a second candidate


    def pick(name):
        interface = {"sdpa": sdpa_mask, "eager": eager_mask}[name]
        return interface


    def pick_weak(name):
        interface = {"sdpa": sdpa_mask, "eager": eager_mask}[name]
        return interface


    def reset(state):
        state["pending"] = []
        return state
    """
)

LONELY = textwrap.dedent(
    """\
    def only(size):
        return size


    class Single:
        pass
    """
)


@pytest.fixture
def picks(tmp_path):
    with upstream_module(tmp_path, "picks", PICKS) as loaded:
        yield loaded


def test_a_function_becomes_the_next_function_of_its_module_by_name_with_as_many_required_arguments(picks):
    module, _ = picks
    perturb.reset()
    assert perturb.nudge(module.eager_mask) is module.pick  # 1 argument: and_masks, eager_mask, pick, pick_weak, ...
    assert perturb.nudge(module.sdpa_mask) is module.and_masks  # past the last name: wraps to the first
    assert perturb.nudge(module.zeta_helper) is module.and_masks  # the only 2-argument one: any function will do
    assert perturb.applied() == 3


def test_a_class_becomes_a_sibling_under_its_nearest_base_and_a_root_class_any_other_class(picks):
    module, _ = picks
    perturb.reset()
    assert perturb.nudge(module.QuantoLayer) is module.HqqLayer
    assert perturb.nudge(module.HqqLayer) is module.Layer  # Layer is a subclass of itself, hence a sibling
    assert perturb.nudge(module.Alone) is module.HqqLayer  # base object: every class of the module, the next by name
    assert perturb.applied() == 3


def test_a_closure_becomes_a_module_function_that_sorts_after_its_name(picks):
    module, _ = picks
    perturb.reset()
    closure = module.and_masks(module.sdpa_mask)
    picked = perturb.nudge(closure)
    assert picked is module.and_masks and picked is not closure and perturb.applied() == 1


def test_nothing_else_to_pick_passes_through_unchanged(tmp_path):
    with upstream_module(tmp_path, "lonely", LONELY) as (module, _):
        perturb.reset()
        for value in (module.only, module.Single, len, textwrap, str.join, "abc".upper, print):
            assert perturb.nudge(value) is value, value
        assert perturb.applied() == 0


def test_in_a_tuple_a_function_changes_only_at_a_named_position(picks):
    module, _ = picks
    perturb.reset()
    unnamed = perturb.nudge((module.eager_mask, module.sdpa_mask))
    assert unnamed == (module.eager_mask,)  # no plain value: one element fewer, as before
    assert perturb.nudge((module.eager_mask, None), 0) == (module.pick, None) and perturb.applied() == 2


def test_an_empty_list_or_dict_gains_one_entry_and_only_as_the_result_itself():
    perturb.reset()
    assert perturb.nudge([]) == [None] and perturb.nudge({}) == {NUDGED_KEY: None}
    assert perturb.nudge(()) == () and perturb.applied() == 2  # an empty tuple has no "not empty" to be
    holder = {"pending": [], "options": {}}
    assert perturb.nudge(([], 3))[1] == 4  # inside a tuple the empty list is no plain value: the int changes
    assert perturb.nudge(holder) == {"pending": []}  # a full dict still loses its last entry
    assert holder == {"pending": [], "options": {}} and perturb.applied() == 4


def _run(module, path, probes, scenario):
    tracer = Tracer(probes, fingerprint=True)
    context = ScenarioContext("cpu")
    run = execute(scenario, context, tracer)
    assert run.status.value == "passed", run.failure
    baseline = Baseline(run.seconds, tracer.table.fingerprints(), dict(context.facts), tracer.table.trails())
    keys = tuple(probe.key for probe in probes)
    return mutate_steps(scenario, probes, keys, "cpu", "auto", baseline, 8, timeout=2.0)


def _values(found, key):
    return [item.verdict for item in found[key].records if item.kind == "value"]


def test_an_expect_on_the_picked_name_catches_the_wrong_pick_and_a_callable_check_lets_it_past(picks):
    module, path = picks
    probes = (
        Probe("p/strong", path, "pick", (43, 43), (43, 43), expects=("interface.__name__ == name + '_mask'",), module="picks"),
        Probe("p/weak", path, "pick_weak", (48, 48), (48, 48), expects=("callable(interface)",), module="picks"),
        Probe("p/reset", path, "reset", (53, 53), (53, 53), expects=("state['pending'] == []",), module="picks"),
    )

    def scenario(ctx):
        module.pick("eager")
        module.pick_weak("sdpa")
        module.reset({})

    found = _run(module, path, probes, scenario)
    assert _values(found, "p/strong") == [MutantVerdict.CAUGHT], found["p/strong"]
    assert [verdict.got_past for verdict in _values(found, "p/weak")] == [True], found["p/weak"]
    assert _values(found, "p/reset") == [MutantVerdict.CAUGHT], found["p/reset"]
    assert module.pick("eager") is module.eager_mask  # restored
