"""``verify --mutate``: each mutant's verdict and whose expect caught it, on a synthetic module; a weakened expect on real diffusers."""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace

import pytest
from _device import DEVICE, requires_test_device, requires_torch
from verify_helpers import upstream_module

from infralens.cli import main
from infralens.reports import MutantRecord, MutantsRecord, MutantVerdict
from infralens.verify.mutate.trials import Baseline, mutate_steps
from infralens.verify.trace.context import ScenarioContext
from infralens.verify.trace.execute import execute
from infralens.verify.trace.probes import Probe
from infralens.verify.trace.tracer import Tracer

UPSTREAM = textwrap.dedent(
    """\
    def total(a, b):
        summed = a + b
        return summed


    def clamp(a):
        kept = max(a, 0)
        return kept


    def countdown(n):
        while n > 0:
            n -= 1
        return n


    def shape_of(a, b):
        product = a * b
        return product


    def ratio(h, w):
        gap = h - w
        return gap


    def chain(a, b):
        first = a + b
        second = first * 2
        return second


    def stamp(h, w):
        scratch = __import__("random").random()
        low = min(h, w)
        return low


    def dotted(prefix, name):
        full = prefix + "." + name if prefix else name
        return full


    def spend(needs):
        budget = 10
        for i, need in enumerate(needs):
            budget -= need
        return budget, i
    """
)


@pytest.fixture
def upstream(tmp_path):
    with upstream_module(tmp_path, "mutatee", UPSTREAM) as loaded:
        yield loaded


def _probe(path: str, key: str, scope: str, line: int, *expects: str) -> Probe:
    return Probe(key=f"t/{key}", file=path, scope=scope, entry=(line, line), exit=(line, line), expects=expects, module="mutatee")


def _changes(found: MutantsRecord, *verdicts: MutantVerdict) -> list[str]:
    """The changed text of the mutants with one of *verdicts*."""
    return [item.change for item in found.records if item.verdict in verdicts]


def _run(module, probes, scenario, keys, limit=8):
    tracer = Tracer(probes, fingerprint=True)
    context = ScenarioContext("cpu")
    run = execute(scenario, context, tracer)
    assert run.status.value == "passed", run.failure
    assert all(result.expects and all(e.passed for e in result.expects) for result in tracer.results().values())
    baseline = Baseline(run.seconds, tracer.table.fingerprints(), dict(context.facts), tracer.table.trails())
    return mutate_steps(scenario, probes, keys, "cpu", "auto", baseline, limit, timeout=1.0)


def test_a_strong_expect_kills_and_a_weak_one_lets_mutants_survive(upstream):
    module, path = upstream
    probes = (
        _probe(path, "strong", "total", 2, "summed == a + b"),
        _probe(path, "weak", "shape_of", 18, "product is not None"),
    )

    def scenario(ctx):
        module.total(2, 3)
        module.shape_of(2, 3)

    found = _run(module, probes, scenario, ("t/strong", "t/weak"))
    strong, weak = found["t/strong"], found["t/weak"]
    assert strong.tried >= 3 and strong.caught >= 2 and all(item.caught_by == "t/strong" for item in strong.records if item.verdict is MutantVerdict.CAUGHT)
    past = _changes(weak, MutantVerdict.SURVIVED, MutantVerdict.PAST_EXPECTS)
    assert weak.tried >= 3 and weak.caught == 0 and past and weak.missed == len(past)
    assert all("product" in change for change in past if change != "return None")
    assert {item.kind for item in weak.records} >= {"operator", "return"}
    assert module.total.__code__.co_filename == path and module.total(2, 3) == 5  # restored


def test_a_mutant_that_changes_no_observed_value_is_equivalent(upstream):
    module, path = upstream
    probes = (_probe(path, "clamp", "clamp", 7, "kept >= 0"),)

    def scenario(ctx):
        ctx.fact("clamped", module.clamp(5))

    found = _run(module, probes, scenario, ("t/clamp",))["t/clamp"]
    # max(5, 1) observes kept == 5 exactly as max(5, 0) did; max(a, 1)... all other mutants change a value
    assert "kept = max(a, 1)" in _changes(found, MutantVerdict.EQUIVALENT)
    assert "kept = max(a, 1)" not in _changes(found, MutantVerdict.SURVIVED, MutantVerdict.PAST_EXPECTS)


def test_a_scenario_check_and_a_hang_kill_but_do_not_count_as_an_expect(upstream):
    module, path = upstream
    probes = (_probe(path, "down", "countdown", 13, "isinstance(n, int)"),)

    def scenario(ctx):
        ctx.check(module.countdown(3) == 0, "countdown must end at 0")

    found = _run(module, probes, scenario, ("t/down",))["t/down"]
    assert found.killed_by.get("timeout", 0) >= 1  # n += 1 never ends
    assert found.killed_by.get("check", 0) >= 1  # a nudged n ends off 0
    # the expect was evaluated on them and held: they got past it, whatever stopped them later
    past = _changes(found, MutantVerdict.PAST_EXPECTS)
    assert found.caught == 0 and "n += 1" in past and len(past) >= 2
    assert module.countdown(3) == 0


def test_a_mutant_that_skips_the_statement_is_neutral_not_past_the_expects(upstream):
    """``return None`` in place of ``summed = a + b``: the expect cannot see ``summed`` (NameError), so it
    neither catches the mutant nor lets it "get past"; it says nothing about the expect's strength."""
    module, path = upstream
    probes = (_probe(path, "strong", "total", 2, "summed == a + b"),)

    def scenario(ctx):
        module.total(2, 3)

    found = _run(module, probes, scenario, ("t/strong",))["t/strong"]
    (deleted,) = [item for item in found.records if item.kind == "return"]
    # it ran and changed what the run observed, but the expects had nothing to read: unjudged, not past them
    assert deleted.verdict is MutantVerdict.UNJUDGED and deleted.caught_by is None and not deleted.verdict.got_past, found
    assert found.caught >= 2


WEAK = """
id: test-weak-expect
lab: 01-forward-noise
source: diffusers
target: diffusers.schedulers.scheduling_ddpm.DDPMScheduler.add_noise
summary: A weakened copy of the forward-equation claim (and, in a copy, a strong claim on an earlier line).
scenario: forward-noise
steps:
  - key: weak
    at: "noisy_samples = sqrt_alpha_prod * original_samples + sqrt_one_minus_alpha_prod * noise"
    note: The closed-form forward process, with a claim that holds whatever the line computes.
    expect:
      - "noisy_samples.shape == noisy_samples.shape"
"""
STRONG_AT = "sqrt_alpha_prod = alphas_cumprod[timesteps] ** 0.5"
STRONG_EXPECT = "torch.allclose(sqrt_alpha_prod.cpu(), torch.cumprod(1.0 - self.betas, dim=0)[timesteps.cpu()].sqrt(), rtol=1e-6, atol=0)"


@pytest.mark.slow
@requires_torch
@requires_test_device
def test_a_weakened_expect_makes_its_step_lose_checked(write_project, tmp_path, capsys):
    # The strong step sits on an earlier statement: its expect is not a "later step" for the weak one.
    strong = WEAK.replace("test-weak-expect", "test-strong-expect").replace("key: weak", "key: strong")
    strong = strong.replace('"noisy_samples.shape == noisy_samples.shape"', json.dumps(STRONG_EXPECT))
    strong = strong.replace('"noisy_samples = sqrt_alpha_prod * original_samples + sqrt_one_minus_alpha_prod * noise"', json.dumps(STRONG_AT))
    root = write_project(
        {"annotations/diffusers/weak.yaml": WEAK, "annotations/diffusers/strong.yaml": strong},
        labs=("01-forward-noise",),
    )
    report = tmp_path / "verify.json"
    args = ["--project", str(root), "verify", "--device", DEVICE, "--scenario", "forward-noise", "--mutate", "--max-mutants", "3", "--report", str(report)]
    main(args)
    out = capsys.readouterr().out
    steps = json.loads(report.read_text())["steps"]
    weak, strong_step = steps["test-weak-expect/weak"], steps["test-strong-expect/strong"]
    assert weak["status"] == "passed" and weak["tier"] == "ran", weak
    assert "got past its expects" in weak["tier_reason"]
    assert weak["mutants"]["tried"] == 3 and not any(item["verdict"] == "caught" for item in weak["mutants"]["records"])
    assert strong_step["tier"] == "checked", strong_step
    assert any(item["caught_by"] == "test-strong-expect/strong" for item in strong_step["mutants"]["records"] if item["verdict"] == "caught")
    assert "caught by own expects" in out


def test_mutation_results_and_settings_cross_the_worker_protocol():
    from infralens.reports import ScenarioStatus
    from infralens.verify.run.protocol import ScenarioJob, ScenarioOutcome, WorkerRequest, decode, encode

    request = WorkerRequest("cpu", "auto", (ScenarioJob("forward-noise", (), ("a/b", "a/c")),), max_mutants=3)
    assert WorkerRequest.decode(request.encode()) == request
    outcome = ScenarioOutcome(
        "forward-noise",
        ScenarioStatus.PASSED,
        1.0,
        mutants={
            "a/b": MutantsRecord(
                2, 1, {"expect": 1}, (MutantRecord("swap", MutantVerdict.CAUGHT, "y = b - a", "a/b"), MutantRecord("value", MutantVerdict.SURVIVED, "y = n(x)"))
            )
        },
    )
    assert decode(encode(outcome)) == outcome


def test_mutation_work_is_split_into_units_dealt_to_the_jobs():
    from verify_helpers import REPO_SCENARIOS

    from infralens.scenarios import discover_scenarios
    from infralens.verify.run.plan import Plan, PlannedStep
    from infralens.verify.run.runner import MUTATION_UNIT, work_units

    def step(index: int, scenario: str) -> PlannedStep:
        probe = Probe(f"a/{scenario}{index}", "/x.py", "f", (index, index), (index, index), expects=("True",))
        return PlannedStep(probe.key, "a", "a.yaml", index, scenario, None, ("True",), (1,), probe)

    catalog = discover_scenarios(REPO_SCENARIOS)
    plan = Plan(tuple(step(i, "forward-noise") for i in range(20)) + tuple(step(i, "guider") for i in range(3)), (), catalog=catalog)
    names = ("forward-noise", "guider")
    assert [[job.name for job in unit] for unit in work_units(plan, names, 2)] == [["forward-noise", "guider"]]
    units = work_units(plan, names, 2, max_mutants=3)
    assert len(units) == 2
    keys = sorted(key for unit in units for job in unit for key in job.mutate)
    assert keys == sorted(s.step_id for s in plan.steps)
    assert all(len(job.probes) == len(plan.probes_for(job.name)) for unit in units for job in unit)
    assert max(len(job.mutate) for unit in units for job in unit) >= MUTATION_UNIT
    # a refresh (verify --annotation) watches another annotation's steps too, but mutates only its own
    other = tuple(step(i, "guider").probe for i in range(3, 5))
    refresh = replace(plan, watched={"guider": (*plan.own_probes("guider"), *other)})
    guider = [job for unit in work_units(refresh, ("guider",), 2, max_mutants=3) for job in unit]
    assert {probe.key for job in guider for probe in job.probes} == {f"a/guider{i}" for i in range(5)}
    assert sorted(key for job in guider for key in job.mutate) == [f"a/guider{i}" for i in range(3)]


def test_a_swap_that_changes_nothing_because_two_sizes_are_equal_is_untestable_not_equivalent(upstream):
    """``h - w`` swapped is ``w - h``: on a square input both are 0, so the run is bit-identical; before, that
    was filed as equivalent and did not count against the step. Now it is untestable on this data."""
    module, path = upstream
    probes = (_probe(path, "gap", "ratio", 23, "gap == h - w"),)

    def square(ctx):
        module.ratio(4, 4)

    def wide(ctx):
        module.ratio(4, 6)

    on_square = _run(module, probes, square, ("t/gap",))["t/gap"]
    (swap,) = [item for item in on_square.records if item.kind == "swap"]
    assert swap.verdict is MutantVerdict.UNTESTABLE and swap.change == "gap = w - h"
    assert on_square.missed >= 1
    on_wide = _run(module, probes, wide, ("t/gap",))["t/gap"]
    (swap,) = [item for item in on_wide.records if item.kind == "swap"]
    assert swap.verdict is MutantVerdict.CAUGHT and swap.caught_by == "t/gap"


def test_a_kill_made_by_a_later_steps_expect_is_recorded_as_that_steps(upstream):
    """The first step's own expect cannot fail; the second step's can. The old count credited the second
    step's kills to the first; now each record names the step whose expect failed, and the first step is ran."""
    from infralens.reports import StepStatus, StepTier, step_tier

    module, path = upstream
    probes = (_probe(path, "first", "chain", 28, "first is not None"), _probe(path, "second", "chain", 29, "second == (a + b) * 2"))

    def scenario(ctx):
        module.chain(2, 5)

    found = _run(module, probes, scenario, ("t/first", "t/second"))
    first = found["t/first"]
    downstream = [item for item in first.records if item.caught_by == "t/second"]
    assert downstream and all(item.verdict is MutantVerdict.PAST_EXPECTS for item in downstream), first.records
    assert first.caught == 0 and first.killed_by.get("expect", 0) == len(downstream)
    tier, why = step_tier(StepStatus.PASSED, 1, mutants=first.records)
    assert tier is StepTier.RAN and "caught downstream by t/second" in why
    assert step_tier(StepStatus.PASSED, 1, mutants=found["t/second"].records)[0] is StepTier.CHECKED, found["t/second"].records


def test_a_value_the_plain_run_does_not_reproduce_is_not_evidence_that_a_mutant_changed_something(upstream):
    """The expect reads ``scratch``, which differs on every run (like memory from ``torch.empty_like``).
    ``min(w, h)`` changes nothing; compared on every digest it looked *survived*; the values the plain run
    reproduces say *equivalent*."""
    module, path = upstream
    probes = (_probe(path, "low", "stamp", 35, "low == min(h, w) and 0 <= scratch < 1"),)

    def scenario(ctx):
        module.stamp(3, 5)

    found = _run(module, probes, scenario, ("t/low",))["t/low"]
    (swap,) = [item for item in found.records if item.kind == "swap"]
    assert swap.verdict is MutantVerdict.EQUIVALENT, found.records
    assert "low = max(h, w)" not in _changes(found, MutantVerdict.EQUIVALENT)


def test_expects_that_held_only_where_the_mutant_changed_nothing_did_not_let_it_past(upstream):
    """On the first call the prefix is empty: the mutated half of the line does not run and the expect holds on an
    unchanged frame. On the second call ``prefix - "."`` raises inside the statement, before the expect. The expect
    never saw that mutant: raised first, not past the expects (which it was before)."""
    module, path = upstream
    probes = (_probe(path, "full", "dotted", 40, "full == (prefix + '.' + name if prefix else name)"),)

    def scenario(ctx):
        module.dotted("", "a")
        module.dotted("p", "b")

    found = _run(module, probes, scenario, ("t/full",))["t/full"]
    verdicts = {item.change: item.verdict for item in found.records}
    assert verdicts['full = prefix - "." + name if prefix else name'] is MutantVerdict.RAISED_FIRST, verdicts
    assert found.missed == 0 and found.caught >= 1, verdicts


def test_a_deletion_whose_first_run_changes_nothing_in_the_frame_is_judged_by_how_it_ended(upstream):
    """The first need is 0, so ``budget -= need`` changes nothing on its first run, and ``return None`` there leaves
    the frame as the plain run had it; the caller's unpacking then raises. The value the frame returns is not one of
    the frame's locals and the expect does not read it: the expect never saw the mutant (raised first), while the
    operator mutant, which shows on the second need, is caught."""
    module, path = upstream
    probes = (_probe(path, "spend", "spend", 47, "budget == 10 - sum(needs[: i + 1])"),)

    def scenario(ctx):
        left, _last = module.spend([0, 2])
        ctx.fact("left", left)

    found = _run(module, probes, scenario, ("t/spend",))["t/spend"]
    verdicts = {item.change: item.verdict for item in found.records}
    assert verdicts["return None"] is MutantVerdict.RAISED_FIRST, verdicts
    assert verdicts["budget += need"] is MutantVerdict.CAUGHT and found.missed == 0, verdicts
