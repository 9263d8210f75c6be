"""The learning path: its tracks (``labs/tracks.yaml``) and each lab's place on it (``labs/lab-*/lab.yaml``).

Both are content: the library knows no track and no lab. The tracks file lists the tracks in the order a
learner takes them::

    tracks:
      - name: Fundamentals
        about: One paragraph: what the track covers.

and each lab folder holds a ``lab.yaml``::

    track: Fundamentals                      # one of the tracks' names
    summary: One line: what the learner does in this lab.
    minutes: 45                              # about how long a first reading takes
    after: [1, 2]                            # labs to take first, by number ([] for none)
    know: what it assumes from outside the labs

Every field is required. Each problem is a :class:`~infralens.errors.Diagnostic` at its file and line (code
``lab``); nothing here raises for a malformed file. :func:`check_path` then checks what needs every lab at once:
a lab with no ``lab.yaml``, a track nobody declared, a lab named in ``after`` that does not exist or comes later.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from infralens.annotations.code_quotes import hidden_character_diagnostics
from infralens.annotations.positions import PositionedDocument, YamlProblem, load_positioned
from infralens.cachedir import NotRegularFile, read_regular
from infralens.errors import Diagnostic, Location, Severity

TRACKS_FILE = "tracks.yaml"
"""The tracks' file name inside the labs folder; without it there is no learning path."""
LAB_FILE = "lab.yaml"
"""A lab's place on the path, inside its folder."""
MAX_BYTES = 100_000
LAB_FIELDS = ("track", "summary", "minutes", "after", "know")
TRACK_FIELDS = ("name", "about")
MAX_MINUTES = 600
ONE_LINE = re.compile(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029]{1,240}")
"""A name, summary or ``know``: one line of at most 240 characters."""
LAB_NUMBER = re.compile(r"^lab-(\d+)(?:-|$)")


@dataclass(frozen=True)
class Track:
    name: str
    about: str
    location: Location


@dataclass(frozen=True)
class LabPlace:
    """What ``lab.yaml`` says: the lab's track, one-line summary, minutes, labs to take first (numbers) and what it assumes."""

    track: str
    summary: str
    minutes: int
    after: tuple[int, ...]
    know: str
    location: Location
    after_locations: tuple[Location, ...] = ()


@dataclass(frozen=True)
class Tracks:
    tracks: tuple[Track, ...]
    diagnostics: tuple[Diagnostic, ...]
    path: str | None = None
    """The file shown in problems; ``None`` when there is no tracks file (no learning path)."""


def lab_number(folder_name: str) -> int | None:
    """The number of ``lab-07-pipeline-components`` (7), or ``None`` for a folder without one."""
    match = LAB_NUMBER.match(folder_name)
    return int(match.group(1)) if match else None


def _problem(where: Location, message: str, hint: str) -> Diagnostic:
    return Diagnostic(where, message, hint, Severity.ERROR, code="lab")


def _read(path: Path, shown: str, what: str) -> tuple[PositionedDocument | None, list[Diagnostic]]:
    try:
        data = read_regular(path, MAX_BYTES)
    except NotRegularFile as error:
        return None, [_problem(Location(shown), f"{what} {error.strerror}", "make it a YAML file")]
    except OSError as error:
        return None, [_problem(Location(shown), f"cannot read {what} ({error.strerror or error})", "check the file")]
    return parse(data, shown, what)


def parse(data: bytes, shown: str, what: str) -> tuple[PositionedDocument | None, list[Diagnostic]]:
    """``data`` as a positioned YAML document, or the problem that stops it being read."""
    if len(data) > MAX_BYTES:
        return None, [_problem(Location(shown), f"{what} is larger than {MAX_BYTES:,} bytes", "keep it short")]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return None, [_problem(Location(shown, line), f"byte 0x{data[error.start]:02x} is not UTF-8", f"save {what} as UTF-8")]
    try:
        return load_positioned(text, shown, kind=what), []
    except YamlProblem as problem:
        return None, [_problem(problem.diagnostic.location, problem.diagnostic.message, problem.diagnostic.hint)]


def load_tracks(path: Path, shown: str | None = None) -> Tracks:
    """The tracks of ``path`` in their order; a missing file is no learning path at all (and no problem)."""
    shown = shown or str(path)
    if not os.path.lexists(path):
        return Tracks((), ())
    document, problems = _read(path, shown, "the tracks file")
    if document is None:
        return Tracks((), tuple(problems), shown)
    value = document.value
    entries = value.get("tracks") if isinstance(value, dict) else None
    if not isinstance(entries, list) or not entries:
        hint = "write 'tracks:' with a list of entries, each with a name and an about"
        return Tracks((), (_problem(document.where(("tracks",)), "the tracks file must hold a non-empty list 'tracks'", hint),), shown)
    extra = [key for key in value if key != "tracks"]
    problems += [_problem(document.where((key, "__key__")), f"unknown key {key!r}", "the tracks file holds only 'tracks'") for key in extra]
    tracks: list[Track] = []
    for index, entry in enumerate(entries):
        at = ("tracks", index)
        if not isinstance(entry, dict):
            problems.append(_problem(document.where(at), "each track must be a mapping with a name and an about", "write '- name: …' then 'about: …'"))
            continue
        found = _fields(document, at, entry, TRACK_FIELDS)
        problems += found
        if found:
            continue
        if any(track.name == entry["name"].strip() for track in tracks):
            problems.append(_problem(document.where(at + ("name",)), f"track {entry['name'].strip()!r} is named twice", "give each track its own name"))
            continue
        tracks.append(Track(entry["name"].strip(), " ".join(entry["about"].split()), document.where(at)))
    return Tracks(tuple(tracks), tuple(problems), shown)


def read_lab_place(data: bytes, shown: str) -> tuple[LabPlace | None, list[Diagnostic]]:
    """A lab's ``lab.yaml`` (its bytes, as the lab folder reader read them): its place, or the problems at their lines."""
    document, problems = parse(data, shown, "the lab's lab.yaml")
    if document is None:
        return None, problems
    value = document.value
    if not isinstance(value, dict):
        return None, [_problem(document.where(()), "lab.yaml must be a mapping", f"give it the keys {', '.join(LAB_FIELDS)}")]
    problems = _fields(document, (), value, LAB_FIELDS)
    minutes = value.get("minutes")
    if "minutes" in value and (isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= MAX_MINUTES):
        problems.append(_problem(document.where(("minutes",)), f"minutes must be a whole number from 1 to {MAX_MINUTES}", "write e.g. 'minutes: 45'"))
    after = value.get("after")
    if "after" in value and (not isinstance(after, list) or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in after)):
        problems.append(_problem(document.where(("after",)), "after must be a list of lab numbers", "write e.g. 'after: [2, 3]', or 'after: []'"))
    if problems:
        return None, problems
    place = LabPlace(
        track=value["track"].strip(),
        summary=value["summary"].strip(),
        minutes=value["minutes"],
        after=tuple(value["after"]),
        know=value["know"].strip(),
        location=document.where(()),
        after_locations=tuple(document.where(("after", index)) for index in range(len(value["after"]))),
    )
    return place, []


def _fields(document: PositionedDocument, at: tuple[str | int, ...], entry: dict, fields: tuple[str, ...]) -> list[Diagnostic]:
    """Unknown keys, missing fields, and text fields that are not one line of visible text."""
    problems = [_problem(document.where(at + (key, "__key__")), f"unknown key {key!r}", f"allowed: {', '.join(fields)}") for key in entry if key not in fields]
    missing = [key for key in fields if key not in entry]
    if missing:
        problems.append(_problem(document.where(at), f"missing {', '.join(missing)}", f"every entry needs {', '.join(fields)}"))
    for key in ("name", "summary", "know", "track", "about"):
        if key not in fields or key not in entry:
            continue
        text = entry[key]
        if not isinstance(text, str) or not text.strip():
            problems.append(_problem(document.where(at + (key,)), f"{key} must be non-empty text", "quote it if YAML reads it as something else"))
        elif key != "about" and not ONE_LINE.fullmatch(text.strip()):
            problems.append(_problem(document.where(at + (key,)), f"{key} must be one line of at most 240 characters", "shorten it"))
        else:
            problems += [_problem(d.location, d.message, d.hint) for d in hidden_character_diagnostics(text, document, at + (key,))]
    return problems


def check_path(tracks: Tracks, places: Mapping[str, LabPlace | None], folders: Mapping[str, str]) -> list[Diagnostic]:
    """What needs every lab: each lab has a place, on a declared track, after labs that exist and come earlier.

    ``places``: lab folder name → its place (``None``: no ``lab.yaml``, or one that could not be read);
    ``folders``: lab folder name → the path shown for that folder.
    """
    if tracks.path is None:  # no tracks file: a lab.yaml alone is a mistake worth naming
        return [
            _problem(place.location, "this lab has a lab.yaml, but the labs folder has no tracks.yaml", "add labs/tracks.yaml listing the tracks")
            for place in places.values()
            if place is not None
        ]
    names = [track.name for track in tracks.tracks]
    problems = []
    for folder, place in places.items():
        if place is None:
            problems.append(_problem(Location(folders[folder]), f"lab {folder} has no usable {LAB_FILE}", f"add {LAB_FILE} with {', '.join(LAB_FIELDS)}"))
        elif place.track not in names:
            problems.append(_problem(place.location, f"track {place.track!r} is not in {TRACKS_FILE}", f"use one of: {', '.join(names)}"))
    order = {folder: position for position, folder in enumerate(path_order(tracks, places))}
    by_number = {lab_number(folder): folder for folder in places}
    for folder, place in places.items():
        if place is None or folder not in order:
            continue
        for number, where in zip(place.after, place.after_locations, strict=True):
            earlier = by_number.get(number)
            if earlier is None:
                problems.append(_problem(where, f"after: there is no lab {number:02d}", "name the number of an existing lab folder"))
            elif earlier == folder or order.get(earlier, len(order)) >= order[folder]:
                problems.append(_problem(where, f"after: lab {number:02d} comes later on the path than {folder}", "name only labs that come before it"))
    return problems


def path_order(tracks: Tracks, places: Mapping[str, LabPlace | None]) -> list[str]:
    """Lab folder names in path order: track by track as the tracks file lists them, folder order within a track."""
    position = {track.name: index for index, track in enumerate(tracks.tracks)}
    placed = [folder for folder, place in places.items() if place is not None and place.track in position]
    return sorted(placed, key=lambda folder: (position[places[folder].track], folder))  # type: ignore[union-attr]
