"""Upstream text cannot stall the checker: every scanner that reads it stays linear on hostile layouts.

A release is arbitrary text. A regex with overlapping repetition over it can backtrack exponentially: the
statement search's gap once split a comment of k "#" in 2^(k-1) ways, and a 28-"#" banner line in a transformers
model kept one failed search running for 49 minutes. Each case here is a layout that breaks such a pattern (a
10,000-"#" comment, a 1 MB line, deep nesting); each regular-expression scanner must finish it within a second, and
each reader that tokenizes or parses it within PARSE_LIMIT_S per megabyte.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

from infralens.drift.match.textscan import WORD_BYTES, flexible_pattern
from infralens.source.fast_index import fast_index_source
from infralens.source.normal_form import normalize
from infralens.source.token_scan import scan

LIMIT_S = 1.0
STATEMENT = "hidden_states = self.proj ( hidden_states , scale = scale )"

HOSTILE = {
    # the statement's first tokens, then a long comment where the rest should be: every search must fail fast
    "a 10,000-# comment": "hidden_states = self.proj(hidden_states,\n" + "#" * 10_000 + "\n    other=1)\n",
    "a comment of #, spaces and backslashes": "hidden_states = self.proj(\n" + "# \\ " * 5_000 + "\n)\n",
    "a 1 MB line": "x = [" + "1, " * 350_000 + "]\n" + "hidden_states = self.proj(hidden_states, scale = other)\n",
    "deep nesting": "y = " + "(" * 90 + "1" + ")" * 90 + "\n" + "def f():\n" + "    if x:\n" * 1 + "        pass\n",
    "blank lines and continuations": "hidden_states = self.proj(hidden_states," + " \\\n" * 50_000 + "scale=other)\n",
}


def _timed(run: Callable[[], object]) -> float:
    """The CPU seconds ``run`` takes on this thread (not wall time, nor the process's: other processes on a busy
    machine, and a shared build on another thread of this test worker, do not count). The objects alive before it
    are frozen out of the collector's passes meanwhile: a reader that makes 700,000 nodes sets off full collections,
    whose cost in a test worker that has loaded torch and three libraries is that worker's heap, not the reader."""
    gc.collect()
    gc.freeze()
    try:
        start = time.thread_time()
        run()
        return time.thread_time() - start
    finally:
        gc.unfreeze()


SEARCH_IN_A_CHILD = """
import sys, time
from infralens.drift.match.textscan import flexible_pattern
data = sys.stdin.buffer.read()
pattern = flexible_pattern(sys.argv[1])
start = time.process_time()
pattern.search(data)
print(time.process_time() - start)
"""


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_the_statement_search_is_linear(case: str) -> None:
    """Run in a child process: a search that backtracks exponentially cannot be interrupted, so it is killed."""
    try:
        done = subprocess.run([sys.executable, "-c", SEARCH_IN_A_CHILD, STATEMENT], input=HOSTILE[case].encode(), capture_output=True, timeout=20, check=True)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: the statement search ran for more than 20 s (backtracking)")
    elapsed = float(done.stdout)
    assert elapsed < LIMIT_S, f"{case}: the statement search took {elapsed:.2f} s"


PROBES_IN_A_CHILD = """
import sys, time
from infralens.drift.match.textscan import DefinitionProbe, TextProbe, file_words
from infralens.source import INDENTED_DEFINITION_BYTES, METHOD_DEF_BYTES, TOP_DEFINITION_BYTES
data = sys.stdin.buffer.read()
scanners = {
    "text probe": TextProbe(sys.argv[1]),
    "definition probe": DefinitionProbe("proj"),
    "file words": file_words,
    "method names": lambda data: file_words(data, METHOD_DEF_BYTES),
    "top definitions": lambda data: file_words(data, TOP_DEFINITION_BYTES),
    "indented definitions": lambda data: file_words(data, INDENTED_DEFINITION_BYTES),
}
for name, scan in scanners.items():
    start = time.perf_counter()
    scan(data)
    print(name, time.perf_counter() - start)
"""


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_the_search_probes_are_linear(case: str) -> None:
    """The probes the checker runs before (or instead of) a regex: substring tests, the definition-line probe and a
    file's word set. Each finishes a hostile layout within the limit (in a child process, killed if it hangs)."""
    # then many keyword starts, none a definition: on one line, after a long lead of spaces, on many lines
    data = HOSTILE[case] + "\nx" + " def proj" * 50_000 + "\n" + " " * 500_000 + "x" + " def proj" * 50_000 + "\n" + "def " * 20_000 + " proj\nasync " * 20_000
    data += "\n" + " async" * 100_000 + "\n" + ("\n" + " " * 200 + "asyncdef") * 20_000  # leads a method-name scan tries and drops
    try:
        done = subprocess.run([sys.executable, "-c", PROBES_IN_A_CHILD, STATEMENT], input=data.encode(), capture_output=True, timeout=20, check=True)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: a search probe ran for more than 20 s")
    times = {line.rpartition(" ")[0]: float(line.rpartition(" ")[2]) for line in done.stdout.decode().splitlines()}
    assert set(times) == {"text probe", "definition probe", "file words", "method names", "top definitions", "indented definitions"}
    slow = {name: seconds for name, seconds in times.items() if seconds >= LIMIT_S}
    assert not slow, f"{case}: {slow}"


def test_the_statement_search_still_finds_the_statement_through_comments_and_continuations() -> None:
    pattern = flexible_pattern(STATEMENT)
    assert pattern is not None
    for layout in (
        b"hidden_states = self.proj(hidden_states, scale=scale)",
        b"hidden_states = self.proj(  # why\n    hidden_states,  ## twice\n    scale=scale,\n)",
        b"hidden_states = self.proj(hidden_states, \\\n scale=scale)",
        b"hidden_states = self.proj(\n" + b"#" * 64 + b"\n    hidden_states, scale=scale)",
    ):
        assert pattern.search(layout), layout
    assert not pattern.search(b"hidden_states = self.proj(hidden_states, scale=other)")


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_the_word_prefilter_is_linear(case: str) -> None:
    data = HOSTILE[case].encode()
    elapsed = _timed(lambda: WORD_BYTES.findall(data))
    assert elapsed < LIMIT_S, f"{case}: the word prefilter took {elapsed:.2f} s"


# The readers that tokenize or parse are linear too, but a 1 MB line is 700,000 tokens: CPython's own compile()
# takes 0.6 s of it on a fast machine, the token scanner alone 0.6 s on this 2-core one (over 1 s with a second
# process busy), and the whole index 2.0-3.0 s of CPU on a slow day, so they get PARSE_LIMIT_S per megabyte. A reader
# quadratic in the line's length would take hours, not seconds.
PARSE_LIMIT_S = 5.0


@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize("reader", [scan, normalize, fast_index_source], ids=["token-scanner", "normalize", "fast-index"])
def test_the_parsing_readers_stay_linear(case: str, reader: Callable[[str], object]) -> None:
    text = HOSTILE[case]
    limit = max(LIMIT_S, PARSE_LIMIT_S * len(text) / 1_000_000)
    elapsed = _timed(lambda: reader(text))
    assert elapsed < limit, f"{case}: {reader.__module__}.{reader.__name__} took {elapsed:.2f} s (limit {limit:.2f} s)"
