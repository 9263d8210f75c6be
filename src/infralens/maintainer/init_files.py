"""The text of each file ``infralens init`` writes (:mod:`.init` decides where, and whether it may).

Every value put into a file comes from :class:`Layout`, whose fields :mod:`.init` checked first: distribution
names are PEP 508 names, theme names dotted identifiers, URL templates printable text. Values reach TOML through
:func:`toml_string` and YAML through :func:`yaml_string`, so a quote or a backslash in a template stays text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

UPSTREAM_PLACEHOLDERS = ("version", "public_version", "relpath", "start", "end")
"""What an upstream URL template may name (the Sphinx extension's ``infralens_upstream_urls`` fills them in)."""

KNOWN_UPSTREAM = {
    "diffusers": "https://github.com/huggingface/diffusers/blob/v{version}/src/{relpath}#L{start}-L{end}",
    "transformers": "https://github.com/huggingface/transformers/blob/v{version}/src/{relpath}#L{start}-L{end}",
}
"""Templates known to point at the exact lines (both repositories keep the package under ``src/`` and tag ``v<version>``).
Any other distribution gets one only with ``--upstream NAME=TEMPLATE``."""


@dataclass(frozen=True)
class Distribution:
    """One distribution the new project annotates."""

    name: str
    version: str
    """The installed release: the CI recipe and the pre-commit hooks install exactly this one."""
    packages: tuple[str, ...]
    """Its top-level import names (``scikit-learn`` → ``sklearn``)."""
    upstream: str | None = None


@dataclass(frozen=True)
class Layout:
    """What the new project is: its title, its distributions, its Sphinx theme."""

    title: str
    distributions: tuple[Distribution, ...] = ()
    theme: str = "alabaster"
    infralens_version: str = "0.1.0"


def toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's for every character :mod:`.init` lets through."""
    return json.dumps(text, ensure_ascii=False)


def toml_key(name: str) -> str:
    """A bare TOML key where the name allows one (``transformers``), else a quoted one (``"zope.interface"``)."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else toml_string(name)


def yaml_string(text: str) -> str:
    """A double-quoted YAML scalar (YAML's double-quoted style is a superset of JSON's strings)."""
    return json.dumps(text, ensure_ascii=False)


def pyproject(layout: Layout) -> str:
    names = ", ".join(toml_string(d.name) for d in layout.distributions)
    lines = [
        "# InfraLens reads [tool.infralens]; every key is optional.",
        "[tool.infralens]",
        "# The installed distributions whose source this project annotates.",
        f"distributions = [{names}]" if names else '# distributions = ["transformers"]  (init --distribution NAME writes it)',
        '# Where the files live (these are the defaults): annotations = "annotations", scenarios = "scenarios",',
        '# lock = "annotations/annotations.lock".',
    ]
    linked = [d for d in layout.distributions if d.upstream]
    unlinked = [d for d in layout.distributions if not d.upstream]
    if linked or unlinked:
        lines += ["", "# Links to the exact lines at the release tag: {version}, {public_version}, {relpath}, {start}, {end}."]
    if linked:
        lines.append("[tool.infralens.upstream]")
        lines += [f"{toml_key(d.name)} = {toml_string(d.upstream or '')}" for d in linked]
    lines += [f'# {toml_key(d.name)} = "https://github.com/OWNER/REPO/blob/v{{version}}/{{relpath}}#L{{start}}-L{{end}}"' for d in unlinked]
    return "\n".join(lines) + "\n"


def annotations_readme(layout: Layout) -> str:
    example = _example_target(layout)
    return f"""# Annotations

One YAML file per annotated function, in a folder named after its distribution. Start one with

    infralens add {example}

then write its summary and every TODO note (MyST Markdown), and run

    infralens validate      # schema, resolution, no TODO left
    infralens lock          # record what each note was written against
    infralens check         # after an upgrade: which notes drifted

Each step names one statement by its text (`at:`), never by its line number. A step is verified when a scenario
(`../scenarios/`) runs it; mark it `static: <why>` when no scenario does.
"""


def _example_target(layout: Layout) -> str:
    if layout.distributions and layout.distributions[0].packages:
        return f"{layout.distributions[0].packages[0]}.MODULE.FUNCTION"
    return "PACKAGE.MODULE.FUNCTION"


def example_scenario(layout: Layout) -> str:
    packages = [p for d in layout.distributions for p in d.packages[:1]]
    imports = ", ".join(json.dumps(p) for p in packages) + ("," if len(packages) == 1 else "")
    version, unknown = json.dumps("__version__"), json.dumps("unknown")
    body = (
        "".join(f"    import {p}\n\n    ctx.fact({json.dumps(p + ' version')}, getattr({p}, {version}, {unknown}))\n" for p in packages)
        if packages
        else '    ctx.fact("device", ctx.device)\n'
    )
    return f'''"""An example scenario: replace it with tiny runs of the functions your notes annotate.

``infralens verify`` runs every scenario of this folder while a tracer watches the
annotated statements: a step whose statement runs is verified, and its ``expect:``
claims are checked in the live frame. A scenario builds tiny inputs (random weights,
a few tokens), calls the real upstream code on ``ctx.device`` and checks with
``ctx.check`` the facts that make the run meaningful. ``IMPORTS`` are imported before
the scenario is timed.

Name it in an annotation with ``scenario: example``. ``infralens verify --list`` lists
this folder's scenarios; ``infralens coverage example`` shows what one reaches.
"""

from __future__ import annotations

from infralens.scenarios import scenario
from infralens.verify import ScenarioContext

IMPORTS = ({imports})


@scenario("example", "Imports the annotated packages and records their versions.")
def example(ctx: ScenarioContext) -> None:
{body}    ctx.check(ctx.device in ("cpu", "cuda", "mps"), f"unexpected device {{ctx.device!r}}")
'''


def sphinx_conf(layout: Layout) -> str:
    return f'''"""Sphinx configuration. Build: python -m sphinx -W -b html docs docs/_build/html"""

project = {json.dumps(layout.title)}
extensions = ["infralens.sphinx"]  # also loads myst_parser: pages are Markdown
infralens_project_root = ".."  # the folder holding annotations/ and scenarios/
exclude_patterns = ["_build"]
# Any installed theme: alabaster, furo, sphinx_rtd_theme, pydata_sphinx_theme, ...
html_theme = {json.dumps(layout.theme)}
'''


def docs_index(layout: Layout) -> str:
    names = ", ".join(f"`{d.name}` {d.version}" for d in layout.distributions) or "installed Python packages"
    return f"""# {_markdown_text(layout.title)}

Notes on the real source of {names}, line by line. Each note points at one statement of the installed
release; `infralens check` tells when an upgrade changed a statement under a note.

```{{toctree}}
:maxdepth: 2

_infralens/source/index
_infralens/verified
```
"""


def _markdown_text(text: str) -> str:
    """Text for a Markdown heading: characters Markdown would read as markup are escaped."""
    return "".join(f"\\{c}" if c in "\\`*_{}[]<>()#+-.!|~$" else c for c in text)


def gitignore(_layout: Layout) -> str:
    return "docs/_build/\ndocs/_infralens/\n.infralens-cache/\nreports/verify-against/\n.infralens-write.journal\n"


def _requirements(layout: Layout) -> list[str]:
    return [f"{d.name}=={d.version}" for d in layout.distributions]


def pre_commit(_layout: Layout) -> str:
    return """# pre-commit install: the same checks as CI, run from the environment that has infralens and the
# annotated distributions installed (the hooks read their source; nothing is imported).
repos:
  - repo: local
    hooks:
      - id: infralens-validate
        name: infralens validate
        entry: infralens validate
        language: system
        files: ^annotations/.*\\.ya?ml$
        pass_filenames: true
        require_serial: true
      - id: infralens-check
        name: infralens check
        entry: infralens check
        language: system
        files: ^annotations/
        pass_filenames: false
        require_serial: true
"""


def ci_workflow(layout: Layout) -> str:
    pins = " ".join(yaml_string(r) for r in _requirements(layout))
    return f"""# Validate the annotations, check them against the pinned releases, and build the site with -W.
# Bump a pin, run 'infralens check' (and 'infralens fix'), then 'infralens lock --update' to follow a release.
name: infralens
on: [push, pull_request]
jobs:
  notes:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - uses: actions/cache@v4
        with:
          path: ~/.cache/infralens
          key: infralens-${{{{ hashFiles('annotations/**', '.github/workflows/infralens.yml') }}}}
          restore-keys: infralens-
      # infralens {layout.infralens_version}: install it from wherever you get it (an index, a wheel, a git URL).
      - run: python -m pip install "infralens[site]=={layout.infralens_version}" {pins}
      - run: infralens validate
      - run: infralens check
      - run: python -m sphinx -W --keep-going -b html docs docs/_build/html
"""
