"""Lab prose says only what the layout does: comparisons sit side by side from 1440 px and stack below it."""

from __future__ import annotations

import re
from pathlib import Path

LABS = Path(__file__).resolve().parents[2] / "labs"
PROMISES = re.compile(r"side by side|\((?:right|left)\)", re.IGNORECASE)
"""Words that promise a place on the screen the narrow layout does not keep."""


def test_no_lab_page_promises_a_side_by_side_layout_the_screen_may_not_show() -> None:
    found = [
        f"{page.relative_to(LABS)}:{number}: {line.strip()}"
        for page in sorted(LABS.glob("lab-*/index.md"))
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1)
        if PROMISES.search(line)
    ]
    assert found == []
