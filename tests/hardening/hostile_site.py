"""One small site built from every attack of issue 27 items 1–5: the hardening tests and the browser test read it.

The Sphinx extension's test root (``tests/sphinx/roots/test-basic``) plus:

- lab pages whose front matter turns on MyST's ``substitution`` extension, in several YAML spellings,
  each with a ``{{ … }}`` that would run a shell command (writing a canary file) — also in a trusted
  lab and in a docs page of the project;
- formulas whose ``\\text``/``\\mbox`` arguments hold HTML (``<img onerror>``, ``<iframe srcdoc>``,
  ``<meta http-equiv=refresh>``), in a note, a summary, concept prose and lab text;
- a concept pair whose one-line title is markup (raw HTML, a ``{raw}`` role, a code span breaker);
- ``reports/history.json`` whose strings (generator, release names, ``where``, message, diff lines)
  are markup, fence breakers and ``{raw}`` directives;
- a lab folder that is a symbolic link to a folder outside the project, and a lab file that is one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from infralens.reports import AnnotationHistory, Difference, HistoryReport, ReleaseSpan, ReleaseState, StepHistory, dumps_report

ROOT = Path(__file__).resolve().parents[1] / "sphinx" / "roots" / "test-basic"
SECRET = "OUTSIDE-THE-PROJECT-5c1d"
MARKER = "PWNED-MARKER-93b2"
"""Text every payload tries to publish as live markup; it may appear only as escaped text."""


def canary_command(canary: Path) -> str:
    return f"{{{{ cycler.__init__.__globals__.os.system('touch {canary}') }}}}"


def front_matters(canary: Path) -> dict[str, str]:
    """Front matters that turn on substitutions, each spelled differently (all read by MyST's own reader)."""
    run = canary_command(canary)
    return {
        "block": f"---\nmyst:\n  enable_extensions: [substitution]\n---\n# Block\n\n{run}\n",
        "flow": f"---\n{{myst: {{enable_extensions: [dollarmath, substitution]}}, orphan: true}}\n---\n# Flow\n\n{run}\n",
        "anchor": f"---\nbase: &ext\n  enable_extensions: [substitution]\nmyst: *ext\n...\n# Anchor\n\n{run}\n",
        "top-level": f'---\nsubstitutions:\n  evil: "{run}"\norphan: true\n---\n# Top level\n\n{{{{ evil }}}}\n',
        "dashes-suffix": f"---yaml\nmyst: {{enable_extensions: [substitution]}}\n--- end\n# Dashes\n\n{run}\n",
        "crlf": f"---\r\nmyst:\r\n  enable_extensions: [substitution]\r\n---\r\n# CRLF\r\n\r\n{run}\r\n",
        "schemes": "---\nmyst: {url_schemes: [javascript, http, https]}\n---\n# Schemes\n\n[x](javascript:alert('scheme'))\n",
    }


MATH_PAYLOADS = (
    r"\text{<img src=x onerror=alert('math-text')>}",
    r"\mbox{<iframe srcdoc='&lt;script&gt;alert(1)&lt;/script&gt;'></iframe>}",
    r"\textrm{<meta http-equiv=refresh content='0;url=https://evil.example'>}",
    r"\hbox{<a href=javascript:alert('hbox')>x</a>}",
    r"\fbox{<svg onload=alert('fbox')>}",
    r"\href{javascript:alert('href')}{x}",
    r"\color{red\" onmouseover=\"alert('color')}{x}",
)

HOSTILE_TITLE = "Pair <img src=x onerror=alert('title')> and {raw}`html <b>PWNED-MARKER-93b2</b>` and [t](javascript:alert('title-link'))"

HOSTILE_STRINGS = {
    "generated_by": "<script>alert('gen')</script> {raw}`html <i>PWNED-MARKER-93b2</i>`",
    "release": "0.1.0<img src=x onerror=alert('release')>",
    "where": "demo.py:4 ` {raw}`html <b>PWNED-MARKER-93b2</b>` `",
    "message": "moved\n\n```{raw} html\n<script>alert('message')</script>\n```\n",
    "diff": ("--- reviewed", "```", "```{raw} html", "<script>alert('diff')</script><b>PWNED-MARKER-93b2</b>", "```"),
}


MULTI_LINE_TITLE = "Two lines\n\n```{raw} html\n<script>alert('title')</script>\n```\n"


def concepts_yaml(title: str, lab_slug: str = "01-toy") -> str:
    """Two pairs: one whose one-line ``title`` is markup (escaped on the page), one whose title spans lines (refused)."""
    prose = " ".join(["word"] * 30) + " $" + MATH_PAYLOADS[0].replace("'", "''") + "$"
    body = (
        f"  lab: {lab_slug}\n  diffusers: diffusers.ops.double\n  diffsynth: diffsynth.ops.twice\n"
        f"  same: '{prose}'\n  differs: '{prose}'\n  read-first: '{prose}'\n"
    )
    multi = MULTI_LINE_TITLE.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f"- pair: hostile-pair\n  title: '{title.replace(chr(39), chr(39) * 2)}'\n{body}- pair: multi-line\n  title: \"{multi}\"\n{body}"


def _package(root: Path, name: str, body: str, target: str, statement: str) -> None:
    (root / "src" / name / name).mkdir(parents=True)
    (root / "src" / name / name / "__init__.py").write_text("")
    (root / "src" / name / name / "ops.py").write_text(body)
    info = root / "src" / name / f"{name}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    folder = root / "annotations" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "op.yaml").write_text(
        f"id: {name}-op\nlab: 01-toy\nsource: {name}\ntarget: {target}\nsummary: Doubles a value.\n"
        f'steps:\n  - at: "{statement}"\n    key: op\n    note: Twice the input.\n    static: a test fixture\n'
    )


def history_report(middle_release: str = "0.1.0") -> HistoryReport:
    """The hostile ``history.json``; its releases are valid versions, since the report loader refuses any other
    (``HOSTILE_STRINGS["release"]`` as a release makes the whole report a ``ReportError``, see the site test)."""
    releases = ("0.0.9", middle_release, "1.2.3")
    states = (ReleaseState.CHANGED, ReleaseState.UNCHANGED, ReleaseState.UNCHANGED)
    difference = Difference(
        releases=(releases[0],), state=ReleaseState.CHANGED, where=HOSTILE_STRINGS["where"], message=HOSTILE_STRINGS["message"], diff=HOSTILE_STRINGS["diff"]
    )
    step = StepHistory(id="toy-blend/signal", line=7, states=states, holds_from=releases[1], holds_to="1.2.3", before=releases[0], differences=(difference,))
    annotation = AnnotationHistory(
        id="toy-blend", distribution="toypkg", target="toypkg.mixing.blend", path="annotations/toypkg/blend.yaml", states=states, steps=(step,)
    )
    span = ReleaseSpan(distribution="toypkg", baseline="1.2.3", releases=releases, missing=("9.9<script>alert('missing')</script>",))
    return HistoryReport(generated_by=HOSTILE_STRINGS["generated_by"], lock_sha256="0" * 64, spans=(span,), annotations=(annotation,))


def make_hostile_root(tmp_path: Path) -> tuple[Path, Path]:
    """Write the hostile project under ``tmp_path``; returns ``(root, canary)`` (the canary must never exist)."""
    root = tmp_path / "site"
    shutil.copytree(ROOT, root)
    canary = tmp_path / "CANARY-substitution-ran"
    labs = root / "labs"
    lab = labs / "lab-01-toy"
    math_text = " ".join(f"${payload}$" for payload in MATH_PAYLOADS)
    (lab / "index.md").write_text(
        front_matters(canary)["block"].replace("# Block", "# Lab 01: Toy blending")
        + f"\nMath: {math_text}\n\n```{{infralens-function}} toypkg.mixing.blend\n```\n",
        "utf-8",
    )
    for name, text in front_matters(canary).items():
        (lab / f"fm-{name}.md").write_bytes(text.encode("utf-8"))
    trusted = labs / "lab-02-trusted"
    trusted.mkdir()
    (trusted / "index.md").write_text(front_matters(canary)["flow"].replace("# Flow", "# Lab 02: Trusted"), "utf-8")
    (root / "plain.md").write_text(front_matters(canary)["anchor"].replace("# Anchor", "# Plain page"), "utf-8")
    (root / "included.txt").write_text(front_matters(canary)["block"], "utf-8")  # parsed as MyST by an rst include
    (root / "rst-include.rst").write_text(":orphan:\n\nIncluded\n========\n\n.. include:: included.txt\n   :parser: myst_parser.sphinx_\n", "utf-8")
    outside = tmp_path / "outside"
    (outside / "lab-99-elsewhere").mkdir(parents=True)
    (outside / "secret.md").write_text(f"# Secret\n\n{SECRET}\n", "utf-8")
    (outside / "lab-99-elsewhere" / "index.md").write_text(f"# Lab 99: Elsewhere\n\n{SECRET}\n", "utf-8")
    (labs / "lab-99-elsewhere").symlink_to(outside / "lab-99-elsewhere", target_is_directory=True)
    (lab / "linked.md").symlink_to(outside / "secret.md")
    (labs / "concepts.yaml").write_text(concepts_yaml(HOSTILE_TITLE), "utf-8")
    _package(root, "diffusers", "def double(x):\n    y = x * 2\n    return y\n", "diffusers.ops.double", "y = x * 2")
    _package(root, "diffsynth", "def twice(x):\n    return x * 2\n", "diffsynth.ops.twice", "return x * 2")
    blend = root / "annotations" / "toypkg" / "blend.yaml"
    text = blend.read_text("utf-8")
    text = text.replace("      The sum.\n", "      The sum, and $" + MATH_PAYLOADS[2].replace("'", "''") + "$.\n")
    blend.write_text(text, "utf-8")
    (root / "annotations" / "toypkg" / "second.yaml").write_text(
        "id: toy-unused\nlab: 01-toy\nsource: toypkg\ntarget: toypkg.mixing.unused\n"
        "summary: 'Summary $\\mbox{<img src=x onerror=alert(''summary'')>}$'\n"
        "steps:\n  - at: {contains: 'return'}\n    key: ret\n    note: 'Returns.'\n",
        "utf-8",
    )
    (root / "reports").mkdir(exist_ok=True)
    (root / "reports" / "history.json").write_text(dumps_report(history_report()), "utf-8")
    with (root / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(
            '\ninfralens_trusted_labs = ["02-trusted"]\ninfralens_sources = {"toypkg": "src", "diffusers": "src/diffusers", "diffsynth": "src/diffsynth"}\n'
        )
    return root, canary
