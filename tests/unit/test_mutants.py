"""Mutant generation (libcst, pure text), code swapping, and the tier rule."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest

from infralens.reports import MutantRecord, MutantsRecord, MutantVerdict, StepRecord, StepStatus, StepTier, step_tier
from infralens.verify.mutate.codeswap import compile_function, live_functions, outer_scope, swapped
from infralens.verify.mutate.mutants import KINDS, statement_mutants

SOURCE = textwrap.dedent(
    """\
    def f(a, b, c):
        x = a + b * 2  # note
        if x < c and a == 0:
            y = 1
        elif b is None:
            y = 2
        z = (a -
             b)
        x **= 2
        assert x != 0
        return x if c else z
    """
)
LINES = SOURCE.splitlines(keepends=True)
LOCALS = ("a", "b", "c", "x", "y", "z")


def texts(line: int, end: int | None = None, **kwargs) -> dict[str, list[str]]:
    """Mutated statement text by kind (padding lines dropped)."""
    found: dict[str, list[str]] = {}
    for mutant in statement_mutants(LINES, line, end or line, local_names=LOCALS, **kwargs):
        found.setdefault(mutant.kind, []).append("".join(item for item in mutant.lines if item.strip()).strip())
    return found


def test_a_binary_operator_is_swapped_and_a_term_dropped():
    found = texts(2)
    assert "x = a - b * 2  # note" in found["operator"] and "x = a + b / 2  # note" in found["operator"]
    assert {"x = a  # note", "x = b * 2  # note", "x = a + b  # note", "x = a + 2  # note"} <= set(found["drop-term"])


def test_a_constant_is_flipped():
    assert texts(2)["constant"] == ["x = a + b * 3  # note"]
    assert "if x < c and a == 1:" in texts(3)["constant"]


def test_a_comparison_is_flipped_and_a_condition_negated():
    found = texts(3)
    assert {"if x <= c and a == 0:", "if x < c and a != 0:"} <= set(found["comparison"])
    assert "if not (x < c and a == 0):" in found["negate"] and "if x < c or a == 0:" in found["negate"]
    assert "elif b is not None:" in texts(5)["comparison"]
    assert "assert not (x != 0)" in texts(10)["negate"]
    assert "return x if not (c) else z" in texts(11)["negate"]


def test_an_operand_is_replaced_by_another_local_and_never_by_an_unknown_name():
    found = texts(2)["operand"]
    assert found and all(text.split("=", 1)[1].replace("# note", "").strip() != "a + b * 2" for text in found)
    names = {name for text in found for name in text.replace("*", " ").replace("+", " ").replace("=", " ").split() if name.isidentifier()}
    assert names - {"note"} <= set(LOCALS)


def test_return_early_replaces_a_simple_statement_only():
    assert texts(2)["return"] == ["return None"]
    assert "return" not in texts(3)


def test_an_augmented_assignment_swaps_its_operator():
    assert "x *= 2" in texts(9)["operator"]


def test_every_mutant_keeps_the_line_count_and_compiles():
    for start, end in ((2, 2), (3, 3), (5, 5), (7, 8), (9, 9), (10, 10), (11, 11)):
        mutants = statement_mutants(LINES, start, end, local_names=LOCALS)
        assert mutants, f"no mutant of lines {start}-{end}"
        for mutant in mutants:
            text = mutant.apply(LINES)
            assert len(text.splitlines()) == len(LINES), mutant
            compile(text, "f.py", "exec")


def test_a_multi_line_statement_that_shrinks_is_padded():
    dropped = [m for m in statement_mutants(LINES, 7, 8, local_names=LOCALS) if m.kind == "drop-term"]
    assert dropped and all(len(m.lines) == 2 and m.lines[1] == "\n" for m in dropped)


def test_limit_takes_kinds_round_robin_and_dedupes():
    limited = statement_mutants(LINES, 2, 2, local_names=LOCALS, limit=4)
    assert [m.kind for m in limited] == ["value", "operator", "constant", "drop-term"]
    every = statement_mutants(LINES, 2, 2, local_names=LOCALS)
    assert len({"".join(m.lines) for m in every}) == len(every)
    assert statement_mutants(LINES, 2, 2, local_names=LOCALS) == every  # deterministic
    assert set(KINDS) >= {m.kind for m in every}


def test_the_diff_shows_the_statement_before_and_after():
    mutant = next(m for m in statement_mutants(LINES, 2, 2, local_names=LOCALS, limit=2, relpath="pkg/f.py") if m.kind == "operator")
    assert mutant.diff.splitlines() == [
        "--- pkg/f.py:2",
        "+++ pkg/f.py:2 (operator)",
        "@@ -1 +1 @@",
        "-    x = a + b * 2  # note",
        "+    x = a - b * 2  # note",
    ]


def test_unparseable_text_gives_no_mutant():
    assert statement_mutants(["    else:\n"], 1, 1) == []
    assert statement_mutants(["x = (\n"], 1, 1) == []


# -- code swapping -------------------------------------------------------------------------------

MODULE = textwrap.dedent(
    """\
    class Box:
        def scale(self, value):
            doubled = value * 2
            return doubled

        def inner(self, value):
            def helper():
                return value + 1
            return helper()
    """
)


@pytest.fixture
def box_module(tmp_path):
    path = tmp_path / "boxmod.py"
    path.write_text(MODULE)
    module = types.ModuleType("boxmod")
    module.__file__ = str(path)
    exec(compile(MODULE, str(path), "exec"), module.__dict__)
    return module, path


def test_outer_scope_is_the_outermost_function():
    assert outer_scope("Box.inner.<locals>.helper") == "Box.inner"
    assert outer_scope("Box.scale") == "Box.scale"
    assert outer_scope("<module>") is None and outer_scope("") is None


def test_a_swapped_code_object_runs_and_is_restored(box_module):
    module, path = box_module
    functions = live_functions(str(path), "Box.scale")
    assert functions == [module.Box.scale]
    original = module.Box.scale.__code__
    lines = MODULE.splitlines(keepends=True)
    mutant = next(m for m in statement_mutants(lines, 3, 3, local_names=original.co_varnames) if m.kind == "operator")
    code = compile_function(mutant.apply(lines), str(path), original)
    assert code is not None and code.co_filename == str(path) and code.co_firstlineno == original.co_firstlineno
    with swapped(functions, code):
        assert module.Box().scale(3) == 1.5  # value / 2
    assert module.Box.scale.__code__ is original and module.Box().scale(3) == 6


def test_a_nested_function_is_mutated_through_its_outer_function(box_module):
    module, path = box_module
    original = module.Box.inner.__code__
    lines = MODULE.splitlines(keepends=True)
    mutant = next(m for m in statement_mutants(lines, 8, 8, local_names=("value",)) if m.kind == "operator")
    code = compile_function(mutant.apply(lines), str(path), original)
    assert code is not None
    with swapped(live_functions(str(path), outer_scope("Box.inner.<locals>.helper") or ""), code):
        assert module.Box().inner(3) == 2
    assert module.Box().inner(3) == 4


def test_a_restore_happens_even_when_the_body_raises(box_module):
    module, path = box_module
    original = module.Box.scale.__code__
    with pytest.raises(RuntimeError), swapped([module.Box.scale], compile("def scale(self, value): return 0", str(path), "exec").co_consts[0]):
        raise RuntimeError
    assert module.Box.scale.__code__ is original


def test_a_mutant_that_does_not_compile_is_refused(box_module):
    _module, path = box_module
    assert compile_function("def broken(:\n", str(path), _module.Box.scale.__code__) is None


# -- tiers ---------------------------------------------------------------------------------------


def test_tiers_follow_the_rules():
    assert step_tier(StepStatus.STATIC, 0, "read it") == (StepTier.READ, "read it")
    assert step_tier(StepStatus.PASSED, 2)[0] is StepTier.HELD
    assert step_tier(StepStatus.PASSED, 0, unchecked="a constant") == (StepTier.RAN, "a constant")
    assert step_tier(StepStatus.PASSED, 0) == (StepTier.RAN, "no expect")
    assert step_tier(StepStatus.FAILED, 1)[0] is StepTier.UNVERIFIED
    assert step_tier(StepStatus.NOT_RUN, 1, "never ran")[0] is StepTier.UNVERIFIED


def test_a_record_is_graded_from_its_mutant_records_and_round_trips():
    record = StepRecord(StepStatus.PASSED, 1, "s", "a.yaml", 1, None, expects=())
    assert record.graded() == (StepTier.RAN, "no expect")
    scenario_only = MutantsRecord(
        3,
        3,
        {"check": 2, "error": 1},
        (
            MutantRecord("value", MutantVerdict.PAST_EXPECTS, "x = nudge(y)"),
            MutantRecord("operator", MutantVerdict.PAST_EXPECTS, "x = a - b"),
            MutantRecord("constant", MutantVerdict.RAISED_FIRST, "x = 1"),
        ),
    )
    assert scenario_only.caught == 0 and scenario_only.missed == 2
    loaded = StepRecord.from_json(
        {
            "status": "passed",
            "tier": "checked",  # written under an older rule: the loader grades it again
            "times_ran": 1,
            "file": "a.yaml",
            "line": 1,
            "expects": [{"expr": "x", "passed": True, "observed": "", "line": 2, "evaluations": 1}],
        }
        | {"mutants": scenario_only.to_json()}
    )
    assert loaded.tier is StepTier.RAN and loaded.mutants == scenario_only
    assert StepRecord.from_json(loaded.to_json()) == loaded


def test_compiling_only_the_function_gives_the_same_code_as_compiling_the_file():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("diffusers")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("diffusers is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "schedulers" / "scheduling_ddpm.py"
    text = path.read_text("utf-8")
    module = compile(text, str(path), "exec")
    functions = [c for c in module.co_consts if isinstance(c, types.CodeType)]
    methods = [c for k in functions for c in k.co_consts if isinstance(c, types.CodeType) and c.co_flags & 0x2]
    assert len(methods) > 5
    for code in [f for f in functions if f.co_flags & 0x2] + methods:
        got = compile_function(text, str(path), code)
        assert got is not None and got.co_code == code.co_code and list(got.co_lines()) == list(code.co_lines()), code.co_qualname


def test_a_cached_function_forgets_results_across_a_swap(tmp_path):
    import functools

    source = "def square(x):\n    return x * x\n"
    path = tmp_path / "cached.py"
    path.write_text(source)
    module = types.ModuleType("cachedmod")
    exec(compile(source, str(path), "exec"), module.__dict__)
    inner = module.square
    cached = module.cached_square = functools.lru_cache(maxsize=None)(inner)
    inner.__module__ = "cachedmod"
    sys.modules["cachedmod"] = module
    assert cached(3) == 9
    lines = source.splitlines(keepends=True)
    mutant = next(m for m in statement_mutants(lines, 2, 2, local_names=("x",)) if m.kind == "operator")
    code = compile_function(mutant.apply(lines), str(path), inner.__code__)
    assert code is not None
    with swapped([inner], code):
        assert cached(3) == 1.0  # x / x: not the original's cached 9
    assert cached(3) == 9  # not the mutant's 1.0
    del sys.modules["cachedmod"]


DECORATED = textwrap.dedent(
    """\
    def twice_first(fn):
        def wrapper(value):
            doubled = value * 2
            return fn(doubled)
        return wrapper


    @twice_first
    def plus_one(value):
        return value + 1
    """
)


def test_a_closure_made_at_import_time_runs_its_mutant(tmp_path):
    """A decorator's wrapper exists before the scenario: swapping only the decorator would leave it unmutated."""
    from infralens.verify.mutate.codeswap import nested_scopes, swapped_with_closures

    path = tmp_path / "decorated.py"
    path.write_text(DECORATED)
    module = types.ModuleType("decorated")
    exec(compile(DECORATED, str(path), "exec"), module.__dict__)
    scope = "twice_first.<locals>.wrapper"
    assert nested_scopes(scope) == [scope]
    outer = live_functions(str(path), outer_scope(scope) or "")
    closures = [(live_functions(str(path), scope), scope)]
    assert closures[0][0] == [module.plus_one]
    lines = DECORATED.splitlines(keepends=True)
    mutant = next(m for m in statement_mutants(lines, 3, 3, local_names=("value", "doubled")) if m.kind == "operator")
    code = compile_function(mutant.apply(lines), str(path), outer[0].__code__)
    assert code is not None
    with swapped(outer, code):
        assert module.plus_one(3) == 7  # the live wrapper still runs the original
    with swapped_with_closures(outer, code, closures):
        assert module.plus_one(3) == 2.5  # 3 / 2 + 1: the mutant ran
    assert module.plus_one(3) == 7


def test_a_header_with_its_body_on_the_same_line_is_mutated_header_and_body():
    """``if a > b: return a - b`` made no mutant at all before: the parser added a ``pass`` line it cannot take."""
    lines = ["def f(a, b):\n", "    if a > b: return a - b\n", "    elif a == b: return a\n", "    return b\n"]
    found = {(m.kind, (m.shown or m.lines)[0].strip()) for m in statement_mutants(lines, 2, 2, local_names=("a", "b"))}
    assert {("negate", "if not (a > b): return a - b"), ("comparison", "if a >= b: return a - b"), ("swap", "if a > b: return b - a")} <= found
    assert ("comparison", "elif a != b: return a") in {(m.kind, m.lines[0].strip()) for m in statement_mutants(lines, 3, 3, local_names=("a", "b"))}
    for line in (2, 3):
        for mutant in statement_mutants(lines, line, line, local_names=("a", "b")):
            compile(mutant.apply(lines), "f.py", "exec")


def test_two_copies_of_one_name_do_not_trade_places():
    """``cat((freqs, freqs))`` swapped is the same statement: no wrong version, so no mutant (it was 'untestable')."""
    lines = ["def f(freqs, a):\n", "    emb = torch.cat((freqs, freqs), dim=-1)\n", "    y = a.b - a.b\n", "    z = g(a, freqs)\n"]

    def swaps(line: int) -> list[str]:
        return [(m.shown or m.lines)[0].strip() for m in statement_mutants(lines, line, line, local_names=("freqs", "a")) if m.kind == "swap"]

    assert swaps(2) == [] and swaps(3) == []
    assert swaps(4) == ["z = g(freqs, a)"]
