"""Run a piece of work in a forked child, so whatever it does to the process's global state dies with the child.

Mutation testing runs wrong versions of upstream code, and a wrong line can change global state for good: a
mutant of DiffSynth's ``skip_model_initialization`` that restores ``torch.nn.Module.register_parameter`` to the
wrong object breaks every ``nn.Linear`` built afterwards in that process. The worker therefore runs a
scenario's mutants in a child forked after the plain run; the results come back pickled through a pipe, and
the worker itself never runs a mutant. Where ``fork`` is unavailable, or unsafe because CUDA is initialised,
the work runs in the process as before.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def can_fork(device: str) -> bool:
    """Whether :func:`in_child` will fork: POSIX ``fork`` exists and CUDA (which does not survive a fork) is not in use."""
    return hasattr(os, "fork") and device != "cuda"


def in_child(work: Callable[[], T], device: str) -> T:
    """``work()``, computed in a forked child when :func:`can_fork`; its return value must pickle.

    A child that dies without an answer raises :class:`ChildFailed` with its exit status.
    """
    if not can_fork(device):
        return work()
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running the parent's cleanup
        status = 0
        try:
            os.close(read_end)
            payload = pickle.dumps(("ok", work()))
        except BaseException as error:  # everything goes back to the parent, which decides
            payload = pickle.dumps(("error", f"{type(error).__name__}: {error}"))
            status = 1
        try:
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, wait_status = os.waitpid(pid, 0)
    if not data:
        raise ChildFailed(f"the child process ended without an answer (wait status {wait_status})")
    kind, value = pickle.loads(data)
    if kind != "ok":
        raise ChildFailed(value)
    return value


class ChildFailed(RuntimeError):
    """The forked child raised, or died, before returning its result."""
