"""Generated pages: the annotated-source browser, one page per function, lab pages, comparisons.

They are written as MyST files into ``<srcdir>/<infralens_generated_dir>/`` on
``builder-inited`` by :mod:`.generated`, only when their text changes, so an
incremental build re-reads just what changed. Lab folders are copied from
``labs/`` as :func:`~infralens.annotations.read_lab_folder` read them (regular files
within the size limits, pages as UTF-8), line for line.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.errors import ConfigError

from infralens.annotations import ConceptPair, path_order
from infralens.reports import StepTier
from infralens.sphinx.catalog import AnnotatedFunction, Catalog, Lab
from infralens.sphinx.config import Settings
from infralens.sphinx.generated import output_dir, write_generated
from infralens.sphinx.myst_text import UnsafeText, code, doc_link, fenced, name, text

ORPHAN = "---\norphan: true\n---\n\n"
GLOSSARY = Path(__file__).parent / "templates" / "verified.md"
"""What checked, held, ran, read and unverified mean: written as ``<generated>/verified.md`` for every project."""


def function_docname(settings: Settings, function: AnnotatedFunction) -> str:
    return f"{settings.generated_dir}/source/{function.distribution}/{function.target}"


def compare_docname(settings: Settings, pair: str) -> str:
    return f"{settings.generated_dir}/compare/{pair}"


def glossary_docname(settings: Settings) -> str:
    """The page that says what checked, held, ran, read and unverified mean (every chip links to it)."""
    return f"{settings.generated_dir}/verified"


def lab_docname(settings: Settings, slug: str) -> str:
    return f"{settings.generated_dir}/labs/lab-{slug}/index"


def function_pages(catalog: Catalog) -> dict[str, str]:
    """target → docname of its page."""
    return {t: function_docname(catalog.settings, f) for t, f in catalog.functions.items()}


def generate(catalog: Catalog, srcdir: Path) -> list[Path]:
    """Write every generated page under ``srcdir``; remove stale ones. Returns the files written.

    Refuses (:class:`~sphinx.errors.ConfigError`) a generated dir that could hold the user's own files.
    """
    setting = catalog.settings.generated_dir
    out = output_dir(srcdir, setting)
    try:
        files = {relpath: text.encode("utf-8") for relpath, text in _pages(catalog).items()}
    except UnsafeText as error:  # only a conf.py value can get here: every other name was checked where it was read
        raise ConfigError(f"infralens: {error}; check infralens_generated_dir in conf.py. Nothing was generated.") from None
    files.update(_lab_files(catalog))
    return write_generated(out, files, setting)


def _pages(catalog: Catalog) -> dict[str, str]:
    pages = {  # entry pages are orphans: a project links them from its own toctree, or not at all (builds under -W either way)
        "source/index.md": ORPHAN + _browser_index(catalog),
        "labs/index.md": ORPHAN + _labs_index(catalog),
        "compare/index.md": ORPHAN + _compare_index(catalog),
        "verified.md": GLOSSARY.read_text("utf-8"),
        "history.md": ORPHAN + _history_page(catalog),
    }
    for dist, modules in catalog.by_distribution().items():
        pages[f"source/{dist}/index.md"] = _distribution_page(catalog, dist, modules)
        for functions in modules.values():
            for function in functions:
                pages[f"source/{dist}/{function.target}.md"] = _function_page(catalog, function)
    for pair in catalog.concepts.pairs:
        pages[f"compare/{pair.slug}.md"] = _compare_page(catalog, pair)
    for lab in catalog.labs.values():
        if lab.page is not None and lab.files is not None and STARTER in lab.files.files:
            pages[f"starters/lab-{lab.slug}.md"] = ORPHAN + _starter_page(lab)
    return pages


STARTER = "starter.py"
_PLAIN_NAME = re.compile(r"[A-Za-z0-9._-]+")
"""A lab folder name that can stand in a link's text as it is (others get no starter link)."""
"""The script a lab runs; its page shows the source and the lab page links to it."""


def _starter_page(lab: Lab) -> str:
    """The lab's starter source as a page: a fenced block, fenced longer than any backtick run inside."""
    source = lab.files.files[STARTER].decode("utf-8", errors="replace") if lab.files is not None else ""
    return "\n".join([f"# {code(f'{lab.folder.name}/{STARTER}')}", "", *fenced("python", source.rstrip("\n").split("\n")), ""])


def _starter_link(settings: Settings, lab: Lab) -> bytes:
    """Appended to a lab page that has a starter: a last section linking to the starter's source."""
    target = f"/{settings.generated_dir}/starters/lab-{lab.slug}"
    return f"\n\n## The starter's source\n\n{doc_link(f'{lab.folder.name}/{STARTER}', target)}: the script this lab runs.\n".encode()


def _browser_index(catalog: Catalog) -> str:
    tree = catalog.by_distribution()
    lines = ["# Annotated source", "", "Every upstream function that has notes, by distribution and module. The numbers count the notes on each function.", ""]
    if not tree:
        lines += ["No annotation resolved yet: add YAML files to `annotations/`.", ""]
    if catalog.reports.history is not None:
        lines += ["Which releases the notes hold in: {doc}`../history`.", ""]
    lines += ["| distribution | version | modules | functions | notes |", "| --- | --- | ---: | ---: | ---: |"]
    for dist, modules in tree.items():
        functions = [f for fs in modules.values() for f in fs]
        version = functions[0].source.version
        lines.append(f"| {doc_link(dist, f'{dist}/index')} | {text(version)} | {len(modules)} | {len(functions)} | {sum(f.note_count for f in functions)} |")
    lines += ["", "```{toctree}", ":hidden:", ""] + [name(f"{dist}/index") for dist in tree] + ["```", ""]
    return "\n".join(lines)


def _distribution_page(catalog: Catalog, dist: str, modules: dict[str, list[AnnotatedFunction]]) -> str:
    version = next(iter(modules.values()))[0].source.version
    lines = [f"# {text(dist)} {text(version)}", "", f"Annotated functions of {code(dist)} {text(version)}, by module.", ""]
    for module, functions in modules.items():
        lines += [f"## {code(module)}", "", f"{len(functions)} function(s), {sum(f.note_count for f in functions)} notes.", ""]
        for function in functions:
            labs = ", ".join(_lab_ref(catalog, slug) for slug in function.labs)
            lines.append(
                f"- {doc_link(function.qualname, function.target)} — {function.note_count} notes, "
                f"lines {function.definition.start_line}–{function.definition.end_line}" + (f"; labs: {labs}" if labs else "")
            )
        lines.append("")
    return "\n".join(lines)


def _lab_ref(catalog: Catalog, slug: str) -> str:
    lab = catalog.labs.get(slug)
    if lab is None or lab.page is None:
        return code(slug)
    return doc_link("", "/" + lab_docname(catalog.settings, name(slug)))


def _history_page(catalog: Catalog) -> str:
    history = catalog.reports.history
    if history is None:
        return (
            "# Release compatibility\n\nNo `history.json` in the reports folder yet: "
            "`make history` (or `infralens history --format json --output reports/history.json`) writes it.\n"
        )
    return history.matrix_page(function_pages(catalog), catalog.settings.generated_dir)


def _function_page(catalog: Catalog, function: AnnotatedFunction) -> str:
    # Orphan: reached from the browser and the labs, kept out of the sidebar (there are many).
    history = catalog.reports.history
    section = history.section(function.distribution, sorted({r.annotation.id for r in function.resolved})) if history else ""
    return "\n".join(
        [
            "---",
            "orphan: true",
            "---",
            "",
            f"# {code(function.qualname)}",
            "",
            f"{text(function.distribution)} {text(function.source.version)} · module {code(function.module)}",
            "",
            f"```{{infralens-function}} {name(function.target)}",
            ":canonical:",
            "```",
            "",
            *([section, ""] if section else []),
        ]
    )


def _labs_index(catalog: Catalog) -> str:
    lines = ["# Labs", "", "Each lab explains one concept, then sends you into the real upstream code.", ""]
    with_pages = [lab for lab in catalog.labs.values() if lab.page]
    missing = [lab for lab in catalog.labs.values() if not lab.page]
    if not with_pages:
        lines += ["No lab page is written yet.", ""]
    places = {lab.folder.name: lab.place for lab in with_pages}
    on_path = [catalog.labs[folder.removeprefix("lab-")] for folder in path_order(catalog.tracks, places)] if catalog.tracks.path else []
    off_path = [lab for lab in with_pages if lab not in on_path]
    if on_path:  # the learning path draws every lab on it as a card; the toctree only orders the sidebar and next/previous links
        lines += [
            "Take the tracks in order, and the labs of a track one after the other. Each lab says what it assumes "
            "(the labs to take first, and what it takes for granted) and about how long a first reading takes.",
            "",
            "```{infralens-learning-path}",
            "```",
            "",
        ]
        if off_path:
            lines += ["Not on the learning path yet: " + ", ".join(doc_link(lab.title, f"lab-{lab.slug}/index") for lab in off_path) + ".", ""]
    toctree = ["```{toctree}", ":maxdepth: 1", *([":hidden:"] if on_path else []), ""]
    lines += toctree + [name(f"lab-{lab.slug}/index") for lab in on_path + off_path] + ["```", ""]
    if missing:
        lines += ["Still being written: " + ", ".join(code(lab.slug) for lab in missing) + ".", ""]
    return "\n".join(lines + _lab_tiers(catalog, on_path + off_path))


def _lab_tiers(catalog: Catalog, labs: list[Lab]) -> list[str]:
    """A table: how many of each lab's notes are checked, held, ran, read or unverified (see the glossary)."""
    rows = []
    device = ""
    for lab in labs:
        step_ids = [
            annotated.annotation.step_id(step.step)
            for function in catalog.functions_of_lab(lab.slug)
            for annotated in function.resolved
            if annotated.annotation.lab == lab.slug
            for step in annotated.steps
        ]
        counted = catalog.reports.tier_counts(step_ids)
        if counted is None or not step_ids:
            continue
        device, tiers, failed = counted
        cells = " | ".join(str(tiers[tier]) for tier in StepTier)
        rows.append(f"| {{doc}}`{name(f'lab-{lab.slug}/index')}` | {len(step_ids)} | {cells} | {failed} |")
    if not rows:
        return []
    header = " | ".join(tier.value for tier in StepTier)
    intro = f"How the notes of each lab were verified ({text(device)}; {{doc}}`what the words mean <../verified>`):"
    return [intro, "", f"| lab | notes | {header} | failed |", "| --- | ---: |" + " ---: |" * (len(StepTier) + 1), *rows, ""]


def _pair_lab(catalog: Catalog, pair: ConceptPair) -> str | None:
    """The pair's lab: as given, else the first lab both functions appear in, else the first function's first."""
    if pair.lab:
        return pair.lab
    left, right = (catalog.functions[target] for target in pair.targets)
    shared = [slug for slug in left.labs if slug in right.labs]
    candidates = shared or list(left.labs)
    return candidates[0] if candidates else None


def _compare_index(catalog: Catalog) -> str:
    lines = [
        "# Side by side",
        "",
        (
            f"Ideas that {_both(catalog)} implement, each pair with a note on what is the same, what differs and which to read first."
            if catalog.labs or catalog.concepts.pairs
            else "Functions that implement the same idea in two libraries, side by side, each pair with a note on what is the same and what differs."
        ),
        "",
    ]
    if not catalog.concepts.pairs:
        lines += ["No concept pair is mapped yet: add one to the concept map (`labs/concepts.yaml`).", ""]
    by_lab: dict[str | None, list[ConceptPair]] = {}
    for pair in catalog.concepts.pairs:
        by_lab.setdefault(_pair_lab(catalog, pair), []).append(pair)
    for lab in sorted(by_lab, key=lambda slug: slug or "~"):
        title = catalog.labs[lab].title if lab in catalog.labs else "Other"
        lines += [f"## {text(title)}", ""]
        lines += [f"- {doc_link(pair.title, pair.slug)}" for pair in by_lab[lab]] + [""]
    lines += ["```{toctree}", ":hidden:", ""] + [name(pair.slug) for pair in catalog.concepts.pairs] + ["```", ""]
    return "\n".join(lines)


def _both(catalog: Catalog) -> str:
    """``a and b``: the distributions the concept map pairs (in the project's order), or "two libraries" when it pairs none."""
    named = dict.fromkeys(dist for dist in catalog.settings.distributions for pair in catalog.concepts.pairs if dist in pair.distributions)
    if len(named) < 2:
        return "two libraries both"
    return text(", ".join(list(named)[:-1]) + " and " + list(named)[-1]) + (" both" if len(named) == 2 else "")


def _compare_page(catalog: Catalog, pair: ConceptPair) -> str:
    lab = _pair_lab(catalog, pair)
    left, right = (catalog.functions[target] for target in pair.targets)
    first, second = pair.distributions
    context = f"{code(left.qualname)} in {text(first)} {text(left.source.version)} and {code(right.qualname)} in {text(second)} {text(right.source.version)}."
    if lab is not None:
        context += f" Lab: {_lab_ref(catalog, lab)}."
    return "\n".join([f"# {text(pair.title)}", "", context, "", f"```{{infralens-concept}} {name(pair.slug)}", "```", ""])


def _lab_files(catalog: Catalog) -> dict[str, bytes]:
    """Every lab folder with an index.md, as :func:`~infralens.annotations.read_lab_folder` read it (bounded, decoded, warned about)."""
    files: dict[str, bytes] = {}
    for lab in catalog.labs.values():
        if lab.page is None or lab.files is None:
            continue
        for relative, data in lab.files.files.items():
            with_link = relative == "index.md" and STARTER in lab.files.files and _PLAIN_NAME.fullmatch(lab.folder.name)
            files[f"labs/{lab.folder.name}/{relative}"] = data.rstrip(b"\n") + _starter_link(catalog.settings, lab) if with_link else data
    return files
