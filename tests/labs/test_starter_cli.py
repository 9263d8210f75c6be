"""Every starter ships with empty answers, and its command line fails in one line, not a traceback.

These runs stop at argument parsing (or at device setup), so they are fast; the solved starters
are run in full by ``test_labs_01_05.py`` and ``test_labs_06_18.py``.
"""

from __future__ import annotations

import pytest
from _device import cuda_available, requires_torch
from _starters import run_starter, starter_answers
from solutions import SOLUTIONS

LABS = tuple(SOLUTIONS)


def test_every_lab_has_a_solution():
    from _starters import ROOT

    assert sorted(p.parent.name[4:] for p in ROOT.glob("labs/lab-*/starter.py")) == sorted(LABS)


@pytest.mark.parametrize("lab", LABS)
def test_starter_ships_empty_answers(lab):
    answers = starter_answers(lab)
    assert list(answers) == list(SOLUTIONS[lab]), f"{lab}: the starter's ANSWERS keys differ from tests/labs/solutions.py"
    filled = [key for key, value in answers.items() if value is not None]
    assert not filled, f"{lab}: the starter gives answers away: {filled}"


@pytest.mark.parametrize("lab", LABS)
def test_untouched_check_fails_and_names_the_empty_answers(lab):
    result = run_starter(lab, args=("--check",))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "still empty" in result.stderr
    for key in SOLUTIONS[lab]:
        assert key in result.stderr, f"{lab}: {key!r} not named as empty:\n{result.stderr}"


@pytest.mark.parametrize("lab", LABS)
def test_steps_0_is_a_one_line_argparse_error(lab):
    """Once ZeroDivisionError in some labs; other bad values are covered in test_labkit.py."""
    result = run_starter(lab, args=("--steps", "0"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "error: argument --steps:" in result.stderr.splitlines()[-1]


@requires_torch
@pytest.mark.skipif(cuda_available(), reason="CUDA is available: --device cuda is valid here")
@pytest.mark.parametrize("lab", ["01-forward-noise", "11-memory-optimization"])
def test_cuda_without_cuda_is_one_line_and_exit_2(lab):
    result = run_starter(lab, args=("--device", "cuda", "--steps", "1"))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no CUDA device" in lines[0], result.stderr
