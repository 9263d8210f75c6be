"""Annotation YAML → models, and every way a file can be wrong (with its path:line:col)."""

from __future__ import annotations

import fnmatch
import json

import pytest

from infralens.annotations.load import annotation_schema, load_file, load_text
from infralens.annotations.models import BlockSelector, ContainsSelector, ExactSelector

GOOD = """\
id: good
lab: 01-lab
source: fakedist
target: fakedist.mod.f
summary: s
scenario: tiny
steps:
  - at: x = 1
    note: n
  - at: {text: "y = 2", nth: 2}
    key: second
    note: m
    expect: ["y == 2"]
    scenario: other
  - at: {contains: "z", nth: 1}
    note: o
    static: needs real weights
  - at: {from: "a = 1", to: {contains: "return"}}
    note: p
"""


def messages(text: str) -> list[str]:
    return [str(d) for d in load_text(text, "f.yaml").diagnostics]


def test_a_good_file_becomes_models_with_locations():
    result = load_text(GOOD, "f.yaml")
    assert result.diagnostics == ()
    (annotation,) = result.annotations
    assert (annotation.id, annotation.lab, annotation.source, annotation.scenario) == ("good", "01-lab", "fakedist", "tiny")
    first, second, third, block = annotation.steps
    assert first.at == ExactSelector("x = 1") and first.location.line == 8
    assert second.at == ExactSelector("y = 2", 2) and second.key == "second" and second.expect == ("y == 2",)
    assert second.expect_locations[0].line == 13 and second.scenario == "other"
    assert third.at == ContainsSelector("z", 1) and third.static == "needs real weights"
    assert block.at == BlockSelector(ExactSelector("a = 1"), ContainsSelector("return"))
    assert annotation.step_id(second) == "good/second"
    assert annotation.step_id(first) == f"good/{first.key}" and len(first.key) == 8


def test_a_list_of_annotations():
    text = "- " + GOOD.replace("\n", "\n  ").rstrip() + "\n- " + GOOD.replace("id: good", "id: other").replace("\n", "\n  ").rstrip() + "\n"
    result = load_text(text, "f.yaml")
    assert [a.id for a in result.annotations] == ["good", "other"] and result.diagnostics == ()


BASE = "id: a\nlab: 01-lab\nsource: fakedist\ntarget: fakedist.mod.f\nsummary: s\nsteps:\n  - at: x = 1\n    note: n\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            BASE + "colour: red\n",
            "f.yaml:9:1: error: unknown key 'colour' in annotation — use one of: definition, id, lab, scenario, source, steps, summary, target",
        ),
        (BASE + "    nte: y\n", "f.yaml:9:5: error: unknown key 'nte' in steps.0 — use one of: at, expect, key, note, review, scenario, static, unchecked"),
        (BASE.replace("summary: s\n", ""), "f.yaml:1:1: error: missing required key 'summary' in annotation — add 'summary:'"),
        (BASE.replace("    note: n\n", ""), "f.yaml:7:5: error: missing required key 'note' in steps.0 — add 'note:'"),
        (BASE.replace("steps:\n  - at: x = 1\n    note: n\n", "steps: 3\n"), "f.yaml:6:8: error: steps must be a list, got an integer — write steps as a list"),
        (BASE.replace("note: n", "note: [1, 2]"), "f.yaml:8:11: error: steps.0.note must be a string, got a list — write steps.0.note as a string"),
        ("hello\n", "f.yaml:1:1: error: annotation must be a mapping, got a string — write annotation as a mapping"),
        (BASE + "definition: 0\n", "f.yaml:9:13: error: definition must be at least 1 — use a 1-based count"),
        (BASE.replace("at: x = 1", "at: {text: a, nth: 0}"), "f.yaml:7:24: error: steps.0.at.nth must be at least 1 — use a 1-based count"),
        (BASE.replace("at: x = 1", "at: {text: a, bogus: 0}"), "f.yaml:7:19: error: unknown key 'bogus' in steps.0.at — use one of: nth, text"),
        (
            BASE.replace("at: x = 1", "at: {nth: 2}"),
            (
                "f.yaml:7:9: error: steps.0.at is not a selector (got a mapping) — "
                "write the statement text, {text: ..., nth: N}, {contains: ..., nth: N} or {from: ..., to: ...}"
            ),
        ),
        (BASE.replace("at: x = 1", "at: {from: a}"), "f.yaml:7:9: error: missing required key 'to' in steps.0.at — add 'to:'"),
        (BASE.replace("at: x = 1", "at: ''"), "f.yaml:7:9: error: steps.0.at is empty — give steps.0.at a value"),
        (BASE.replace("id: a", "id: A B"), "f.yaml:1:5: error: id 'A B' is not in the expected form — use lower-case letters, digits, '.', '_' or '-'"),
        (
            BASE.replace("fakedist.mod.f", "../etc/passwd"),
            (
                "f.yaml:4:9: error: target '../etc/passwd' is not in the expected form — "
                "write the defining module and qualname, e.g. diffusers.schedulers.scheduling_ddim.DDIMScheduler.step"
            ),
        ),
        (
            BASE.replace("source: fakedist", "source: /etc"),
            "f.yaml:3:9: error: source '/etc' is not in the expected form — name a distribution, e.g. diffusers or diffsynth",
        ),
    ],
)
def test_schema_problems_point_at_the_value(text, expected):
    assert messages(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (BASE + "  bad: [\n", "f.yaml:9:3: error: YAML syntax error: * — fix the YAML at this position"),
        ("id: a\nlab: : :\n", "f.yaml:2:6: error: YAML syntax error: mapping values are not allowed * — fix the YAML at this position"),
        (
            BASE.replace("  - at", "\t- at"),
            "f.yaml:7:1: error: YAML syntax error: found character*that cannot start any token — YAML does not allow tabs for indentation: indent with spaces",
        ),
        (BASE + "id: b\n", "f.yaml:9:1: error: duplicate key 'id' (first at line 1) — keep only one of them"),
        (BASE + "<<: {x: 1}\n", "f.yaml:9:1: error: merge keys ('<<') are not supported — write the keys out"),
        (BASE + "? [a]\n: b\n", "f.yaml:9:3: error: a mapping key must be a plain string — use a simple word as the key"),
        ("", "f.yaml:1:1: error: file is empty — add an annotation or delete the file"),
        ("# only a comment\n", "f.yaml:1:1: error: file is empty — add an annotation or delete the file"),
        ("[]\n", "f.yaml:1:1: error: the list of annotations is empty — add an annotation"),
    ],
)
def test_yaml_problems(text, expected):
    # '*' stands for wording that differs between libyaml and pure-Python PyYAML; positions do not.
    (message,) = messages(text)
    assert fnmatch.fnmatchcase(message, expected), message


def test_expect_that_is_not_an_expression_is_reported_at_its_line():
    result = load_text(BASE + "    expect:\n      - 'x =='\n      - 'x = 1'\n", "f.yaml")
    assert [str(d) for d in result.diagnostics] == [
        "f.yaml:10:9: error: expect is not a valid Python expression: invalid syntax — write a single expression such as 'x.shape == (1, 4, 8, 8)'",
        "f.yaml:11:9: error: expect is not a valid Python expression: invalid syntax — write a single expression such as 'x.shape == (1, 4, 8, 8)'",
    ]
    assert len(result.annotations) == 1  # still loaded, so the rest of it is checked too


def test_todo_in_a_note_is_an_error():
    assert messages(BASE.replace("note: n", "note: TODO explain")) == ["f.yaml:8:11: error: note still says TODO — write the note, then remove TODO"]


def test_two_steps_selecting_the_same_statement_share_a_key():
    text = BASE + "  - at: x = 1\n    note: again\n"
    assert messages(text) == [
        f"f.yaml:9:5: error: two steps share the key '{load_text(BASE, 'f').annotations[0].steps[0].key}' (first at line 7) — "
        "select different statements, or give each step its own 'key:'"
    ]


def test_alias_bomb_is_refused_quickly():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in range(1, 9):
        lines.append(f"{chr(97 + n)}: &{chr(97 + n)} [" + ",".join([f"*{chr(96 + n)}"] * 9) + "]")
    assert messages("\n".join(lines) + "\n") == [
        "f.yaml:1:44: error: the document is too large or too deeply nested (aliases expand to too many values) — split the file or remove YAML anchors/aliases"
    ]


def test_non_utf8_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"id: a\nsummary: caf\xe9\n")
    (diagnostic,) = load_file(path).diagnostics
    assert str(diagnostic) == f"{path}:2:1: error: file is not valid UTF-8 — save it as UTF-8"


def test_missing_file(tmp_path):
    (diagnostic,) = load_file(tmp_path / "nope.yaml").diagnostics
    assert str(diagnostic) == f"{tmp_path / 'nope.yaml'}:1:1: error: cannot read file: No such file or directory — check the path"


def test_schema_is_valid_json_schema():
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(annotation_schema())


def test_the_committed_annotation_schema_is_generated_from_the_models():
    """One source of truth: the shipped schema is what the models' fields give (regenerate with the command below)."""
    from infralens.annotations.schema import SCHEMA_FILE, main as schema_main, schema_text

    assert SCHEMA_FILE.read_text("utf-8") == schema_text(), "regenerate it: python -m infralens.annotations.schema"
    assert schema_main(["--check"]) == 0
    assert json.loads(schema_text()) == annotation_schema()


def test_a_stale_annotation_schema_is_caught(tmp_path, monkeypatch, capsys):
    from infralens.annotations import schema

    stale = tmp_path / "annotation.schema.json"
    stale.write_text(schema.schema_text().replace('"minLength": 3', '"minLength": 2'), "utf-8")
    monkeypatch.setattr(schema, "SCHEMA_FILE", stale)
    assert schema.main(["--check"]) == 1
    assert "out of date — run: python -m infralens.annotations.schema" in capsys.readouterr().err
    assert schema.main([]) == 0 and stale.read_text("utf-8") == schema.schema_text()


def test_the_builder_reads_every_key_the_schema_allows():
    """The schema comes from the models' fields; the builder must fill each of them from the file (none left at its default)."""
    import dataclasses

    text = """\
id: full
lab: 01-lab
source: fakedist
target: fakedist.mod.f
definition: 2
summary: s
scenario: smoke
steps:
  - at: {text: "x = 1", nth: 2}
    key: first
    note: n
    expect: ["x == 1"]
    scenario: other
    unchecked: the batch > 1 case
    review: re-read it
  - at: {from: "x = 1", to: {contains: "y", nth: 1}}
    note: n
    static: not traced
"""
    result = load_text(text, "full.yaml")
    assert not result.diagnostics
    (annotation,) = result.annotations
    steps = annotation.steps
    for model, values in ((annotation, [annotation]), (steps[0], list(steps))):
        document = [f for f in dataclasses.fields(model) if not f.metadata.get("json") or not f.metadata["json"].internal]
        unset = [f.name for f in document if all(getattr(v, f.name) == f.default for v in values)]
        assert not unset, f"{type(model).__name__}: the builder leaves {unset} at their defaults"
    assert (steps[0].scenario, steps[0].unchecked, steps[0].review, steps[1].static) == ("other", "the batch > 1 case", "re-read it", "not traced")
    assert annotation.definition == 2 and annotation.scenario == "smoke" and annotation.lab == "01-lab" and steps[0].key == "first"
    assert steps[1].at == BlockSelector(ExactSelector("x = 1"), ContainsSelector("y", 1)) and steps[0].at == ExactSelector("x = 1", 2)
    annotation_keys = set(annotation_schema()["$defs"]["annotation"]["properties"])
    assert annotation_keys == {"id", "lab", "source", "target", "definition", "summary", "scenario", "steps"}, "a new key needs a line above"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '!!python/object/apply:os.system ["touch /tmp/pwned"]\n',
            (
                "f.yaml:1:1: error: the YAML tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed — "
                "remove the '!!' tag: annotations are plain mappings, lists and strings"
            ),
        ),
        (
            "a: !!python/name:os.system\n",
            (
                "f.yaml:1:4: error: cannot read this value: "
                "could not determine a constructor for the tag 'tag:yaml.org,2002:python/name:os.system' — quote it as a string"
            ),
        ),
        (
            "a: !!set {x, y}\n",
            "f.yaml:1:4: error: the YAML tag 'tag:yaml.org,2002:set' is not allowed — remove the '!!' tag: annotations are plain mappings, lists and strings",
        ),
    ],
)
def test_yaml_tags_never_construct_objects(text, expected):
    assert messages(text) == [expected]


def test_too_large_file_is_refused_before_parsing(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"summary: " + b"a" * 2_100_000 + b"\n")
    (diagnostic,) = load_file(path).diagnostics
    assert str(diagnostic) == f"{path}:1:1: error: file is larger than 2 MB — split it into smaller annotation files"


def test_deep_nesting_is_refused():
    (message,) = messages("x: " + "[" * 5000 + "]" * 5000 + "\n")
    # Our own depth limit, or (PyYAML >= 6.0.3) the parser's, whichever trips first: either way a located error.
    assert message.startswith("f.yaml:1:") and ("too deeply nested" in message or "maximum nesting depth" in message)


@pytest.mark.parametrize(
    ("nth", "expected"),
    [
        ("1.0", "f.yaml:7:30: error: steps.0.at.nth must be an integer, got a number — write steps.0.at.nth as an integer"),
        ("true", "f.yaml:7:30: error: steps.0.at.nth must be an integer, got a boolean — write steps.0.at.nth as an integer"),
        ("100001", "f.yaml:7:30: error: steps.0.at.nth must be at most 100000 — count the matches again"),
        ("9" * 400, "f.yaml:7:30: error: steps.0.at.nth must be at most 100000 — count the matches again"),
        ("9" * 5000, "f.yaml:7:30: error: cannot read this value: the number is too long — write a small whole number (or quote it as a string)"),
    ],
)
def test_nth_is_a_small_whole_number(nth, expected):
    # Each used to be an internal error (a float index; a 5,000-digit integer that cannot be printed) or a
    # message thousands of characters long; none may print the number itself.
    assert messages(BASE.replace("  - at: x = 1", f'  - at: {{text: "x = 1", nth: {nth}}}')) == [expected]


@pytest.mark.parametrize(
    ("summary", "where", "code"),
    [('"x\u2028y"', "5:12", "2028"), ("x\u2029y", "5:11", "2029"), ('"x\x85y"', "5:12", "0085"), ('"x\x1b[31my"', "5:12", "001B"), ("x\x07", "5:11", "0007")],
)
def test_invisible_characters_are_refused_at_their_real_position(summary, where, code):
    # YAML counts U+2028, U+2029 and U+0085 as line breaks, so they used to shift every later line number;
    # control characters were a YAML error at "position N of <unicode string>", line 1.
    text = BASE.replace("summary: s", f"summary: {summary}") + "    bogus: 1\n"
    assert messages(text) == [
        f"f.yaml:{where}: error: the invisible character U+{code} is not allowed in annotation files — "
        "delete it (in a double-quoted string, an escape such as \\u2028 is fine)"
    ]


def test_an_escaped_line_separator_keeps_line_numbers_right():
    text = BASE.replace("summary: s", 'summary: "x\\u2028y"') + "    bogus: 1\n"
    assert messages(text) == ["f.yaml:9:5: error: unknown key 'bogus' in steps.0 — use one of: at, expect, key, note, review, scenario, static, unchecked"]


def test_unchecked_beside_an_expect_names_the_case_no_scenario_runs() -> None:
    text = BASE + "    unchecked: batch > 1\n    expect: ['x > 0']\n"
    assert not any("unchecked" in message for message in messages(text))


def test_unchecked_with_static_is_refused() -> None:
    text = BASE + "    unchecked: no strong check\n    static: read only\n"
    assert any("cannot be both 'unchecked' and 'static'" in message for message in messages(text))
