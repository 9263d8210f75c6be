"""infralens.tiny.labkit: the starters' shared parser, torch setup and --check report (fast, no models)."""

from __future__ import annotations

import pytest
from _device import requires_torch

from infralens.tiny.labkit import (
    HIDDEN,
    Decimals,
    Significant,
    Tolerance,
    answer_matches,
    finish,
    holds_float,
    lab_arguments,
    literal,
    precision_words,
    report_answers,
    reveal,
    setup_torch,
)

KEY = {"shape": (1, 4, 32, 32), "scale": 0.18215, "steps": 2, "fused": True}


def test_report_says_your_answer_and_hides_the_right_one(capsys):
    computed = dict(KEY, steps=3)
    assert report_answers(KEY, computed) == 1
    assert capsys.readouterr().out.splitlines() == [
        "== check: your ANSWERS against the values the real code computes",
        "  [ok] shape: your answer (1, 4, 32, 32)",
        "  [ok] scale: your answer 0.18215",
        "  [WRONG] steps: your answer 2; (the right answer: run with --reveal)",
        "  [ok] fused: your answer True",
        "check: 3/4 answers correct",
    ]


def test_report_with_reveal_shows_the_right_answer(capsys):
    assert report_answers({"steps": 2, "left": None}, {"steps": 3, "left": [1, 2]}, reveal=True) == 2
    out = capsys.readouterr().out.splitlines()
    assert "  [WRONG] steps: your answer 2; the right answer 3" in out
    assert "  [EMPTY] left: not answered yet; the right answer [1, 2]" in out
    assert out[-2:] == ["check: 0/2 answers correct", "still empty: left (fill them in ANSWERS at the top of the starter)"]


def test_missing_key_is_wrong_not_a_traceback(capsys):
    assert report_answers({"a": 1, "b": 2}, {"a": 1}, reveal=True) == 1
    assert "  [WRONG] b: your answer 2; the right answer <not computed>" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("yours", "right"),
    [
        ((32, 136), [32, 136]),
        ([32, 136], (32, 136)),
        ("torch.float16", "float16"),
        ("float16", "torch.float16"),
        (" float16 ", "float16"),
        (TypeError, "TypeError"),
        (0.4675, 0.46752),
        ([1000, 614.8], [1000.0, 614.81]),
        ({"a": (1, 2.0)}, {"a": [1, 2.0000001]}),
        ([[24, 20], (2, 3)], ((24, 20), [2, 3])),
        (1e-7, 0.0),
    ],
)
def test_answers_match_the_way_a_learner_writes_them(yours, right):
    assert answer_matches(yours, right)


@requires_torch
def test_dtype_objects_match_their_spellings():
    import torch

    for spelling in ("float16", "torch.float16", torch.float16):
        assert answer_matches(spelling, torch.float16) and answer_matches(torch.float16, spelling)
    assert not answer_matches(torch.bfloat16, "float16")


@pytest.mark.parametrize(
    ("yours", "right"),
    [
        (999, 1000),  # integers are exact, whatever the relative tolerance
        (0.47, 0.4675),
        ([32, 136], [32, 136, 1]),
        ((32, 136), (136, 32)),
        (True, 1),
        (1, True),
        ("0.5", 0.5),
        ("float32", "float16"),
        ({"a": 1}, {"b": 1}),
        ([[24, 20]], [[24, 21]]),
    ],
)
def test_answers_that_differ_do_not_match(yours, right):
    assert not answer_matches(yours, right)


def test_tolerance_can_be_set_per_answer(capsys):
    assert answer_matches(0.18215, 0.1822)  # within the default rel 1e-3
    assert not answer_matches(0.18215, 0.1822, Tolerance(rel=0, abs=1e-6))
    assert report_answers({"scale": 0.18215}, {"scale": 0.1822}, tolerances={"scale": Tolerance(rel=0, abs=1e-6)}) == 1
    assert "[WRONG] scale" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("yours", "right", "precision", "matches"),
    [
        (0.99915, 0.9991499781608582, Decimals(5), True),
        (0.999149978, 0.99915, Decimals(5), True),
        (1.0, 0.99915, Decimals(5), False),  # lab 02's trap: within the old rel 1e-3, off by 85 units of the fifth decimal
        (1.0, 0.99915, Tolerance(), True),
        (4.75, 4.749, Decimals(3), False),  # asked to three decimals, written to two
        (0.0, 0.0, Decimals(6), True),
        (1e-6, 0.0, Decimals(6), False),  # float noise is not zero at six decimals
        (1e-6, 0.0, Tolerance(), True),
        (2567000000.0, 2567463684, Significant(4), True),
        (2568000000.0, 2567463684, Significant(4), False),
        (0.0047, 0.004681913, Significant(2), True),
        ([14.61, 9.1, 5.48], [14.615, 9.103, 5.478], Decimals(2), True),
        ([14.61, 7.32, 3.67], [14.615, 9.103, 5.478], Decimals(2), False),
        (3500, 3500.0, Decimals(1), True),
    ],
)
def test_a_float_answer_is_compared_at_its_stated_precision(yours, right, precision, matches):
    assert answer_matches(yours, right, precision) is matches


@pytest.mark.parametrize(
    ("yours", "matches"),
    [("49%", True), ("49.1%", True), ("49.1 %", True), (0.49, True), (0.4911, True), ("0.49", False), ("48%", False), (49, False), ("49", False), ("%", False)],
)
def test_a_share_accepts_the_percentage_a_page_prints(yours, matches):
    assert answer_matches(yours, 0.4911, Decimals(2, share=True)) is matches
    assert not answer_matches("49%", 0.4911, Decimals(2))  # a percentage string only where the question asks for a share


def test_precision_words_are_what_a_question_says():
    assert precision_words(Decimals(5)) == "to five decimals"
    assert precision_words(Decimals(1)) == "to one decimal"
    assert precision_words(Decimals(12)) == "to 12 decimals"
    assert precision_words(Significant(3)) == "to three significant figures"
    assert precision_words(Decimals(2, share=True)) == "as a share to two decimals"
    assert precision_words(Tolerance(rel=1e-3, abs=1e-6)) == "within a relative 0.001 (absolute 1e-06)"


def test_a_wrong_float_says_its_precision_but_not_the_answer(capsys):
    assert report_answers({"abar": 1.0, "steps": 2}, {"abar": 0.99915, "steps": 3}, tolerances={"abar": Decimals(5)}) == 2
    out = capsys.readouterr().out.splitlines()
    assert "  [WRONG] abar: your answer 1.0 (compared to five decimals); (the right answer: run with --reveal)" in out
    assert "  [WRONG] steps: your answer 2; (the right answer: run with --reveal)" in out  # no precision for an integer
    assert not any("0.99915" in line for line in out)


@pytest.mark.parametrize(
    ("value", "floats"), [(0.5, True), (1, False), (True, False), ("0.5", False), ([1, 2.0], True), ((1, 2), False), ({"a": [0.1]}, True), (None, False)]
)
def test_holds_float_finds_answers_that_need_a_precision(value, floats):
    assert holds_float(value) is floats


def test_literal_is_what_a_learner_pastes():
    assert literal((32, 136)) == "(32, 136)"
    assert literal((1,)) == "(1,)"
    assert literal("Int8Tensor") == "'Int8Tensor'"
    assert literal([[24, 20], [2, 3]]) == "[[24, 20], [2, 3]]"
    assert literal(TypeError) == "'TypeError'"


def test_reveal_hides_values_until_asked():
    parser = lab_arguments("Lab 99 starter.", steps=1, steps_help="steps")
    parser.parse_args([])
    assert reveal(0.4675, ".2f") == HIDDEN
    parser.parse_args(["--reveal"])
    assert reveal(0.4675, ".2f") == "0.47"
    parser.parse_args([])  # the next starter run hides again


def test_finish_lists_the_right_answers_only_when_asked(capsys):
    parser = lab_arguments("Lab 99 starter.", {"a": None}, steps=1, steps_help="steps")
    assert finish(parser.parse_args([]), {"a": None}, lambda: pytest.fail("computed without need")) == 0
    assert "--reveal shows the right answers" in capsys.readouterr().out
    assert finish(parser.parse_args(["--reveal"]), {"a": None}, {"a": (1, 2)}) == 0
    assert capsys.readouterr().out.splitlines() == ["== the right answers (--reveal)", "  a = (1, 2)"]
    parser.parse_args([])


def test_lab_arguments_have_the_shared_flags_and_the_lab_default():
    parser = lab_arguments("Lab 99 starter: a title line.\n\nMore text.", steps=4, steps_help="img2img steps")
    assert parser.description == "Lab 99 starter: a title line."
    args = parser.parse_args([])
    assert (args.device, args.steps, args.check, args.reveal) == ("cpu", 4, False, False)
    args = parser.parse_args(["--device", "auto", "--steps", "2", "--check", "--reveal"])
    assert (args.device, args.steps, args.check, args.reveal) == ("auto", 2, True, True)
    parser.parse_args([])
    assert "img2img steps, at least 1 (default 4)" in " ".join(parser.format_help().split())
    with pytest.raises(SystemExit):
        parser.parse_args(["--device", "tpu"])


@pytest.mark.parametrize("steps", ["0", "-1", "1.5"])
def test_steps_below_one_is_an_argparse_error(steps, capsys):
    parser = lab_arguments("Lab 99 starter.", steps=4, steps_help="steps")
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["--steps", steps])
    assert exit_info.value.code == 2
    assert "error: argument --steps:" in capsys.readouterr().err.splitlines()[-1]
    assert parser.parse_args(["--steps", "1"]).steps == 1


def test_check_stops_at_once_while_every_answer_is_empty(capsys):
    parser = lab_arguments("Lab 99 starter.", {"a": None, "b": None}, steps=1, steps_help="steps")
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["--check"])
    assert exit_info.value.code == 1
    assert "all 2 answers are still empty (a, b)" in capsys.readouterr().err
    assert parser.parse_args([]).check is False
    partly = lab_arguments("Lab 99 starter.", {"a": 1, "b": None}, steps=1, steps_help="steps")
    assert partly.parse_args(["--check"]).check is True  # the report marks b as [EMPTY]


def test_empty_answers_are_wrong_and_do_not_show_the_computed_value(capsys):
    assert report_answers({"a": 1, "b": None}, {"a": 1, "b": 42}) == 1
    out = capsys.readouterr().out
    assert "  [EMPTY] b: not answered yet" in out.splitlines()
    assert "42" not in out
    assert out.splitlines()[-1] == "still empty: b (fill them in ANSWERS at the top of the starter)"


@requires_torch
def test_setup_torch_picks_cpu_and_one_thread():
    import torch

    torch.set_num_threads(2)
    try:
        assert setup_torch("cpu") == "cpu"
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(1)


@requires_torch
def test_setup_torch_without_cuda_is_one_line_and_exit_2(monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as exit_info:
        setup_torch("cuda")
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error: device 'cuda' asked for, but torch sees no CUDA device" in err[0]
