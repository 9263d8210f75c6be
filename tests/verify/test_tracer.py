"""The tracer on synthetic modules: run counts, expects in the real frame, only watched code."""

from __future__ import annotations

import importlib
import sys
import uuid

import pytest

from infralens.verify.trace.tracer import MAX_EVALUATIONS, Probe, Tracer

SOURCE = """\
def loop(xs):
    total = 0
    for x in xs:
        total = (total +
                 x)
    doubled = [v * 2 for v in xs]
    return total


class Box:
    def grow(self, n):
        size = n * 2
        return size

    def nested(self):
        def inner(k):
            result = k + 1
            return result
        return inner(1) + inner(2)


def block(a):
    first = a + 1
    second = first * 10
    third = second - 1
    return third


def raises():
    value = 1
    missing = value + undefined_name_here
    return missing


def gen(n):
    for i in range(n):
        item = i * i
        yield item
"""


BACKENDS = ["settrace"] + (["instrument"] if sys.version_info[:2] == (3, 11) else ["monitoring"])


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
def synthetic(tmp_path, monkeypatch):
    """Import SOURCE as a fresh module from a temporary directory on sys.path."""
    name = f"synthetic_{uuid.uuid4().hex[:8]}"
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    yield module, str(path)
    sys.modules.pop(name, None)


def probe(path: str, key: str, scope: str, start: int, end: int | None = None, *expects: str, exit_lines=None) -> Probe:
    lines = (start, end or start)
    return Probe(key=key, file=path, scope=scope, entry=lines, exit=exit_lines or lines, expects=expects)


def test_counts_each_statement_once_per_execution(synthetic, backend):
    module, path = synthetic
    probes = [
        probe(path, "for", "loop", 3),
        probe(path, "multiline", "loop", 4, 5),
        probe(path, "comprehension", "loop", 6),
        probe(path, "return", "loop", 7),
    ]
    with Tracer(probes, backend=backend) as tracer:
        module.loop([1, 2, 3])
        module.loop([4])
    runs = {key: result.times_ran for key, result in tracer.results().items()}
    # A for header runs once per item plus the final exhausted check.
    assert runs == {"for": 4 + 2, "multiline": 3 + 1, "comprehension": 2, "return": 2}


def test_expects_are_evaluated_in_the_real_frame_after_the_statement(synthetic, backend):
    module, path = synthetic
    probes = [
        probe(path, "total", "loop", 4, 5, "total == sum(xs[: xs.index(x) + 1])", "total < 0"),
        probe(path, "doubled", "loop", 6, None, "all(v * 2 in doubled for v in xs)"),
    ]
    with Tracer(probes, backend=backend) as tracer:
        module.loop([1, 2, 3])
    total, doubled = tracer.results()["total"], tracer.results()["doubled"]
    assert total.times_ran == 3
    true_expect, false_expect = total.expects
    assert true_expect.passed and true_expect.evaluations == 3
    assert not false_expect.passed and false_expect.failures == 3
    assert false_expect.observed == "total=1"  # the first failure: right after the first addition
    assert doubled.expects[0].passed  # a generator expression sees the frame's locals


def test_a_return_statements_expects_read_the_returned_value_as_dunder_return(synthetic, backend):
    """``__return__`` is the value the frame gives back, as pdb names it: a return statement's expects can pin it
    (before, a returned value never landed in the frame an expect reads). Statements that do not return see no
    such name, and a comprehension in the expect still sees it."""
    module, path = synthetic
    probes = [
        probe(path, "returned", "Box.grow", 13, None, "__return__ == size == n * 2", "__return__ == 0", "all(__return__ > v for v in (n,))"),
        probe(path, "inner", "Box.nested.<locals>.inner", 18, None, "__return__ == k + 1"),
        probe(path, "size", "Box.grow", 12, None, "'__return__' not in dir()"),
    ]
    with Tracer(probes, backend=backend) as tracer:
        assert module.Box().grow(4) == 8
        assert module.Box().nested() == 5
    results = tracer.results()
    holds, wrong, comprehension = results["returned"].expects
    assert holds.passed and holds.evaluations == 1 and holds.observed == "__return__=8; size=8; n=4"
    assert not wrong.passed and wrong.observed.startswith("__return__=8")
    assert comprehension.passed
    assert results["inner"].expects[0].passed and results["inner"].expects[0].evaluations == 2
    assert results["size"].expects[0].passed


def test_failing_expect_records_exception_and_observed_values(synthetic, backend):
    module, path = synthetic
    probes = [probe(path, "size", "Box.grow", 12, None, "size == n * 2", "size.shape == (1,)", "not a valid ((")]
    with Tracer(probes, backend=backend) as tracer:
        module.Box().grow(4)
    ok, raised, invalid = tracer.results()["size"].expects
    assert ok.passed and ok.observed == "size=8; n=4"
    assert not raised.passed and raised.error.startswith("AttributeError") and "size=8" in raised.observed
    assert not invalid.passed and invalid.error.startswith("SyntaxError")


def test_nested_function_scopes_and_block_probes(synthetic, backend):
    module, path = synthetic
    probes = [
        probe(path, "inner", "Box.nested.<locals>.inner", 17, None, "result == k + 1"),
        probe(path, "block", "block", 23, None, "third == (a + 1) * 10 - 1", exit_lines=(25, 25)),
    ]
    with Tracer(probes, backend=backend) as tracer:
        module.Box().nested()
        module.block(2)
    results = tracer.results()
    assert results["inner"].times_ran == 2 and results["inner"].expects[0].passed
    assert results["block"].times_ran == 1
    assert results["block"].expects[0].passed  # evaluated after the block's last statement


def test_statement_that_raises_is_counted_and_tracing_stops_cleanly(synthetic, backend):
    module, path = synthetic
    probes = [probe(path, "missing", "raises", 31, None, "missing == 2")]
    with Tracer(probes, backend=backend) as tracer, pytest.raises(NameError):
        module.raises()
    result = tracer.results()["missing"]
    assert result.times_ran == 1
    # The statement raised, so it never completed: its expect is never evaluated (reported as such).
    assert not result.expects[0].passed and result.expects[0].evaluations == 0
    assert sys.gettrace() is None


def test_generators_keep_counting_across_yields(synthetic, backend):
    module, path = synthetic
    probes = [probe(path, "item", "gen", 37, None, "item == i * i")]
    with Tracer(probes, backend=backend) as tracer:
        assert list(module.gen(4)) == [0, 1, 4, 9]
    result = tracer.results()["item"]
    assert result.times_ran == 4 and result.expects[0].passed and result.expects[0].evaluations == 4


def test_only_the_watched_file_and_scope_count(synthetic, backend, tmp_path):
    module, path = synthetic
    twin = tmp_path / "twin_copy.py"
    twin.write_text(SOURCE, encoding="utf-8")
    probes = [probe(str(twin), "other-file", "loop", 4, 5), probe(path, "wrong-scope", "Box.grow", 4, 5)]
    with Tracer(probes, backend=backend) as tracer:
        module.loop([1, 2])
    assert {k: r.times_ran for k, r in tracer.results().items()} == {"other-file": 0, "wrong-scope": 0}


def test_evaluations_are_capped_but_runs_are_all_counted(synthetic, backend):
    module, path = synthetic
    probes = [probe(path, "total", "loop", 4, 5, "total >= 0")]
    with Tracer(probes, backend=backend) as tracer:
        module.loop(list(range(MAX_EVALUATIONS + 50)))
    result = tracer.results()["total"]
    assert result.times_ran == MAX_EVALUATIONS + 50
    assert result.expects[0].evaluations == MAX_EVALUATIONS


def test_previous_trace_function_is_restored(synthetic, backend):
    module, path = synthetic
    calls = []

    def outer(frame, event, arg):
        calls.append(event)

    sys.settrace(outer)
    try:
        with Tracer([probe(path, "x", "loop", 2)]):
            module.loop([1])
        assert sys.gettrace() is outer
    finally:
        sys.settrace(None)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="on 3.12+ the monitoring backend is available")
def test_monitoring_backend_needs_python_312():
    with pytest.raises(ValueError, match=r"3\.12"):
        Tracer([], backend="monitoring")


@pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring needs Python 3.12")
def test_monitoring_backend_counts_like_settrace(synthetic, backend):
    module, path = synthetic
    results = {}
    for name in ("settrace", "monitoring"):
        probes = [probe(path, "total", "loop", 4, 5, "total > 0"), probe(path, "inner", "Box.nested.<locals>.inner", 17, None, "result == k + 1")]
        with Tracer(probes, backend=name) as tracer:
            module.loop([1, 2, 3])
            module.Box().nested()
        results[name] = {k: (r.times_ran, [e.passed for e in r.expects]) for k, r in tracer.results().items()}
    assert results["settrace"] == results["monitoring"]


def test_code_called_by_an_expect_is_not_counted(synthetic, backend):
    module, path = synthetic
    probes = [probe(path, "size", "Box.grow", 12, None, "self.grow(1) == 2")]
    with Tracer(probes, backend=backend) as tracer:
        module.Box().grow(4)
    result = tracer.results()["size"]
    assert result.times_ran == 1 and result.expects[0].passed and result.expects[0].evaluations == 1


def test_equal_code_in_another_file_is_watched_separately(synthetic, backend, tmp_path, monkeypatch):
    module, path = synthetic
    with Tracer([probe(path, "first", "loop", 4, 5)], backend=backend) as tracer:
        module.loop([1])
    twin_dir = tmp_path / "twin"
    twin_dir.mkdir()
    (twin_dir / "twin_module.py").write_text(SOURCE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(twin_dir))
    twin = importlib.import_module("twin_module")
    try:
        with Tracer([probe(str(twin_dir / "twin_module.py"), "second", "loop", 4, 5)], backend=backend) as second:
            twin.loop([1, 2])
            module.loop([1, 2, 3])
    finally:
        sys.modules.pop("twin_module", None)
    assert tracer.results()["first"].times_ran == 1
    assert second.results()["second"].times_ran == 2


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the instrumenting backend is Python 3.11's")
def test_wrappers_made_by_a_module_imported_while_tracing_get_their_original_code_back(tmp_path, monkeypatch):
    """diffusers imports its model modules lazily, during a scenario: their decorators then ran the rewritten nested
    code, the wrappers kept the hooks after tracing stopped, and ``--mutate`` could not swap a mutant into them."""
    from infralens.verify.mutate.codeswap import find_code

    name = f"deco_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text("def deco(f):\n    def wrapper(*a):\n        out = f(*a)\n        return out\n    return wrapper\n")
    user = f"user_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{user}.py").write_text(f"from {name} import deco\n\n\n@deco\ndef double(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    try:
        with Tracer([probe(str(tmp_path / f"{name}.py"), "out", "deco.<locals>.wrapper", 3, 3, "out == 2 * a[0]")], backend="instrument") as tracer:
            late = importlib.import_module(user)  # imported while tracing, as a lazy import is
            assert late.double(4) == 8
        assert tracer.results()["out"].times_ran == 1
        assert late.double.__code__ is find_code(module.deco.__code__, "deco.<locals>.wrapper")
    finally:
        sys.modules.pop(name, None)
        sys.modules.pop(user, None)
