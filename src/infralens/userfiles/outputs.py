"""Outputs named on the command line (``--output``, ``--report``, ``--json``): ``-`` or a path the policy accepts.

Commands check their output before the work (:func:`check_output`), so a FIFO or a device is refused at once and
not after minutes of computing, and write it with :func:`write_output`. A command that prints its progress on
standard output and writes its result through a file (``verify --report -``, ``coverage --json -``) runs inside
:func:`report_on_standard_output`: its prints go to standard error and the report alone to standard output.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from infralens.userfiles.changes import write_atomically
from infralens.userfiles.targets import write_target

STANDARD_OUTPUT = "-"
"""The output name that means standard output."""


def check_output(name: str | Path, *, within: Path | None = None) -> None:
    """Raise :class:`~.problems.UserFileError` now when writing ``name`` later would be refused."""
    if str(name) != STANDARD_OUTPUT:
        write_target(Path(name), within=within, output=True)


def write_output(name: str | Path, text: str, *, what: str, within: Path | None = None) -> str:
    """Write ``text`` to ``name`` (``-``: standard output) whole or not at all; returns where it went, for messages."""
    if str(name) == STANDARD_OUTPUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return "standard output"
    write_atomically(Path(name), text, what=what, within=within, output=True)
    return str(name)


@contextlib.contextmanager
def report_on_standard_output(file_name: str) -> Iterator[Path]:
    """A path to give a command as its report file; while inside, its prints go to standard error, and when it
    returns, the report (if it wrote one) is copied to standard output."""
    real_stdout = sys.stdout
    with tempfile.TemporaryDirectory(prefix="infralens-report-") as folder:
        path = Path(folder) / file_name
        with contextlib.redirect_stdout(sys.stderr):
            yield path
        if path.is_file():
            real_stdout.write(path.read_text("utf-8"))
            real_stdout.flush()
