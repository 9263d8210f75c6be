"""The concept map: which functions of two distributions implement the same idea, and how they differ.

One YAML file (``labs/concepts.yaml`` by default) holds a list of pairs. Each pair names one
annotated function in each of two of the project's distributions (``[tool.infralens] distributions``;
the keys are the distribution names) and carries prose written for that pair: what the two share,
where they differ, and which to read first. Comparison pages and "Same concept elsewhere" links come
only from this file, so no two functions are paired because of where they happen to sort.

A pair looks like::

    - pair: ddim-step
      title: One DDIM step
      lab: 02-denoising-step
      diffusers: diffusers.schedulers.scheduling_ddim.DDIMScheduler.step
      diffsynth: diffsynth.diffusion.ddim_scheduler.DDIMScheduler.step
      same: |
        A paragraph: what the two compute alike.
      differs: |
        A paragraph: where they part ways.
      read-first: A sentence or two: which to open first, and why.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infralens.annotations.code_quotes import hidden_character_diagnostics, value_diagnostics
from infralens.annotations.positions import PositionedDocument, YamlProblem, load_positioned
from infralens.cachedir import NotRegularFile, read_regular
from infralens.errors import Diagnostic, Location

CONCEPTS_FILE = "concepts.yaml"
"""The map's file name inside the labs folder."""

PROSE = ("pair", "title", "same", "differs", "read-first")
"""The keys every pair has besides its two distributions."""
OPTIONAL = ("lab",)
MAX_BYTES = 1_000_000
"""The largest concept map read (the project's is about 41 kB)."""
MIN_PARAGRAPH_WORDS = 25
"""``same`` and ``differs`` are paragraphs, not labels: fewer words than this is an error."""
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
ONE_LINE = re.compile(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]{1,200}")
"""A title: one line of at most 200 characters, no control, line-break, zero-width or bidirectional character."""
DOTTED = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+$")


@dataclass(frozen=True)
class ConceptPair:
    """Two functions, one per distribution, that implement the same idea, with the prose that relates them."""

    slug: str
    title: str
    sides: tuple[tuple[str, str], tuple[str, str]]
    """``(distribution, target)`` twice, in the order of the project's distributions."""
    same: str
    differs: str
    read_first: str
    lab: str | None
    location: Location

    @property
    def targets(self) -> tuple[str, str]:
        return (self.sides[0][1], self.sides[1][1])

    @property
    def distributions(self) -> tuple[str, str]:
        return (self.sides[0][0], self.sides[1][0])

    def other(self, target: str) -> str | None:
        """The partner of *target* in this pair, or None when *target* is not in it."""
        first, second = self.targets
        if target == first:
            return second
        if target == second:
            return first
        return None


@dataclass(frozen=True)
class ConceptMap:
    """Every well-formed pair of the file, in file order, and what was wrong with the others."""

    pairs: tuple[ConceptPair, ...]
    diagnostics: tuple[Diagnostic, ...]
    path: str | None = None

    def partners(self, target: str) -> list[tuple[ConceptPair, str]]:
        """``(pair, partner target)`` for each pair that contains *target*."""
        found = []
        for pair in self.pairs:
            other = pair.other(target)
            if other is not None:
                found.append((pair, other))
        return found


EMPTY = ConceptMap((), ())


def load_concepts(path: Path, display_path: str | None, distributions: tuple[str, ...]) -> ConceptMap:
    """Read the map at *path*; a missing file is an empty map, every problem a diagnostic at its line.
    Each pair names a function in two of *distributions* (the project's), under their names as keys.

    The one reader of the concept map: a regular file of at most :data:`MAX_BYTES` (a FIFO, device or folder
    is refused at once, never waited on), UTF-8 (a stray byte is reported at its line), then YAML through
    :func:`~infralens.annotations.positions.load_positioned` with its alias, size and depth limits.
    """
    shown = display_path or str(path)
    if not os.path.lexists(path):
        return ConceptMap((), (), shown)
    try:
        data = read_regular(path, MAX_BYTES)
    except NotRegularFile as error:
        return ConceptMap((), (_unreadable(shown, f"the concept map {error.strerror}", "make it a YAML file"),), shown)
    except OSError as error:
        return ConceptMap((), (_unreadable(shown, f"cannot read the concept map ({error.strerror or error})", "check the file"),), shown)
    if len(data) > MAX_BYTES:
        return ConceptMap((), (_unreadable(shown, f"the concept map is larger than {MAX_BYTES:,} bytes", "split the prose or remove pairs"),), shown)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        col = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        return ConceptMap(
            (),
            (Diagnostic(Location(shown, line, col), f"byte 0x{data[error.start]:02x} is not UTF-8", "save the concept map as UTF-8", code="concepts"),),
            shown,
        )
    try:
        document = load_positioned(text, shown)
    except YamlProblem as problem:
        return ConceptMap((), (problem.diagnostic,), shown)
    return _pairs_of(document, shown, distributions)


def _unreadable(shown: str, message: str, hint: str) -> Diagnostic:
    return Diagnostic(Location(shown), f"{message}; no concept pair is read", hint, code="concepts")


def _pairs_of(document: PositionedDocument, shown: str, distributions: tuple[str, ...]) -> ConceptMap:
    if document.value is None:
        return ConceptMap((), (), shown)
    if not isinstance(document.value, list):
        return ConceptMap((), (_problem(document, (), "the concept map must be a list of pairs", "start each pair with '- pair: <slug>'"),), shown)
    pairs: list[ConceptPair] = []
    diagnostics: list[Diagnostic] = []
    seen: dict[str, Location] = {}
    for index, entry in enumerate(document.value):
        pair, problems = _pair(document, index, entry, distributions)
        diagnostics.extend(problems)
        if pair is None:
            continue
        if pair.slug in seen:
            diagnostics.append(_problem(document, (index, "pair"), f"pair {pair.slug!r} is defined twice (first at line {seen[pair.slug].line})", "rename one"))
            continue
        seen[pair.slug] = pair.location
        pairs.append(pair)
    return ConceptMap(tuple(pairs), tuple(diagnostics), shown)


def _pair(document: PositionedDocument, index: int, entry: object, distributions: tuple[str, ...]) -> tuple[ConceptPair | None, list[Diagnostic]]:
    required = PROSE[:2] + (distributions if len(distributions) == 2 else ()) + PROSE[2:]
    if not isinstance(entry, dict):
        return None, [_problem(document, (index,), "each entry of the concept map must be a mapping", f"give it the keys {', '.join(required)}")]
    allowed = f"allowed: {', '.join(PROSE + OPTIONAL)} and two of the project's distributions ({', '.join(distributions)})"
    problems = [_problem(document, (index, key), f"unknown key {key!r}", allowed) for key in entry if key not in PROSE + OPTIONAL + distributions]
    missing = [key for key in required if not isinstance(entry.get(key), str) or not entry[key].strip()]
    if missing:
        problems.append(
            _problem(document, (index,), f"pair is missing {', '.join(missing)} (each a non-empty string)", "see the format at the top of this module")
        )
        return None, problems
    sides = [key for key in distributions if key in entry]
    if len(sides) != 2:
        named = ", ".join(sides) or "none"
        problems.append(_problem(document, (index,), f"pair names {named}; a pair names two of {', '.join(distributions)}", "give one function in each of two"))
        return None, problems
    slug = entry["pair"].strip()
    lab = entry.get("lab")
    problems.extend(_value_problems(document, index, entry, sides))
    if problems:
        return None, problems
    pair = ConceptPair(
        slug=slug,
        title=entry["title"].strip(),
        sides=((sides[0], entry[sides[0]].strip()), (sides[1], entry[sides[1]].strip())),
        same=entry["same"].strip(),
        differs=entry["differs"].strip(),
        read_first=entry["read-first"].strip(),
        lab=lab.strip() if isinstance(lab, str) else None,
        location=document.where((index,)),
    )
    return pair, []


def _value_problems(document: PositionedDocument, index: int, entry: dict[Any, Any], sides: list[str]) -> list[Diagnostic]:
    """What is wrong with the values of a pair that has every required key: slug, targets, paragraphs, title, lab."""
    problems: list[Diagnostic] = []
    slug = entry["pair"].strip()
    if not SLUG.match(slug):
        problems.append(_problem(document, (index, "pair"), f"pair name {slug!r} is not a slug", "use lower-case words joined by '-'"))
    for key in sides:
        value = entry[key]
        if not isinstance(value, str) or not DOTTED.match(value.strip()):
            problems.append(
                _problem(
                    document,
                    (index, key),
                    f"{key}: {value!r} is not a dotted path (module.qualname)",
                    f"write the full target, e.g. {_package(key)}.module.Class.method",
                )
            )
    for key in ("same", "differs"):
        words = len(entry[key].split())
        if words < MIN_PARAGRAPH_WORDS:
            problems.append(
                _problem(
                    document, (index, key), f"{key}: {words} words is a label, not a paragraph", f"write at least {MIN_PARAGRAPH_WORDS} words for this pair"
                )
            )
    for key in ("title", "same", "differs", "read-first"):
        problems.extend(value_diagnostics(entry[key], document, (index, key)))
        problems.extend(hidden_character_diagnostics(entry[key], document, (index, key)))
    if not ONE_LINE.fullmatch(entry["title"].strip()):
        problems.append(
            _problem(document, (index, "title"), "title must be one line of text (no line break or control character)", "write the title on a single line")
        )
    lab = entry.get("lab")
    if lab is not None and not isinstance(lab, str):
        problems.append(_problem(document, (index, "lab"), "lab must be a lab slug such as 02-denoising-step", "quote it"))
    return problems


def _package(distribution: str) -> str:
    """The import name a distribution's targets usually start with (``DiffSynth-Studio`` → ``diffsynth_studio``)."""
    return re.sub(r"[-.]+", "_", distribution).lower()


def _problem(document: PositionedDocument, path: tuple[str | int, ...], message: str, hint: str) -> Diagnostic:
    return Diagnostic(document.where(path), message, hint, code="concepts")
