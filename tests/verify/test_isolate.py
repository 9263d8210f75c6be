"""Mutants run in a forked child: what they do to global state dies with it."""

from __future__ import annotations

import os

import pytest

from infralens.verify.run import isolate

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

STATE = {"patched": False}


def _patch_and_answer() -> int:
    STATE["patched"] = True  # like a mutant that restores a monkeypatched function to the wrong object
    return 41 + 1


def test_the_child_answers_and_its_global_changes_stay_in_the_child():
    assert isolate.in_child(_patch_and_answer, "cpu") == 42
    assert STATE["patched"] is False


def test_an_error_in_the_child_comes_back_as_child_failed():
    def broken() -> None:
        raise ValueError("bad mutant")

    with pytest.raises(isolate.ChildFailed, match="ValueError: bad mutant"):
        isolate.in_child(broken, "cpu")


def test_a_child_that_dies_is_reported_not_waited_for_forever():
    with pytest.raises(isolate.ChildFailed, match="without an answer"):
        isolate.in_child(lambda: os._exit(3), "cpu")


def test_on_cuda_the_work_runs_in_the_process():
    assert not isolate.can_fork("cuda")
    try:
        assert isolate.in_child(_patch_and_answer, "cuda") == 42
        assert STATE["patched"] is True
    finally:
        STATE["patched"] = False
