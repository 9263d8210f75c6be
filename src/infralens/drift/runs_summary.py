"""``infralens history --runs REPORT... --output FILE``: the committed summary of ``verify --against`` runs.

Each report is read through the bounded loader (:func:`infralens.reports.load_verify_report`), must be
named ``<distribution>-<version>.json`` for the release it ran (``make history-verify`` names them so, and
the name is checked against the report's ``versions``), and is boiled down by
:func:`infralens.reports.summarize_runs`; the summary is written whole or not at all.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from infralens.commands import EXIT_OK, EXIT_USAGE, say


def write_runs_summary(paths: Sequence[str], output: str | None) -> int:
    """Summarize the verification reports at ``paths`` into ``output`` (standard output when None or ``-``)."""
    from infralens import __version__
    from infralens.reports import ReportError, RunsInputError, dumps_report, load_verify_report, summarize_runs
    from infralens.userfiles import STANDARD_OUTPUT, UserFileError, check_output, write_output

    output = None if output == STANDARD_OUTPUT else output
    try:
        if output is not None:
            check_output(output)  # a FIFO, a device or a link leading out of its folder: refused before reading
            if not Path(output).parent.is_dir():
                raise UserFileError(f"{output}: its folder {Path(output).parent} does not exist; nothing was written")
    except UserFileError as error:
        say(f"infralens history --runs: {error} (choose a writable path with --output)", error=True)
        return EXIT_USAGE
    try:
        reports = [(Path(path).as_posix(), load_verify_report(path)) for path in paths]
        summary = summarize_runs(reports, f"infralens {__version__} history --runs")
    except (ReportError, RunsInputError) as error:
        say(f"infralens history --runs: {error}; nothing was written", error=True)
        return EXIT_USAGE
    text = dumps_report(summary)
    if output is None:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        write_output(output, text, what="summary of runs")
    except UserFileError as error:
        say(f"infralens history --runs: {error} (choose a writable path with --output)", error=True)
        return EXIT_USAGE
    runs = sum(len(series.runs) for series in summary.series)
    steps = sum(len(series.steps) for series in summary.series)
    say(f"wrote {output}: {runs} runs, {steps} steps", error=True)
    return EXIT_OK
