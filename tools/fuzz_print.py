"""The ``printed-field`` fuzz target (issue 38): the one escape of every printed field, in each output format.

Any text (workflow commands, line breaks of every kind, terminal escapes, C1 and bidirectional characters,
lone surrogates, percent signs) goes through :mod:`infralens.errors`' escapes for terminal text, JSON and
GitHub workflow commands, and through a real renderer (``infralens cost``'s tables, with the text as a model
id and a note). Each output must be valid UTF-8 with no control character, and no line of it, split as
GitHub's runner splits lines, may be a workflow command (``::`` after leading blanks, ``##[`` anywhere).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from hypothesis import strategies as st

from infralens.errors import FORMAT_CHARACTERS, github_data, github_property, json_text, printable, printable_line

_PIECES = st.sampled_from(
    [
        "::",
        "::error file=x,line=1::pwned",
        "##[",
        "##[error]",
        "##vso[",
        "##VSO[task.complete]",
        "#",
        "[",
        ":",
        ",",
        "%",
        "%0A",
        "%25",
        "\\",
        "\\x1b",
        "\n",
        "\r",
        "\r\n",
        "\x0b",
        "\x0c",
        "\x85",
        "\u2028",
        "\u2029",
        " ",
        "\t",
        "\xa0",
        "\u3000",
        "\x1b[2J",
        "\x1b]0;title\x07",
        "\x9b31m",
        "\x7f",
        "\x00",
        "\u202e",
        "\u2066",
        "\u200b",
        "\ufeff",
        "\udcff",
        "\ud800",
        "é",
        "名",
    ]
)
PRINTED_TEXT = st.lists(st.one_of(_PIECES, st.integers(0, 0x10FFFF).map(chr), st.text(max_size=8)), max_size=14).map("".join)
"""Any text, weighted toward what a log or a terminal reads as a command."""

_UNSEEN = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{FORMAT_CHARACTERS.pattern[1:-1]}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_REPO = Path(__file__).resolve().parents[1]


def _assert_inert(output: str, *, ours: re.Pattern[str] | None = None) -> None:
    output.encode("utf-8")  # raises on a lone surrogate: the output would not be UTF-8
    assert not _UNSEEN.search(output), ascii(output)
    for line in re.split(r"\r\n|\r|\n", output):
        assert "##[" not in line and "##vso[" not in line.lower(), ascii(line)
        assert not line.lstrip().startswith("::") or (ours is not None and ours.fullmatch(line)), ascii(line)


def _unescape_data(data: str) -> str:
    return re.sub("%(25|0D|0A)", lambda found: {"25": "%", "0D": "\r", "0A": "\n"}[found.group(1)], data)


@lru_cache(maxsize=1)
def _cost_report():
    from infralens.reports import load_cost_report

    return load_cost_report(_REPO / "reports" / "cost.json")


def check_printed_field(text: str) -> None:
    """Terminal text, JSON and a GitHub command made from *text*: valid UTF-8, no control character, inert in a log."""
    line = printable_line(text)
    _assert_inert(line)
    assert "\n" not in line and printable_line(line) == line  # one line; escaping twice changes nothing
    block = printable(text)
    _assert_inert(block)
    assert block.count("\n") == text.count("\n") and printable(block) == block
    document = json_text(json.dumps({"field": text, text: [text]}, ensure_ascii=False))
    _assert_inert(document)
    marked = _SURROGATE.sub(lambda found: ascii(found.group())[1:-1], text)
    assert json.loads(document.encode("utf-8").decode("utf-8")) == {"field": marked, marked: [marked]}
    command = f"::warning file={github_property(text)},line=1,title={github_property(text)}::{github_data(text)}"
    _assert_inert(command, ours=re.compile(r"::warning file=[^:,]*,line=1,title=[^:,]*::.*"))
    assert _unescape_data(command.split("::", 2)[2]) == block  # what the annotation shows is the inert text
    from infralens.cost.text import render_text

    report = _cost_report()
    _assert_inert(render_text(replace(report, models=(replace(report.models[0], id=text), *report.models[1:]), notes=(text,))))
