"""Content this repository ships is required, never optional: a browser test whose page or data is missing fails.

The labs, the concept map's pairs, the coverage maps and ``reports/history.json`` are committed files, so a site
built from this checkout always has their pages. A page that is missing means the build lost it (or a file moved
and the test was not updated); skipping would hide exactly that, so the test fails and names what is missing.
Only the browser itself being absent (no chromium, no playwright) is a reason to skip; see ``conftest.py``.
"""

from __future__ import annotations

from typing import NoReturn

import pytest


def missing_shipped(what: str) -> NoReturn:
    """Fail the test: ``what`` ships with this repository but the built site (or committed report) lacks it."""
    pytest.fail(f"{what}: it ships with this repository, so its absence is a broken build or a stale test, not a reason to skip", pytrace=False)
