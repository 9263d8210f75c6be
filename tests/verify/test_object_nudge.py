"""The value mutant on object results (``verify --mutate``): a shallow copy with one field changed.

A statement whose result is a model output, a cache, a generator or a layer used to pass through the nudge
unchanged, so its value mutant was equivalent by construction and no expect on such a step could earn
*checked*. These tests pin which field changes, that the caller's object is never changed in place, and
which objects still pass through (equivalent: nothing to change).
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections import OrderedDict
from typing import Any

import pytest
from _device import requires_torch
from verify_helpers import upstream_module

from infralens.reports import MutantVerdict
from infralens.verify.mutate import perturb
from infralens.verify.mutate.trials import Baseline, mutate_steps
from infralens.verify.trace.context import ScenarioContext
from infralens.verify.trace.execute import execute
from infralens.verify.trace.probes import Probe
from infralens.verify.trace.tracer import Tracer


class Output(OrderedDict):  # a ModelOutput-like mapping: keys in order, values of any kind
    pass


class Plain:
    def __init__(self) -> None:
        self._private = 5
        self.name = "layer"
        self.count = 2
        self.parts = [1, 2]


class Empty:
    def __init__(self) -> None:
        self.parts: list[int] = []
        self._hidden = 3


class Refuses:
    def __init__(self) -> None:
        self.count = 1

    def __copy__(self) -> Any:
        raise RuntimeError("no copies")


class Slotted:
    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 1


@dataclasses.dataclass(frozen=True)
class Frozen:
    label: str
    size: int


def test_a_plain_object_is_copied_with_its_first_public_field_changed():
    perturb.reset()
    original = Plain()
    nudged = perturb.nudge(original)
    assert nudged is not original and type(nudged) is Plain
    assert (nudged.name, nudged.count, nudged._private) == ("layer_", 2, 5)  # private fields are skipped
    assert nudged.parts is original.parts  # shallow: the untouched fields are shared
    assert (original.name, original.count) == ("layer", 2) and perturb.applied() == 1


def test_a_frozen_dataclass_changes_its_first_field_in_declaration_order():
    perturb.reset()
    original = Frozen("a", 3)
    nudged = perturb.nudge(original)
    assert nudged == Frozen("a_", 3) and original == Frozen("a", 3) and perturb.applied() == 1


def test_a_mapping_changes_its_first_value_that_can_change():
    perturb.reset()
    original = Output(cache=object(), steps=4, name="x")
    nudged = perturb.nudge(original)
    assert type(nudged) is Output and list(nudged) == ["cache", "steps", "name"]
    assert nudged["steps"] == 5 and nudged["name"] == "x" and nudged["cache"] is original["cache"]
    assert original["steps"] == 4 and perturb.applied() == 1


def test_objects_with_nothing_to_change_pass_through_and_count_as_unchanged():
    perturb.reset()
    for value in (Empty(), Refuses(), Slotted(), textwrap, len, set(), Output(cache=None)):  # functions, classes: see test_wrong_choice
        assert perturb.nudge(value) is value, value
    assert perturb.applied() == 0


def test_a_set_loses_its_greatest_member_and_the_callers_set_is_untouched():
    perturb.reset()
    original = {"b", "a", "c"}
    assert perturb.nudge(original) == {"a", "b"} and original == {"a", "b", "c"}
    assert perturb.nudge(frozenset({3, 1})) == frozenset({1}) and perturb.applied() == 2


def test_in_a_sequence_an_object_changes_only_at_a_named_position():
    perturb.reset()
    holder = Plain()
    first = perturb.nudge((holder, 3))
    assert first[0] is holder and first[1] == 4
    assert perturb.nudge([holder, Plain()]) == [holder]  # no plain value: one element fewer, as before
    named = perturb.nudge((holder, None), 0)
    assert named[0] is not holder and named[0].name == "layer_" and holder.name == "layer" and named[1] is None
    assert perturb.applied() == 3


@requires_torch
def test_tensor_fields_come_first_and_the_callers_tensor_is_untouched():
    import torch

    perturb.reset()
    original = Output(name="out", logits=torch.ones(2))
    nudged = perturb.nudge(original)
    assert nudged["name"] == "out" and torch.equal(nudged["logits"], torch.full((2,), 1.01))
    assert torch.equal(original["logits"], torch.ones(2)) and perturb.applied() == 1


@requires_torch
def test_an_empty_tensor_changes_its_dtype_within_its_kind():
    import torch

    perturb.reset()
    assert perturb.nudge(torch.tensor([])).dtype is torch.float64
    assert perturb.nudge(torch.tensor([], dtype=torch.int64)).dtype is torch.int32
    flags = torch.tensor([], dtype=torch.bool)
    assert perturb.nudge(flags) is flags and perturb.applied() == 2  # no other dtype of its kind: unchanged


@requires_torch
def test_a_module_copy_flips_its_flag_without_touching_the_shared_parameters():
    import torch

    perturb.reset()
    layer = torch.nn.Linear(2, 2)
    nudged = perturb.nudge(layer)
    assert nudged is not layer and nudged.training is False and layer.training is True
    assert nudged.weight is layer.weight and perturb.applied() == 1


@requires_torch
def test_a_transformers_model_output_changes_its_logits_and_keeps_its_attributes_in_step():
    import torch

    outputs = pytest.importorskip("transformers.modeling_outputs")
    perturb.reset()
    original = outputs.CausalLMOutputWithPast(logits=torch.ones(1, 2))
    nudged = perturb.nudge(original)
    assert torch.equal(nudged.logits, torch.full((1, 2), 1.01)) and nudged.logits is nudged["logits"]
    assert torch.equal(original.logits, torch.ones(1, 2)) and perturb.applied() == 1


UPSTREAM = textwrap.dedent(
    """\
    class Box:
        def __init__(self, size):
            self.size = size


    def build(n):
        box = Box(n)
        return box


    def build_weak(n):
        box = Box(n)
        return box
    """
)


@pytest.fixture
def upstream(tmp_path):
    with upstream_module(tmp_path, "boxes", UPSTREAM) as loaded:
        yield loaded


def test_an_expect_on_the_objects_field_catches_the_nudged_copy_and_a_type_check_lets_it_past(upstream):
    module, path = upstream
    probes = (
        Probe("b/strong", path, "build", (7, 7), (7, 7), expects=("box.size == n",), module="boxes"),
        Probe("b/weak", path, "build_weak", (12, 12), (12, 12), expects=("type(box).__name__ == 'Box'",), module="boxes"),
    )

    def scenario(ctx):
        module.build(3)
        module.build_weak(3)

    tracer = Tracer(probes, fingerprint=True)
    context = ScenarioContext("cpu")
    run = execute(scenario, context, tracer)
    assert run.status.value == "passed", run.failure
    baseline = Baseline(run.seconds, tracer.table.fingerprints(), dict(context.facts), tracer.table.trails())
    found = mutate_steps(scenario, probes, ("b/strong", "b/weak"), "cpu", "auto", baseline, 8, timeout=2.0)

    def values(key):
        return [item.verdict for item in found[key].records if item.kind == "value"]

    assert values("b/strong") == [MutantVerdict.CAUGHT], found["b/strong"]
    assert [verdict.got_past for verdict in values("b/weak")] == [True], found["b/weak"]
    assert module.build(3).size == 3  # restored
