"""What an annotation file says: selectors, steps and annotations, as loaded from YAML.

Produced by :mod:`infralens.annotations.load`; read by every later stage. Each is a record
(:mod:`infralens.records`): its fields and their :func:`~infralens.records.spec` are also the annotation
files' JSON Schema (:mod:`.schema` generates ``infralens/schema/annotation.schema.json`` from them), so what a
file may say and what the program holds are one definition. Locations (where in the file a value was
read) are ``internal``: the program's, never the file's.
"""

from __future__ import annotations

from typing import ClassVar

from infralens.errors import Location
from infralens.hashing import sha256_text
from infralens.records import Record, record, spec

SLUG = "^[a-z0-9][a-z0-9._-]*$"
SLUG_CHARS = 120
PICK_MAX = 100_000
"""Largest ``nth`` or ``definition`` pick (both are 1-based)."""

# --------------------------------------------------------------------------
# Selectors: how a step points at statements. Never a line number.
# --------------------------------------------------------------------------


@record
class ExactSelector(Record):
    """The whole statement, compared after normalisation (written as the text alone, or ``{text, nth}``)."""

    json_name: ClassVar[str] = "exactSelector"
    json_shorthand: ClassVar[str | None] = "text"
    text: str = spec(min_length=1)
    nth: int | None = spec(default=None, omit="none", minimum=1, maximum=PICK_MAX)
    location: Location | None = spec(default=None, compare=False, internal=True)

    def describe(self) -> str:
        suffix = f" (nth={self.nth})" if self.nth is not None else ""
        return f"{self.text!r}{suffix}"


@record
class ContainsSelector(Record):
    """A statement whose normalised text contains ``text``; ``nth`` picks one of several."""

    json_name: ClassVar[str] = "containsSelector"
    text: str = spec(key="contains", min_length=1)
    nth: int | None = spec(default=None, omit="none", minimum=1, maximum=PICK_MAX)
    location: Location | None = spec(default=None, compare=False, internal=True)

    def describe(self) -> str:
        suffix = f", nth={self.nth}" if self.nth is not None else ""
        return f"contains {self.text!r}{suffix}"


SingleSelector = ExactSelector | ContainsSelector


@record
class BlockSelector(Record):
    """A run of statements from one selected statement to another (inclusive)."""

    json_name: ClassVar[str] = "blockSelector"
    start: SingleSelector = spec(key="from")
    end: SingleSelector = spec(key="to")
    location: Location | None = spec(default=None, compare=False, internal=True)

    def describe(self) -> str:
        return f"from {self.start.describe()} to {self.end.describe()}"


Selector = ExactSelector | ContainsSelector | BlockSelector


def selector_key(selector: Selector) -> str:
    """A stable short fingerprint of a selector, used to name steps."""
    return sha256_text(selector.describe())[:8]


# --------------------------------------------------------------------------
# Annotations as written by maintainers.
# --------------------------------------------------------------------------


@record
class Step(Record):
    """One selected statement (or block) and the note that sits beside it."""

    json_name: ClassVar[str] = "step"
    at: Selector
    note: str = spec(
        min_length=1,
        max_length=20_000,
        doc=(
            "MyST Markdown; $math$ allowed; raw HTML, images, file-inserting directives and links other than http, https, mailto or relative "
            "are refused with a warning."
        ),
    )
    key: str = spec(required=False, pattern=SLUG, max_length=SLUG_CHARS, doc="Stable step name; defaults to a hash of the selector.")
    """Stable name of the step inside its annotation (explicit ``key:`` or a selector hash)."""
    expect: tuple[str, ...] = spec(
        default=(),
        omit="empty",
        item_min_length=1,
        item_max_length=2000,
        doc="Python expressions that must be true in the real frame right after the statement ran.",
    )
    scenario: str | None = spec(default=None, omit="none")
    static: str | None = spec(default=None, omit="none", min_length=3, doc="Marks the step as static-only (not traced) and says why.")
    """If set, the step is static-only (never traced) and this is the reason."""
    unchecked: str | None = spec(
        default=None,
        omit="none",
        min_length=3,
        doc="The step is traced (it must run). Without expects: why no check of its values would be strong. Beside expects: the case the note "
        "claims that no scenario runs (e.g. batch > 1), shown with the tier.",
    )
    """If set, the step is traced but deliberately has no expect; this says why no strong check is possible."""
    review: str | None = spec(
        default=None,
        omit="none",
        min_length=3,
        doc="Written by 'infralens fix': the step was re-anchored or flagged and its note must be re-read; remove it once reviewed.",
    )
    """If set, a human must re-read the note: ``infralens fix`` re-anchored or flagged the step, and says why."""
    location: Location | None = spec(default=None, compare=False, internal=True)
    expect_locations: tuple[Location, ...] = spec(default=(), compare=False, internal=True)


@record
class Annotation(Record):
    """One upstream function (or class) annotated for one lab."""

    json_name: ClassVar[str] = "annotation"
    json_order: ClassVar[tuple[str, ...]] = ("id", "lab", "source", "target", "definition", "summary", "scenario", "steps")
    id: str = spec(pattern=SLUG, max_length=SLUG_CHARS, doc="Unique across all annotation files; lower-case, digits, '.', '_' or '-'.")
    lab: str | None = spec(
        omit="none",
        pattern=SLUG,
        max_length=SLUG_CHARS,
        doc="The lab in labs/ this belongs to, e.g. '02-denoising-step' (optional: a project without labs leaves it out). A page shows the "
        "annotation through a directive, not through this key.",
    )
    """The lab it belongs to (``02-denoising-step``), or None in a project without labs."""
    source: str = spec(pattern="^[A-Za-z0-9][A-Za-z0-9._-]*$", doc="Distribution name, e.g. 'diffusers' or 'diffsynth'.")
    target: str = spec(
        pattern="^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+$",
        doc="Defining module plus qualname, e.g. 'diffusers.schedulers.scheduling_ddim.DDIMScheduler.step'.",
    )
    summary: str = spec(min_length=1, max_length=2000)
    steps: tuple[Step, ...] = spec(min_items=1)
    definition: int | None = spec(
        default=None,
        omit="none",
        minimum=1,
        maximum=PICK_MAX,
        doc="Pick the N-th definition when the qualname is defined several times (overloads, if/else branches).",
    )
    """1-based pick among several definitions of the same qualname."""
    scenario: str | None = spec(default=None, omit="none", doc="Default smoke scenario for every step's expectations.")
    location: Location | None = spec(default=None, compare=False, internal=True)

    @property
    def path(self) -> str:
        return self.location.path if self.location else "<memory>"

    def step_id(self, step: Step) -> str:
        return f"{self.id}/{step.key}"
