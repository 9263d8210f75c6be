"""Stage 1, load: what annotation files say.

Owns the annotation format (:mod:`.models`: selectors, steps, annotations), reading YAML with real
positions (:mod:`.positions`) and validating it against the shipped JSON Schema (:mod:`.load`); the concept
map that pairs functions of two of the project's distributions (:mod:`.concepts`); curly quotes in code, in notes and lab
pages (:mod:`.code_quotes`); a lab folder read as the site reads it, bounded, and the directives of a lab page
(:mod:`.lab_refs`); the learning path: its tracks and each lab's place on it (:mod:`.learning_path`).
May import: layer 0 only (:mod:`infralens.errors`, :mod:`infralens.cachedir` for ``read_regular``, :mod:`infralens.bounds`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infralens._exports import lazy_exports

if TYPE_CHECKING:
    from .code_quotes import (
        curly_quotes_in_code as curly_quotes_in_code,
        lab_pages as lab_pages,
        page_diagnostics as page_diagnostics,
    )
    from .concepts import (
        CONCEPTS_FILE as CONCEPTS_FILE,
        ConceptMap as ConceptMap,
        ConceptPair as ConceptPair,
        load_concepts as load_concepts,
    )
    from .lab_refs import (
        INFRALENS_DIRECTIVES as INFRALENS_DIRECTIVES,
        DirectiveUse as DirectiveUse,
        LabFolder as LabFolder,
        LabPageText as LabPageText,
        directive_uses as directive_uses,
        read_lab_folder as read_lab_folder,
        read_lab_page as read_lab_page,
    )
    from .learning_path import (
        LAB_FILE as LAB_FILE,
        TRACKS_FILE as TRACKS_FILE,
        LabPlace as LabPlace,
        Track as Track,
        Tracks as Tracks,
        check_path as check_path,
        lab_number as lab_number,
        load_tracks as load_tracks,
        path_order as path_order,
        read_lab_place as read_lab_place,
    )
    from .load import LoadResult as LoadResult, annotation_schema as annotation_schema, load_file as load_file, load_text as load_text
    from .models import (
        Annotation as Annotation,
        BlockSelector as BlockSelector,
        ContainsSelector as ContainsSelector,
        ExactSelector as ExactSelector,
        Selector as Selector,
        SingleSelector as SingleSelector,
        Step as Step,
        selector_key as selector_key,
    )
    from .positions import PositionedDocument as PositionedDocument, YamlProblem as YamlProblem, load_positioned as load_positioned

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "Annotation": "models",
        "CONCEPTS_FILE": "concepts",
        "ConceptMap": "concepts",
        "ConceptPair": "concepts",
        "load_concepts": "concepts",
        "curly_quotes_in_code": "code_quotes",
        "lab_pages": "code_quotes",
        "page_diagnostics": "code_quotes",
        "DirectiveUse": "lab_refs",
        "INFRALENS_DIRECTIVES": "lab_refs",
        "directive_uses": "lab_refs",
        **dict.fromkeys(("LabFolder", "LabPageText", "read_lab_folder", "read_lab_page"), "lab_refs"),
        **dict.fromkeys(
            ("LAB_FILE", "TRACKS_FILE", "LabPlace", "Track", "Tracks", "check_path", "lab_number", "load_tracks", "path_order", "read_lab_place"),
            "learning_path",
        ),
        "BlockSelector": "models",
        "ContainsSelector": "models",
        "ExactSelector": "models",
        "LoadResult": "load",
        "Selector": "models",
        "SingleSelector": "models",
        "Step": "models",
        "annotation_schema": "load",
        "load_file": "load",
        "load_text": "load",
        "selector_key": "models",
        **dict.fromkeys(("PositionedDocument", "YamlProblem", "load_positioned"), "positions"),
    },
)
