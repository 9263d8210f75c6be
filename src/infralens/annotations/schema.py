"""The annotation files' JSON Schema, generated from the models (:mod:`.models`, records of :mod:`infralens.records`).

``python -m infralens.annotations.schema`` rewrites ``src/infralens/schema/annotation.schema.json`` (the file
editors point their YAML language server at, and :mod:`.load` validates with); ``--check`` exits 1 when the
committed file differs from what the models give (a test runs the same comparison). A file holds one
annotation (a mapping) or a list of them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from infralens.annotations.models import Annotation
from infralens.atomic import write_text
from infralens.records import JsonObject, definitions, regenerate

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schema" / "annotation.schema.json"
ANNOTATION = {"$ref": f"#/$defs/{Annotation.json_name}"}
HEADER: JsonObject = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://infralens.invalid/schema/annotation.schema.json",
    "title": "InfraLens annotation file",
    "description": "One annotation (a mapping) or a list of annotations. Each maps lab notes onto statements of one upstream function or class, "
    "selected by their code text, never by line number. Generated from the models in infralens.annotations (python -m infralens.annotations.schema).",
}


def schema_document() -> JsonObject:
    """The whole schema: one annotation, or a non-empty list of them."""
    return HEADER | {"anyOf": [ANNOTATION, {"type": "array", "minItems": 1, "items": ANNOTATION}], "$defs": definitions([Annotation], {})}


def schema_text() -> str:
    return json.dumps(schema_document(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the generated schema over the committed one (``--check``: only compare)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    return regenerate(SCHEMA_FILE, schema_text(), argv, write_text, "python -m infralens.annotations.schema")


if __name__ == "__main__":
    sys.exit(main())
