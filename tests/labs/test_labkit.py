"""infralens.tiny.labkit: the starters' shared parser, torch setup and --check report (fast, no models)."""

from __future__ import annotations

import pytest
from _device import requires_torch

from infralens.tiny.labkit import answer_matches, lab_arguments, report_answers, setup_torch

KEY = {"shape": (1, 4, 32, 32), "scale": 0.18215, "steps": 2, "fused": True}


def test_count_style_prints_answer_lines_and_a_tally(capsys):
    computed = dict(KEY, steps=3)
    assert report_answers(KEY, computed) == 1
    assert capsys.readouterr().out.splitlines() == [
        "  [ok] shape: answer (1, 4, 32, 32), computed (1, 4, 32, 32)",
        "  [ok] scale: answer 0.18215, computed 0.18215",
        "  [WRONG] steps: answer 2, computed 3",
        "  [ok] fused: answer True, computed True",
        "check: 3/4 answers correct",
    ]


def test_verdict_style_prints_a_heading_and_a_verdict(capsys):
    assert report_answers(KEY, dict(KEY), style="verdict") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "== exercise answers"
    assert out[1] == "  [ok] shape: expected (1, 4, 32, 32), computed (1, 4, 32, 32)"
    assert out[-1] == "all answers correct"
    assert report_answers(KEY, dict(KEY, shape=(1, 4, 16, 16), fused=False), style="verdict") == 2
    assert capsys.readouterr().out.splitlines()[-1] == "2 answer(s) wrong"


def test_missing_key_is_wrong_not_a_traceback(capsys):
    assert report_answers({"a": 1, "b": 2}, {"a": 1}) == 1
    assert "  [WRONG] b: answer 2, computed <missing>" in capsys.readouterr().out


def test_tolerance_applies_to_real_numbers_only():
    assert answer_matches(0.18215, 0.182150004, tolerance=1e-6)
    assert not answer_matches(0.18215, 0.1822, tolerance=1e-6)
    assert not answer_matches(0.18215, 0.182150004)  # no tolerance: exact
    assert not answer_matches(True, 0.9, tolerance=0.5)  # bools are compared exactly
    assert not answer_matches(0.5, "0.5", tolerance=1.0)  # a string never raises, never matches


def test_unknown_style_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown report style 'loud'"):
        report_answers(KEY, KEY, style="loud")


def test_lab_arguments_have_the_shared_flags_and_the_lab_default():
    parser = lab_arguments("Lab 99 starter: a title line.\n\nMore text.", steps=4, steps_help="img2img steps")
    assert parser.description == "Lab 99 starter: a title line."
    args = parser.parse_args([])
    assert (args.device, args.steps, args.check) == ("cpu", 4, False)
    args = parser.parse_args(["--device", "auto", "--steps", "2", "--check"])
    assert (args.device, args.steps, args.check) == ("auto", 2, True)
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
    assert report_answers({"a": 1, "b": None}, {"a": 1, "b": 42}, style="verdict") == 1
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
