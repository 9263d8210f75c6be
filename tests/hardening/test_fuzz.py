"""A fixed-seed slice of ``python tools/fuzz.py`` (the full run is ≥ 10,000 cases; see docs/guide/hardening.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import fuzz

CASES = {"annotation-file": 150, "project": 25, "python-source": 120, "selector-text": 100, "lock-file": 120}
CASES |= {"page-config": 120, "math": 120, "myst-text": 120, "report-text": 40}  # issue 27: what reaches the site and the logs
CASES |= {"printed-field": 200, "cost-catalog": 200}  # issue 38: every printed field; a cost catalog is data


@pytest.mark.parametrize("target", fuzz.TARGETS, ids=lambda t: t.name)
def test_fuzz_slice(target):
    counter = [0]
    fuzz.run_target(target, CASES[target.name], None, derandomize=True, counter=counter)
    assert counter[0] >= CASES[target.name] // 2  # hypothesis may stop early only when it exhausted the space


def test_fuzz_command_counts_cases(capsys):
    assert fuzz.main(["--cases", "20", "--seed", "3", "--only", "selector-text", "--only", "lock-file"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("fuzzed ") and out.rstrip().endswith("no failures")
    assert int(out.splitlines()[-1].split()[1]) >= 10


def test_a_failing_property_is_reported_not_raised(capsys, monkeypatch):
    def broken(value):
        raise RuntimeError("boom")

    monkeypatch.setattr(fuzz, "TARGETS", (fuzz.Target("broken", fuzz.SNIPPETS, broken, 1.0),))
    assert fuzz.main(["--cases", "5", "--seed", "1"]) == 1
    assert "failures in broken" in capsys.readouterr().out


def test_hang_is_a_failure():
    with pytest.raises(fuzz.Hang), fuzz.time_limit(1):
        while True:
            pass
