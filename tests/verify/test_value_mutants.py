"""Value mutants (``verify --mutate``): the statement's result nudged, operands swapped, dimensions transposed.

They keep the program running, so they reach the expects instead of raising first; a value mutant that
changed nothing in any frame the statement ran in is equivalent.
"""

from __future__ import annotations

import textwrap

import pytest
from _device import requires_torch
from verify_helpers import upstream_module

from infralens.reports import MutantVerdict
from infralens.verify.mutate import perturb
from infralens.verify.mutate.mutants import statement_mutants
from infralens.verify.mutate.trials import Baseline, mutate_steps
from infralens.verify.trace.context import ScenarioContext
from infralens.verify.trace.execute import execute
from infralens.verify.trace.probes import Probe
from infralens.verify.trace.tracer import Tracer

SOURCE = textwrap.dedent(
    """\
    def f(a, b, c):
        x = a * b - c
        y, z = g(a, b), a
        out = torch.cat([a, b], dim=1)
        c += a
        return (a - b), b
    """
)
LINES = SOURCE.splitlines(keepends=True)


def by_kind(line: int) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for mutant in statement_mutants(LINES, line, line, local_names=("a", "b", "c", "x")):
        found.setdefault(mutant.kind, []).append((mutant.shown or mutant.lines)[0].strip())
    return found


def test_a_swap_runs_through_a_helper_that_sees_both_operands_and_shows_the_plain_swap():
    swaps = {
        mutant.lines[0].strip(): (mutant.shown or ())[0].strip() for mutant in statement_mutants(LINES, 4, 4, local_names=("a", "b")) if mutant.kind == "swap"
    }
    assert swaps == {"out = torch.cat([*_infralens_swap(a, b)], dim=1)": "out = torch.cat([b, a], dim=1)"}
    (binary,) = [m for m in statement_mutants(LINES, 2, 2, local_names=("a", "b", "c")) if m.kind == "swap"]
    assert binary.lines[0].strip() == 'x = _infralens_swap_operator(a * b, c, "-")' and "+    x = c - a * b" in binary.diff
    perturb.install()
    perturb.reset()
    assert perturb.swap(3, 3) == (3, 3) and perturb.swaps() == (1, 0)  # equal operands: the swap changed nothing
    assert perturb.swap_operator(5, 2, "-") == -3 and perturb.swaps() == (2, 1)


def test_the_result_of_an_assignment_or_return_is_nudged_and_transposed():
    found = by_kind(2)
    assert found["value"] == ["x = _infralens_nudge(a * b - c)"]
    assert found["transpose"] == ["x = _infralens_transpose(a * b - c)"]
    assert found["swap"] == ["x = c - a * b"]
    # one mutant per element of a tuple result, the tuple kept whole inside the call
    assert by_kind(3)["value"] == ["y, z = _infralens_nudge((g(a, b), a), 0)", "y, z = _infralens_nudge((g(a, b), a), 1)"]
    assert by_kind(6)["value"] == ["return _infralens_nudge(((a - b), b), 0)", "return _infralens_nudge(((a - b), b), 1)"]
    assert by_kind(5)["value"] == ["c += _infralens_nudge(a)"] and "transpose" not in by_kind(5)


def test_two_operands_of_a_call_or_a_list_trade_places_but_literals_and_keywords_stay():
    assert "out = torch.cat([b, a], dim=1)" in by_kind(4)["swap"]
    assert "y, z = g(b, a), a" in by_kind(3)["swap"]
    assert not any("dim=" in text.split("(", 1)[1].split(",")[0] for text in by_kind(4)["swap"])


def test_value_mutants_keep_the_line_count_and_compile():
    for line in range(2, 7):
        mutants = statement_mutants(LINES, line, line, local_names=("a", "b", "c"))
        assert mutants, f"no mutant of line {line}"
        for mutant in mutants:
            text = mutant.apply(LINES)
            assert len(text.splitlines()) == len(LINES)
            compile(text, "f.py", "exec")


def test_python_values_are_nudged_by_type():
    perturb.reset()
    assert perturb.nudge(2) == 3 and perturb.nudge(True) is False and perturb.nudge(2.0) == pytest.approx(2.02) and perturb.nudge(0.0) == 0.01
    assert perturb.nudge((1, None), 1) == (1, None) and perturb.nudge((1, "s"), 0) == (2, "s") and perturb.nudge([None, 4]) == [None, 5]
    assert perturb.nudge("key") == "key_" and perturb.nudge({"a": 1, "b": 2}) == {"a": 1} and perturb.nudge([None, "x"], 0) == [None, "x"]
    assert perturb.nudge([None, object]) == [None] and perturb.applied() == 9  # nothing in it can change: one element fewer
    assert perturb.nudge(None) is None and perturb.nudge(int) is int and perturb.applied() == 9  # nothing to change


@requires_torch
def test_tensors_are_scaled_shifted_stepped_or_negated_and_parameters_stay_parameters():
    import torch

    perturb.reset()
    values = torch.tensor([1.0, -2.0])
    assert torch.equal(perturb.nudge(values), values * 1.01)
    assert torch.equal(perturb.nudge(torch.zeros(2)), torch.full((2,), 0.01))
    assert torch.equal(perturb.nudge(torch.tensor([1, 2])), torch.tensor([2, 3]))
    assert torch.equal(perturb.nudge(torch.tensor([True, False])), torch.tensor([False, True]))
    weight = torch.nn.Parameter(torch.ones(2))
    nudged = perturb.nudge(weight)
    assert isinstance(nudged, torch.nn.Parameter) and torch.equal(nudged.data, torch.full((2,), 1.01)) and torch.equal(weight.data, torch.ones(2))
    square = torch.arange(4.0).reshape(1, 2, 2)
    assert torch.equal(perturb.transpose(square), square.transpose(1, 2))
    assert perturb.applied() == 6
    wide = torch.ones(1, 2, 3)
    assert perturb.transpose(wide) is wide and perturb.applied() == 6  # no two dimensions of one size > 1


UPSTREAM = textwrap.dedent(
    """\
    def scaled(a):
        out = a * 2.0
        return out


    def label(a):
        name = str(a)
        return name


    def kind_of(a):
        kind = type(a)
        return kind
    """
)


@pytest.fixture
def upstream(tmp_path):
    with upstream_module(tmp_path, "valued", UPSTREAM) as loaded:
        yield loaded


def _mutate(scenario, probes, keys, limit=8):
    tracer = Tracer(probes, fingerprint=True)
    context = ScenarioContext("cpu")
    run = execute(scenario, context, tracer)
    assert run.status.value == "passed", run.failure
    return mutate_steps(
        scenario,
        probes,
        keys,
        "cpu",
        "auto",
        Baseline(run.seconds, tracer.table.fingerprints(), dict(context.facts), tracer.table.trails()),
        limit,
        timeout=2.0,
    )


def test_a_closed_form_expect_catches_a_one_percent_nudge_and_a_type_check_lets_it_through(upstream):
    module, path = upstream
    probes = (
        Probe("t/strong", path, "scaled", (2, 2), (2, 2), expects=("out == a * 2.0",), module="valued"),
        Probe("t/weak", path, "label", (7, 7), (7, 7), expects=("isinstance(name, str)",), module="valued"),
        Probe("t/kind", path, "kind_of", (12, 12), (12, 12), expects=("kind is int",), module="valued"),
    )

    def scenario(ctx):
        module.scaled(3.0)
        module.label(3)
        module.kind_of(3)

    found = _mutate(scenario, probes, ("t/strong", "t/weak", "t/kind"))
    strong, weak, kind = found["t/strong"], found["t/weak"], found["t/kind"]

    def nudged(found, wanted):
        return [item for item in found.records if item.kind == "value" and wanted(item.verdict)]

    assert not nudged(strong, lambda verdict: verdict.got_past) and strong.caught >= 1
    # "3_" is still a str: the nudge reached the expect and got past it
    assert nudged(weak, lambda verdict: verdict.got_past), weak
    # a class cannot be nudged: the value mutant changed nothing in any frame, so it is equivalent, not a miss
    assert nudged(kind, lambda verdict: verdict is MutantVerdict.EQUIVALENT), kind
    assert not nudged(kind, lambda verdict: verdict.got_past)
    assert module.scaled(3.0) == 6.0 and module.label(3) == "3"  # restored


def test_numpy_arrays_are_nudged_like_tensors():
    """A step whose result is a NumPy array (a Karras sigma grid) had value mutants that changed nothing."""
    import numpy

    perturb.reset()
    floats = perturb.nudge(numpy.array([1.0, 2.0]))
    assert numpy.allclose(floats, [1.01, 2.02]) and perturb.applied() == 1
    assert list(perturb.nudge(numpy.array([3, 4]))) == [4, 5]
    assert list(perturb.nudge(numpy.array([True, False]))) == [False, True]
    assert perturb.nudge(numpy.array([], dtype=float)).size == 0 and perturb.applied() == 3


def test_a_square_meta_tensor_is_not_transposed():
    """It holds no values, so the transpose changed nothing; counting it made the mutant 'survived'."""
    import torch

    perturb.reset()
    square = torch.empty(3, 3, device="meta")
    assert perturb.transpose(square) is square and perturb.applied() == 0
    assert perturb.transpose(torch.arange(9.0).reshape(3, 3))[0, 1] == 3.0 and perturb.applied() == 1


def test_enum_members_dtypes_and_flags_have_wrong_versions():
    """A stored enum member, a dtype or a literal flag had no wrong version but deletion: nothing could earn checked."""
    import enum

    import torch

    class Mode(enum.Enum):
        A = "a"
        B = "b"

    perturb.reset()
    assert perturb.nudge(Mode.A) is Mode.B and perturb.nudge(Mode.B) is Mode.A
    assert perturb.nudge(torch.float16) is torch.bfloat16 and perturb.nudge(torch.float32) is torch.float64
    assert perturb.nudge(torch.uint8) is torch.float32 and perturb.applied() == 5
    lines = ["def f(m):\n", "    m.to(dtype, non_blocking=True)\n"]
    flips = [(m.kind, m.lines[0].strip()) for m in statement_mutants(lines, 2, 2, local_names=("m",))]
    assert ("constant", "m.to(dtype, non_blocking=False)") in flips


CALLS = textwrap.dedent(
    """\
    def push(box, n):
        box.append(n * 2)
        return box


    def push_weak(box, n):
        box.append(n * 2)
        return box


    def push_object(box, n):
        box.append(object)
        return box
    """
)


def test_a_statement_that_keeps_no_result_has_its_call_arguments_nudged_one_at_a_time():
    lines = textwrap.dedent(
        """\
        def f(self, box, n, rest):
            box.add(n, self, 3, -1, *rest, scale=n * 2, flag=True)
            out = box.add(n)
            for i in range(min(n, len(box))):
                pass
        """
    ).splitlines(keepends=True)

    def arguments(line):
        return [m.lines[0].strip() for m in statement_mutants(lines, line, line, local_names=("box", "n", "rest")) if m.kind == "argument"]

    # literals (3, -1, True), self and starred arguments stay: they are constant sites or cannot be nudged
    assert arguments(2) == [
        "box.add(_infralens_nudge_argument(n), self, 3, -1, *rest, scale=n * 2, flag=True)",
        "box.add(n, self, 3, -1, *rest, scale=_infralens_nudge_argument(n * 2), flag=True)",
    ]
    assert arguments(3) == []  # an assignment's stored result is the value mutant's site
    found = arguments(4)
    assert found[0] == "for i in range(_infralens_nudge_argument(min(n, len(box)))):" and len(found) == 3  # at most MAX_ARGUMENTS


@pytest.fixture
def calls(tmp_path):
    with upstream_module(tmp_path, "calls", CALLS) as loaded:
        yield loaded


def test_a_nudged_argument_reaches_the_expects_of_a_bare_call(calls):
    module, path = calls
    probes = (
        Probe("c/strong", path, "push", (2, 2), (2, 2), expects=("box[-1] == n * 2",), module="calls"),
        Probe("c/weak", path, "push_weak", (7, 7), (7, 7), expects=("len(box) >= 1",), module="calls"),
        Probe("c/object", path, "push_object", (12, 12), (12, 12), expects=("box[-1] is object",), module="calls"),
    )

    def scenario(ctx):
        module.push([], 3)
        module.push_weak([], 3)
        module.push_object([], 3)

    found = _mutate(scenario, probes, ("c/strong", "c/weak", "c/object"))

    def verdicts(key):
        return [item.verdict for item in found[key].records if item.kind == "argument"]

    assert verdicts("c/strong") == [MutantVerdict.CAUGHT]  # 7 appended instead of 6
    assert [v.got_past for v in verdicts("c/weak")] == [True], found["c/weak"]  # 7 is appended and len(box) is still 1
    assert verdicts("c/object") == [MutantVerdict.EQUIVALENT]  # a class cannot be nudged: nothing changed
    assert module.push([], 3) == [6]  # restored


def test_a_run_time_mutant_that_changed_nothing_does_not_use_up_the_limit(upstream):
    module, path = upstream
    probes = (Probe("t/kind", path, "kind_of", (12, 12), (12, 12), expects=("kind is int",), module="valued"),)

    def scenario(ctx):
        module.kind_of(3)

    (records,) = [found.records for found in _mutate(scenario, probes, ("t/kind",), limit=1).values()]
    # a class cannot be nudged: the value mutant is equivalent, so the next wrong version (another local) is still tried
    assert [(item.kind, item.verdict) for item in records] == [("value", MutantVerdict.EQUIVALENT), ("operand", MutantVerdict.RAISED_FIRST)]
