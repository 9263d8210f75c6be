"""Annotation files (YAML) to :class:`~infralens.annotations.models.Annotation` values.

Schema errors, YAML errors and bad expressions come back as diagnostics
that point at the offending line; nothing in a file is skipped silently.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from infralens.annotations.code_quotes import hidden_character_diagnostics, value_diagnostics
from infralens.annotations.models import Annotation, BlockSelector, ContainsSelector, ExactSelector, Selector, SingleSelector, Step, selector_key
from infralens.annotations.positions import PositionedDocument, YamlProblem, load_positioned
from infralens.cachedir import NotRegularFile, read_regular
from infralens.errors import Diagnostic, Location
from infralens.hashing import sha256_bytes

TODO_MARK = re.compile(r"\bTODO\b")
MAX_FILE_BYTES = 2_000_000


@lru_cache(maxsize=1)
def annotation_schema() -> dict[str, Any]:
    """The JSON Schema shipped with the package (also usable by editors), generated from the models (:mod:`.schema`)."""
    text = resources.files("infralens.schema").joinpath("annotation.schema.json").read_text("utf-8")
    return json.loads(text)


def _is_whole_number(checker: object, value: object) -> bool:
    """YAML integers only: JSON Schema would also take ``1.0`` (and Python ``True``) as an integer."""
    return isinstance(value, int) and not isinstance(value, bool)


@lru_cache(maxsize=1)
def _validator_class() -> type[jsonschema.protocols.Validator]:
    """Draft 2020-12 with YAML's idea of an integer."""
    strict_types = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_whole_number)
    return jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=strict_types)


@lru_cache(maxsize=1)
def _single_annotation_validator() -> jsonschema.protocols.Validator:
    schema = annotation_schema()
    return _validator_class()({"$defs": schema["$defs"], "$ref": "#/$defs/annotation"})


@dataclass(frozen=True)
class LoadResult:
    """What one file yielded: annotations that are well-formed, and diagnostics."""

    path: str
    annotations: tuple[Annotation, ...]
    diagnostics: tuple[Diagnostic, ...]
    recovered: tuple[Annotation, ...] = ()
    """Annotations with schema errors in some steps, rebuilt from their other steps. Only ``validate``
    uses them (to report selector problems in the same pass); they are never locked, checked or shown."""
    sha256: str | None = None
    """SHA-256 of exactly the bytes parsed (None when the file could not be read): what ``lock`` records."""


def load_file(path: str | Path, *, display_path: str | None = None) -> LoadResult:
    """Load every annotation in ``path``; problems become diagnostics, never exceptions."""
    shown = display_path or str(path)
    try:
        raw = read_regular(path, limit=MAX_FILE_BYTES)
    except OSError as error:  # a FIFO or device is refused at once, never read (or waited on)
        hint = "replace it with a regular YAML file, or remove it" if isinstance(error, NotRegularFile) else "check the path"
        return LoadResult(shown, (), (Diagnostic(Location(shown), f"cannot read file: {error.strerror}", hint, code="io"),))
    if len(raw) > MAX_FILE_BYTES:
        return LoadResult(shown, (), (Diagnostic(Location(shown), "file is larger than 2 MB", "split it into smaller annotation files", code="io"),))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return LoadResult(shown, (), (Diagnostic(Location(shown, line), "file is not valid UTF-8", "save it as UTF-8", code="encoding"),))
    return dataclasses.replace(load_text(text, shown), sha256=sha256_bytes(raw))


def load_text(text: str, path: str) -> LoadResult:
    """Load annotations from YAML text that claims to come from ``path``."""
    try:
        document = load_positioned(text, path)
    except YamlProblem as problem:
        return LoadResult(path, (), (problem.diagnostic,))
    if document.value is None:
        return LoadResult(path, (), (Diagnostic(Location(path), "file is empty", "add an annotation or delete the file", code="schema"),))
    items: list[tuple[Any, tuple]] = []
    if isinstance(document.value, list):
        if not document.value:
            return LoadResult(path, (), (Diagnostic(document.where(()), "the list of annotations is empty", "add an annotation", code="schema"),))
        items = [(item, (index,)) for index, item in enumerate(document.value)]
    else:
        items = [(document.value, ())]
    annotations: list[Annotation] = []
    recovered: list[Annotation] = []
    diagnostics: list[Diagnostic] = []
    for value, prefix in items:
        problems = _schema_problems(value, prefix, document)
        if problems:
            diagnostics.extend(diagnostic for _, diagnostic in problems)
            partial = _without_broken_steps(value, prefix, document, [where for where, _ in problems])
            if partial is not None:
                annotation, more = partial
                diagnostics.extend(more)
                recovered.append(annotation)
            continue
        annotation, more = _build_annotation(value, prefix, document)
        diagnostics.extend(more)
        annotations.append(annotation)
    return LoadResult(path, tuple(annotations), tuple(diagnostics), tuple(recovered))


_NEEDED = ("id", "source", "target", "summary", "steps")
"""Keys an annotation cannot be rebuilt without (for the rest, a broken value is left out)."""


def _without_broken_steps(value: Any, prefix: tuple, document: PositionedDocument, broken: list[tuple]) -> tuple[Annotation, list[Diagnostic]] | None:
    """The annotation without what the schema refused (unknown keys, broken optional values, broken steps), if it still stands.

    So one pass reports every error of a file: the schema's, and the selector problems of the steps that are well formed.
    """
    if not isinstance(value, dict) or not isinstance(value.get("steps"), list):
        return None
    known = annotation_schema()["$defs"]["annotation"]["properties"]
    bad_steps = {path[1] for path in broken if len(path) >= 2 and path[0] == "steps" and isinstance(path[1], int)}
    dropped = {key for key in value if key not in known} | {path[0] for path in broken if len(path) == 1 and path[0] not in _NEEDED}
    kept = {key: item for key, item in value.items() if key not in dropped}
    trimmed = {**kept, "steps": [step for index, step in enumerate(value["steps"]) if index not in bad_steps]}
    if not trimmed["steps"] or _schema_problems(trimmed, prefix, document):
        return None
    return _build_annotation(kept, prefix, document, skip=frozenset(bad_steps))


# --------------------------------------------------------------------------
# Schema errors → diagnostics
# --------------------------------------------------------------------------


def _schema_problems(value: Any, prefix: tuple, document: PositionedDocument) -> list[tuple[tuple, Diagnostic]]:
    """Each schema error as (its path inside *value*, the diagnostic at its YAML position).

    An integer not written in plain decimal digits (``0x10``, ``0b1``, ``1_000``, ``+5``, ``017``, ``1:30``) is
    one error at its value, whatever else the schema says about that value.
    """
    validator = _single_annotation_validator()
    errors = sorted(validator.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    spelling = _number_spelling_problems(value, prefix, document)
    misspelt = {path for path, _ in spelling}
    schema = [(tuple(error.absolute_path), _describe_schema_error(error, prefix, document)) for error in _most_specific(errors)]
    return sorted(spelling + [(path, found) for path, found in schema if path not in misspelt], key=lambda item: list(map(str, item[0])))


@lru_cache(maxsize=1)
def _integer_keys() -> frozenset[str]:
    """The keys whose value the schema says is an integer (``nth``, ``definition``)."""
    keys: set[str] = set()
    pending: list[Any] = [annotation_schema()]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            keys.update(key for key, sub in node.get("properties", {}).items() if isinstance(sub, dict) and sub.get("type") == "integer")
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return frozenset(keys)


@lru_cache(maxsize=2)
def _lines(source: str) -> tuple[str, ...]:
    """The file's lines, split once per file (a file may hold many annotations, each with several numbers)."""
    return tuple(re.split(r"\r\n|\r|\n", source))


_PLAIN_TOKEN = re.compile(r"[^\s,\]\}#]*")


def _number_spelling_problems(value: Any, prefix: tuple, document: PositionedDocument) -> list[tuple[tuple, Diagnostic]]:
    """Every integer of an integer key whose text in the file is not plain decimal digits (YAML 1.1 reads many spellings)."""
    from infralens.bounds import BadNumber, check_spelling

    found: list[tuple[tuple, Diagnostic]] = []
    pending: list[tuple[tuple, Any]] = [((), value)]
    while pending:
        path, item = pending.pop()
        children = item.items() if isinstance(item, dict) else enumerate(item) if isinstance(item, list) else ()
        for key, child in children:
            if not (key in _integer_keys() and isinstance(child, int) and not isinstance(child, bool)):
                pending.append((path + (key,), child))
                continue
            where = document.where(prefix + path + (key,))
            lines = _lines(document.source)
            line = lines[where.line - 1] if where.line and 0 < where.line <= len(lines) else ""
            token = _PLAIN_TOKEN.match(line, max((where.col or 1) - 1, 0))
            try:
                check_spelling(token.group() if token else "", len(line))
            except BadNumber as error:
                field = ".".join(str(part) for part in path + (key,))
                found.append((path + (key,), Diagnostic(where, f"{field} {error.problem}", error.hint or "write a small whole number", code="schema")))
    return found


def _most_specific(errors: list[jsonschema.ValidationError]) -> list[jsonschema.ValidationError]:
    """Replace ``anyOf`` failures by their most relevant sub-errors, one per path.

    A selector's alternative is chosen by its shape (a string, ``text``, ``contains``
    or ``from``), so a typo inside ``{text: ..., nth: 0}`` is reported as such instead
    of as "unknown key" of some other alternative.
    """
    chosen: dict[tuple, jsonschema.ValidationError] = {}
    for error in errors:
        replacements = [error]
        if error.validator == "anyOf" and error.context:
            replacements = _selector_errors(error) if _is_selector_path(error) else [jsonschema.exceptions.best_match(error.context) or error]
        for replacement in replacements:
            chosen.setdefault(tuple(replacement.absolute_path), replacement)
    return list(chosen.values())


def _is_selector_path(error: jsonschema.ValidationError) -> bool:
    path = list(error.absolute_path)
    return (len(path) >= 3 and path[-3] == "steps" and path[-1] == "at") or (len(path) >= 2 and path[-2] == "at" and path[-1] in ("from", "to"))


_SHAPES = (("from", "blockSelector"), ("contains", "containsSelector"), ("text", "exactSelector"))
"""Which selector a mapping asks for, told by the first of these keys it has (a block only where one may stand)."""


def _selector_errors(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """Validate a selector against the one alternative its shape asks for; [error] when none fits."""
    defs = annotation_schema()["$defs"]
    alternatives = error.schema.get("anyOf", []) if isinstance(error.schema, Mapping) else []
    named = {str(option.get("$ref", "")).rpartition("/")[2]: option for option in alternatives}
    value: Any = error.instance
    schema = None
    if isinstance(value, str):
        schema = next((option for option in alternatives if option.get("type") == "string"), None)
    elif isinstance(value, dict):
        schema = next((named[name] for key, name in _SHAPES if key in value and name in named), None)
    if schema is None:
        return [error]
    validator = _validator_class()({"$defs": defs, **schema})
    found = []
    for sub in validator.iter_errors(value):
        if sub.validator == "anyOf" and sub.context:
            sub.path.extendleft(reversed(list(error.absolute_path)))
            found.extend(_selector_errors(sub))
            continue
        sub.path.extendleft(reversed(list(error.absolute_path)))
        found.append(sub)
    return found or [error]


def _describe_schema_error(error: jsonschema.ValidationError, prefix: tuple, document: PositionedDocument) -> Diagnostic:
    path = prefix + tuple(error.absolute_path)
    where = document.where(path)
    field = ".".join(str(p) for p in error.absolute_path) or "annotation"
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    if error.validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        extras = sorted(set(error.instance) - set(allowed)) if isinstance(error.instance, dict) else []
        key = extras[0] if extras else "?"
        where = document.locations.get(path + (key, "__key__"), where)
        return Diagnostic(where, f"unknown key {key!r} in {field}", f"use one of: {', '.join(allowed)}", code="schema")
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return Diagnostic(where, f"missing required key {missing!r} in {field}", f"add '{missing}:'", code="schema")
    if error.validator == "type":
        wanted = str(schema.get("type"))
        expected = _YAML_TYPE_NAMES.get(wanted, wanted)
        got = _yaml_type_name(error.instance)
        return Diagnostic(where, f"{field} must be {expected}, got {got}", f"write {field} as {expected}", code="schema")
    if error.validator == "anyOf" and _is_selector_path(error):
        return Diagnostic(
            where,
            f"{field} is not a selector (got {_yaml_type_name(error.instance)})",
            "write the statement text, {text: ..., nth: N}, {contains: ..., nth: N} or {from: ..., to: ...}",
            code="schema",
        )
    if error.validator == "pattern":
        return Diagnostic(where, f"{field} {_short(error.instance)} is not in the expected form", _pattern_hint(field), code="schema")
    if error.validator in ("minLength", "minItems"):
        return Diagnostic(where, f"{field} is empty", f"give {field} a value", code="schema")
    if error.validator in ("maxLength",):
        return Diagnostic(where, f"{field} is too long", "shorten it", code="schema")
    if error.validator == "minimum":
        return Diagnostic(where, f"{field} must be at least {error.validator_value}", "use a 1-based count", code="schema")
    if error.validator == "maximum":  # never print the value: it may be too long to print
        return Diagnostic(where, f"{field} must be at most {error.validator_value}", "count the matches again", code="schema")
    return Diagnostic(where, f"{field}: {error.message}", "see the annotation schema (infralens schema)", code="schema")


_YAML_TYPE_NAMES = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false"}


def _yaml_type_name(value: Any) -> str:
    """The YAML word for a loaded value's type, for messages."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    names = {dict: "a mapping", list: "a list", str: "a string", int: "an integer", float: "a number"}
    return names.get(type(value), f"a {type(value).__name__}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "...'"


def _pattern_hint(field: str) -> str:
    last = field.rsplit(".", 1)[-1]
    if last == "target":
        return "write the defining module and qualname, e.g. diffusers.schedulers.scheduling_ddim.DDIMScheduler.step"
    if last == "source":
        return "name a distribution, e.g. diffusers or diffsynth"
    return "use lower-case letters, digits, '.', '_' or '-'"


# --------------------------------------------------------------------------
# Schema-valid values → models
# --------------------------------------------------------------------------


def _build_annotation(
    value: dict[str, Any], prefix: tuple, document: PositionedDocument, skip: frozenset[int] = frozenset()
) -> tuple[Annotation, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    steps: list[Step] = []
    seen_keys: dict[str, Location] = {}
    for index, raw_step in enumerate(value["steps"]):
        if index in skip:
            continue
        step_path = prefix + ("steps", index)
        selector = _build_selector(raw_step["at"], step_path + ("at",), document)
        key = raw_step.get("key") or selector_key(selector)
        where = document.where(step_path)
        if key in seen_keys:
            diagnostics.append(
                Diagnostic(
                    where,
                    f"two steps share the key {key!r} (first at line {seen_keys[key].line})",
                    "select different statements, or give each step its own 'key:'",
                    code="duplicate",
                )
            )
        seen_keys.setdefault(key, where)
        expects = tuple(raw_step.get("expect", ()))
        expect_locations = tuple(document.where(step_path + ("expect", i)) for i in range(len(expects)))
        for expression, location in zip(expects, expect_locations, strict=True):
            problem = _expression_problem(expression)
            if problem:
                diagnostics.append(
                    Diagnostic(
                        location,
                        f"expect is not a valid Python expression: {problem}",
                        "write a single expression such as 'x.shape == (1, 4, 8, 8)'",
                        code="expect",
                    )
                )
        if raw_step.get("unchecked") and raw_step.get("static"):
            diagnostics.append(
                Diagnostic(
                    document.where(step_path + ("unchecked",)),
                    "a step cannot be both 'unchecked' and 'static'",
                    "'unchecked: <reason>' is for a traced step: why it has no expect, or which case its expects never see",
                    code="schema",
                )
            )
        diagnostics.extend(value_diagnostics(raw_step["note"], document, step_path + ("note",)))
        diagnostics.extend(hidden_character_diagnostics(raw_step["note"], document, step_path + ("note",)))
        if TODO_MARK.search(raw_step["note"]):
            diagnostics.append(Diagnostic(document.where(step_path + ("note",)), "note still says TODO", "write the note, then remove TODO", code="todo"))
        steps.append(
            Step(
                at=selector,
                note=raw_step["note"],
                key=key,
                expect=expects,
                scenario=raw_step.get("scenario"),
                static=raw_step.get("static"),
                unchecked=raw_step.get("unchecked"),
                review=raw_step.get("review"),
                location=where,
                expect_locations=expect_locations,
            )
        )
    diagnostics.extend(value_diagnostics(value["summary"], document, prefix + ("summary",)))
    diagnostics.extend(hidden_character_diagnostics(value["summary"], document, prefix + ("summary",)))
    if TODO_MARK.search(value["summary"]):
        diagnostics.append(Diagnostic(document.where(prefix + ("summary",)), "summary still says TODO", "write the summary, then remove TODO", code="todo"))
    annotation = Annotation(
        id=value["id"],
        lab=value.get("lab"),
        source=value["source"],
        target=value["target"],
        summary=value["summary"],
        steps=tuple(steps),
        definition=value.get("definition"),
        scenario=value.get("scenario"),
        location=document.where(prefix),
    )
    return annotation, diagnostics


def _build_selector(raw: Any, path: tuple, document: PositionedDocument) -> Selector:
    where = document.where(path)
    if isinstance(raw, dict) and "from" in raw:
        start = _build_single(raw["from"], path + ("from",), document)
        end = _build_single(raw["to"], path + ("to",), document)
        return BlockSelector(start, end, where)
    return _build_single(raw, path, document)


def _build_single(raw: Any, path: tuple, document: PositionedDocument) -> SingleSelector:
    where = document.where(path)
    if isinstance(raw, str):
        return ExactSelector(raw, None, where)
    if "contains" in raw:
        return ContainsSelector(raw["contains"], raw.get("nth"), where)
    return ExactSelector(raw["text"], raw.get("nth"), where)


def _expression_problem(expression: str) -> str | None:
    try:
        ast.parse(expression, mode="eval")
    except SyntaxError as error:
        return error.msg
    except ValueError as error:  # e.g. null bytes
        return str(error)
    return None
