"""A project about ``toylib`` 1.2.0, a distribution made on the spot (a folder with its ``dist-info``), with one
scenario and one annotation: for the tests of a project that names its own libraries and of the CI formats."""

from __future__ import annotations

import textwrap
from pathlib import Path

CORE = '''
def double(x):
    """Twice x."""
    y = x * 2
    return y


def unused(x):
    return x
'''

SCENARIO = '''
def run(device: str) -> None:
    """Double a number with toylib."""
    import toylib.core

    assert toylib.core.double(3) == 6
'''

ANNOTATION = """\
id: toy-double
source: toylib
target: toylib.core.double
summary: Doubles a value.
scenario: toy
steps:
  - at: "y = x * 2"
    key: twice
    note: Twice the input.
    expect: ["y == 2 * x"]
"""

LIBRARIES = """
distributions = ["toylib"]

[tool.infralens.upstream]
toylib = "https://example.org/toylib/blob/v{version}/{path}#L{line}"
"""


def write_toy(root: Path, libraries: str = LIBRARIES, *, annotated: bool = True) -> None:
    package = root / "site" / "toylib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text(textwrap.dedent(CORE).lstrip())
    info = root / "site" / "toylib-1.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toylib\nVersion: 1.2.0\n")
    (info / "RECORD").write_text("toylib/__init__.py,,\ntoylib/core.py,,\n")
    (root / "scenarios").mkdir()
    (root / "scenarios" / "toy.py").write_text(textwrap.dedent(SCENARIO).lstrip())
    (root / "annotations" / "toylib").mkdir(parents=True)
    if annotated:
        (root / "annotations" / "toylib" / "double.yaml").write_text(ANNOTATION)
    (root / "pyproject.toml").write_text("[project]\nname = 'toy-course'\n\n[tool.infralens]\n" + libraries)
