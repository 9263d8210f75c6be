"""Records: one definition per JSON document part, a frozen dataclass whose fields give its JSON and its JSON Schema.

:mod:`.fields` holds the definition (``@record``, :func:`spec`, :class:`Record`) and the two directions
(:func:`dump`, :func:`load`); :mod:`.schema` gives the JSON Schema ``$defs`` of records (:func:`definitions`).
The reports (:mod:`infralens.reports`) and the annotation files (:mod:`infralens.annotations`) are defined this
way, so each committed schema is generated from the code that reads and writes the documents it describes.
A foundation: imports only the standard library (so its names are imported eagerly here, not lazily).
"""

from __future__ import annotations

from infralens.records.fields import FieldSpec, JsonObject, Omit, Record, dump, load, record, spec
from infralens.records.schema import definitions, regenerate

__all__ = ["FieldSpec", "JsonObject", "Omit", "Record", "definitions", "dump", "load", "record", "regenerate", "spec"]
