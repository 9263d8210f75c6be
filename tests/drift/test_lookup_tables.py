"""A call through a module-level lookup table (``interface = TABLE [ key ]``) reaches every function the table holds."""

from __future__ import annotations

import pytest

from infralens.drift.match.calls import calls_in

OLD_ATTENTION = """
class Attention:
    def forward(self, q, k):
        scores = q @ k
        probs = scores.softmax(-1)
        out = probs * self.scale
        return out
"""

NEW_ATTENTION = """
from .functions import FUNCTIONS


class Attention:
    def forward(self, q, k):
        interface = FUNCTIONS[self.impl]
        return interface(self, q, k)
"""

TABLE = """
from .sdpa import sdpa_forward

FUNCTIONS: dict = {}
FUNCTIONS.update({"sdpa": sdpa_forward})
"""

SDPA = """
def sdpa_forward(module, q, k):
    scores = q @ k
    probs = scores.softmax(-1)
    out = probs * module.scale
    return out
"""

ANNOTATION = """
id: attention
lab: 01-demo
source: demo
target: demo.attention.Attention.forward
summary: Attention.
steps:
  - at: "probs = scores.softmax(-1)"
    key: probs
    note: the probabilities
  - at: "out = probs * self.scale"
    key: out
    note: the scaled output
"""


@pytest.mark.parametrize(
    ("texts", "tables"),
    [
        (["interface = ALL [ self . config . impl ]", "out = interface ( self , q )"], {"ALL"}),
        (["interface : Callable = ALL [ name ]", "out = interface ( q )"], {"ALL"}),
        (["self . init_fn = INIT [ self . kind ]", "a , b = self . init_fn ( self . config )"], {"INIT"}),
        (["handler = HANDLERS . get ( args . optim )", "return handler ( ctx )"], {"HANDLERS"}),  # a lookup without a default
        (["handler = HANDLERS . get ( name , fallback )", "handler ( ctx )"], {"HANDLERS"}),
        (["interface = ALL [ name ]"], set()),  # never called
        (["x = y [ 0 ] . z", "x ( )"], set()),  # not a bare lookup
    ],
)
def test_a_called_local_taken_from_a_table_names_the_table(texts, tables):
    assert calls_in(texts).tables == tables


def test_a_statement_is_followed_into_a_function_a_lookup_table_holds(demo):
    demo.write_annotation("attention.yaml", ANNOTATION)
    demo.lock(demo.write_source("1.0", {"attention.py": OLD_ATTENTION}))
    files = {"attention.py": NEW_ATTENTION, "functions.py": TABLE, "sdpa.py": SDPA}
    report = demo.check(demo.write_source("2.0", files))
    steps = {s.entry.step_id.split("/")[1]: s for s in report.steps}
    assert (steps["probs"].kind.value, steps["probs"].new.target) == ("moved", "sdpa_forward"), steps["probs"].message
    assert (steps["out"].kind.value, steps["out"].new.target) == ("changed", "sdpa_forward"), steps["out"].message
    # Without the table entry, nothing leads there: the same text is only a copy elsewhere.
    report = demo.check(demo.write_source("3.0", {**files, "functions.py": "FUNCTIONS: dict = {}\n"}), version="3.0")
    assert {s.kind.value for s in report.steps} == {"deleted"}


SPREAD_TABLE = """
from .sdpa import sdpa_forward
from .eager import eager_forward

FUNCTIONS = {"eager": eager_forward, **dict.fromkeys(("sdpa", "sdpa_fused"), sdpa_forward)}
"""

GOT_ATTENTION = NEW_ATTENTION.replace("interface = FUNCTIONS[self.impl]", "interface = FUNCTIONS.get(self.impl)")


def test_a_function_spread_over_keys_and_a_lookup_by_get_are_followed(demo):
    """``handler = TABLE . get ( key )`` dispatches through the table as ``TABLE [ key ]`` does, and an entry
    ``** dict . fromkeys ( KEYS , function )`` holds that function (transformers 5's optimizer handlers)."""
    demo.write_annotation("attention.yaml", ANNOTATION)
    demo.lock(demo.write_source("1.0", {"attention.py": OLD_ATTENTION}))
    eager = "def eager_forward(module, q, k):\n    return q\n"
    files = {"attention.py": GOT_ATTENTION, "functions.py": SPREAD_TABLE, "sdpa.py": SDPA, "eager.py": eager}
    report = demo.check(demo.write_source("2.0", files))
    steps = {s.entry.step_id.split("/")[1]: s for s in report.steps}
    assert (steps["probs"].kind.value, steps["probs"].new.target) == ("moved", "sdpa_forward"), steps["probs"].message
    assert (steps["out"].kind.value, steps["out"].new.target) == ("changed", "sdpa_forward"), steps["out"].message
