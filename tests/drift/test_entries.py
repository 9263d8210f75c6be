"""Lock entries as typed values: keys, owners, places, and the positional order tools rely on."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from infralens.drift import PREAMBLE, AnnotationLock, EntryKind, Place, StepLock, parse_lock, render_entry
from infralens.source import DefinitionKind

STEP = StepLock(
    "ann/s1",
    "ann",
    12,
    "demo",
    "1.0",
    "demo/core.py",
    "demo.core",
    "Sampler.step",
    "Sampler.step",
    (7, 8),
    ("x = 1",),
    "0" * 64,
    ("a = 0",),
    ("return x",),
    "1" * 64,
    "2" * 64,
    2,
)
HEAD = AnnotationLock(
    "ann",
    "annotations/demo/a.yaml",
    1,
    "3" * 64,
    "demo",
    "1.0",
    "demo/core.py",
    "demo.core",
    "Sampler.step",
    DefinitionKind.FUNCTION,
    (5, 9),
    "4" * 64,
    ("abcd1234",),
    "5" * 64,
    ("ann/s1",),
)


def test_a_step_entry_is_the_place_it_was_reviewed_at():
    """A step entry holds a Place's fields (all but the version: its reviewed release is the entry's own ``version``)."""
    place_fields = [f.name for f in dataclasses.fields(Place) if f.name != "version"]
    assert [f.name for f in dataclasses.fields(StepLock) if f.name in place_fields] == place_fields
    assert STEP.place == Place("demo/core.py", "demo.core", "Sampler.step", "Sampler.step", (7, 8), ("x = 1",))
    assert STEP.describe() == "demo/core.py:7 Sampler.step"


def test_positional_fields_keep_the_lock_order():
    """tools/fuzz.py builds entries positionally: origin, place, facts, then the optional occurrence, copies, line and review."""
    names = [f.name for f in dataclasses.fields(StepLock)]
    assert names == [
        "step_id",
        "annotation",
        "yaml_line",
        "distribution",
        "version",
        "relpath",
        "module",
        "target",
        "scope",
        "lines",
        "texts",
        "text_sha256",
        "before",
        "after",
        "function_sha256",
        "file_sha256",
        "occurrence",
        "copies",
        "line",
        "review",
    ]
    assert STEP.occurrence == 2 and STEP.line == 0


@pytest.mark.parametrize(
    ("entry", "kind", "key", "owner"),
    [(STEP, EntryKind.STEP, "step:ann/s1", "ann"), (HEAD, EntryKind.ANNOTATION, "annotation:ann", "ann")],
)
def test_entries_name_their_kind_key_and_owner(entry, kind, key, owner):
    assert entry.entry_kind is kind
    assert (entry.key, entry.owner) == (key, owner)


def test_entries_round_trip_through_the_text_format_with_typed_values():
    text = PREAMBLE + "\n" + render_entry(HEAD) + render_entry(STEP, ("# a comment",))
    parsed = parse_lock(text, Path("x.lock"))
    assert parsed.lock.annotations["ann"] == HEAD and parsed.lock.steps["ann/s1"] == STEP
    assert parsed.lock.annotations["ann"].kind is DefinitionKind.FUNCTION
    assert [(b.kind, b.key, b.owner, b.comments) for b in parsed.blocks] == [
        (EntryKind.ANNOTATION, "annotation:ann", "ann", ()),
        (EntryKind.STEP, "step:ann/s1", "ann", ("# a comment",)),
    ]
