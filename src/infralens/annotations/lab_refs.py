"""The ``{infralens-*}`` directives a Markdown page holds, found by reading its text (no Sphinx, no MyST).

``validate`` checks each one against the annotations (a page shows an annotation only through such a
directive: the annotation's ``lab:`` key does not put it on any page). Fences are followed so that a
directive shown as an example inside a code block is not taken for a real one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from infralens.errors import Location

_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(.*?)\s*$")
_DIRECTIVE = re.compile(r"^\{([A-Za-z][\w.:-]*)\}\s*(.*)$")
_OPTION = re.compile(r"^\s*:([\w-]+):\s*(.*?)\s*$")

INFRALENS_DIRECTIVES = ("infralens-function", "infralens-compare", "infralens-concept", "infralens-coverage", "infralens-cost")
"""The directives the InfraLens extensions register (``infralens.sphinx`` and ``infralens.sphinx.coverage``); keep in step with their ``setup()``."""


@dataclass(frozen=True)
class DirectiveOption:
    name: str
    value: str
    location: Location


@dataclass(frozen=True)
class DirectiveUse:
    """One ``{infralens-*}`` directive on a page: its name, argument and options, where they stand."""

    name: str
    argument: str
    options: tuple[DirectiveOption, ...]
    location: Location

    def option(self, name: str) -> DirectiveOption | None:
        return next((o for o in self.options if o.name == name), None)


@dataclass
class _Fence:
    char: str
    length: int
    code: bool
    """A code block (its text is not Markdown) rather than a directive."""


def directive_uses(text: str, shown: str) -> list[DirectiveUse]:
    """Every ``{infralens-*}`` directive of a MyST page, with the page's lines (``shown``: the path messages name)."""
    lines = text.splitlines()
    found: list[DirectiveUse] = []
    stack: list[_Fence] = []
    for index, line in enumerate(lines):
        fence = _FENCE.match(line)
        if fence is None:
            continue
        marker, info = fence.groups()
        char, length = marker[0], len(marker)
        if stack and stack[-1].code:
            if not info and char == stack[-1].char and length >= stack[-1].length:
                stack.pop()
            continue
        if not info:
            closing = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].char == char and length >= stack[i].length), None)
            if closing is not None:
                del stack[closing:]
            else:
                stack.append(_Fence(char, length, code=True))
            continue
        directive = _DIRECTIVE.match(info)
        stack.append(_Fence(char, length, code=directive is None or directive.group(1) in ("code-block", "code", "sourcecode")))
        if directive is not None and directive.group(1).startswith("infralens-"):
            found.append(DirectiveUse(directive.group(1), directive.group(2), _options(lines, index + 1, shown), Location(shown, index + 1, 1)))
    return found


def _options(lines: list[str], start: int, shown: str) -> tuple[DirectiveOption, ...]:
    """The ``:name: value`` lines right after a directive's opening line."""
    options: list[DirectiveOption] = []
    for index in range(start, len(lines)):
        option = _OPTION.match(lines[index])
        if option is None:
            break
        options.append(DirectiveOption(option.group(1), option.group(2), Location(shown, index + 1, 1)))
    return tuple(options)
