"""Corpus runs that more than one test reads, made once per test run for all its xdist workers (tests/_shared.py).

The real-history benchmark (tests/data/drift_benchmark.yaml) is checked whole by its accuracy guard
(test_history_corpus.py) and by the subset-determinism test, which compares each subset with that whole run:
about ten seconds of matching each time. The rows are pickled into the run's shared folder by the first test that
asks and read back by the other (the pickle is written by this run, into its own temporary folder).
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from _shared import built_once


def benchmark_rows(factory: pytest.TempPathFactory) -> list:
    """``run_corpus(default_cache_dir(), BENCHMARK)``, computed once per test run."""

    def build(folder: Path) -> None:
        from test_history_corpus import BENCHMARK, run_corpus  # not at import: that module imports this one

        from infralens.source.cache import default_cache_dir

        (folder / "rows.pickle").write_bytes(pickle.dumps(run_corpus(default_cache_dir(), BENCHMARK)))

    return pickle.loads((built_once(factory, "drift-benchmark-rows", build) / "rows.pickle").read_bytes())
