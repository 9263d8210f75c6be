"""What an annotation file says: selectors, steps and annotations, as loaded from YAML.

Produced by :mod:`infralens.annotations.load`; read by every later stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from infralens.errors import Location
from infralens.hashing import sha256_text

# --------------------------------------------------------------------------
# Selectors: how a step points at statements. Never a line number.
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ExactSelector:
    """The whole statement, compared after normalisation."""

    text: str
    nth: int | None = None
    location: Location | None = field(default=None, compare=False)

    def describe(self) -> str:
        suffix = f" (nth={self.nth})" if self.nth is not None else ""
        return f"{self.text!r}{suffix}"


@dataclass(frozen=True)
class ContainsSelector:
    """A statement whose normalised text contains ``text``; ``nth`` picks one of several."""

    text: str
    nth: int | None = None
    location: Location | None = field(default=None, compare=False)

    def describe(self) -> str:
        suffix = f", nth={self.nth}" if self.nth is not None else ""
        return f"contains {self.text!r}{suffix}"


SingleSelector = ExactSelector | ContainsSelector


@dataclass(frozen=True)
class BlockSelector:
    """A run of statements from one selected statement to another (inclusive)."""

    start: SingleSelector
    end: SingleSelector
    location: Location | None = field(default=None, compare=False)

    def describe(self) -> str:
        return f"from {self.start.describe()} to {self.end.describe()}"


Selector = ExactSelector | ContainsSelector | BlockSelector


def selector_key(selector: Selector) -> str:
    """A stable short fingerprint of a selector, used to name steps."""
    return sha256_text(selector.describe())[:8]


# --------------------------------------------------------------------------
# Annotations as written by maintainers.
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One selected statement (or block) and the note that sits beside it."""

    at: Selector
    note: str
    key: str
    """Stable name of the step inside its annotation (explicit ``key:`` or a selector hash)."""
    expect: tuple[str, ...] = ()
    scenario: str | None = None
    static: str | None = None
    """If set, the step is static-only (never traced) and this is the reason."""
    unchecked: str | None = None
    """If set, the step is traced but deliberately has no expect; this says why no strong check is possible."""
    review: str | None = None
    """If set, a human must re-read the note: ``infralens fix`` re-anchored or flagged the step, and says why."""
    location: Location | None = field(default=None, compare=False)
    expect_locations: tuple[Location, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Annotation:
    """One upstream function (or class) annotated for one lab."""

    id: str
    lab: str | None
    """The lab it belongs to (``02-denoising-step``), or None in a project without labs."""
    source: str
    target: str
    summary: str
    steps: tuple[Step, ...]
    definition: int | None = None
    """1-based pick among several definitions of the same qualname."""
    scenario: str | None = None
    location: Location | None = field(default=None, compare=False)

    @property
    def path(self) -> str:
        return self.location.path if self.location else "<memory>"

    def step_id(self, step: Step) -> str:
        return f"{self.id}/{step.key}"
