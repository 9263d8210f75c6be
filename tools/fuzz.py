"""Property-based fuzzing of every reader of untrusted text (needs ``hypothesis``).

    python tools/fuzz.py --cases 10000 [--seed 0] [--only indexer]

Targets: annotation files (YAML + schema + loader, single files and whole
projects), the statement normaliser and selectors, the libcst indexer and the
index cache, the lock reader, and (``fuzz_site``) what reaches the site and the
logs: page-level MyST configuration, math, strings in generated MyST, report strings; and (``fuzz_print``) every
printed field in text, JSON and GitHub formats. The property for all of them: every input
gives a result or an error naming ``path:line`` — never a traceback, a hang
(each case has a time limit) or a partial write. Prints the number of cases
run per target and exits 1 if any property failed.

The same targets run as a small fixed-seed slice in ``tests/hardening/test_fuzz.py``.
"""

from __future__ import annotations

import argparse
import ast
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    from hypothesis import HealthCheck, given, seed, settings, strategies as st
except ImportError as missing:  # a development tool: hypothesis comes with the 'test' extra
    raise SystemExit("python tools/fuzz.py needs hypothesis: pip install -e '.[test]'") from missing

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_catalog  # beside this file: a cost catalog is data
import fuzz_print  # beside this file: every printed field, in every output format
import fuzz_site  # beside this file: what reaches the site and the logs

from infralens.annotations.load import load_file
from infralens.annotations.models import BlockSelector, ContainsSelector, ExactSelector
from infralens.bounds import cli_whole
from infralens.errors import InfralensError, LockfileError, ResolutionError
from infralens.project import find_project, load_annotations
from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache
from infralens.source.distributions import decode_source
from infralens.source.index import index_source
from infralens.source.normal_form import normalize

CASE_SECONDS = 20
"""A case running longer than this counts as a hang."""
DIAGNOSTIC = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (error|warning): .+ — .+$", re.S)


class Hang(Exception):
    """A case ran past :data:`CASE_SECONDS`."""


@contextmanager
def time_limit(seconds: int):
    def expire(signum, frame):
        raise Hang(f"case ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _line_count(data: bytes | str) -> int:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return len(re.split(r"\r\n|\r|\n", text))


def check_diagnostic(diagnostic, path: str, lines: int) -> None:
    """A diagnostic names the file, a line inside it, says what is wrong and what to do."""
    assert DIAGNOSTIC.match(str(diagnostic)), str(diagnostic)
    assert diagnostic.location.path == path, (diagnostic.location.path, path)
    assert 1 <= diagnostic.location.line <= lines + 1, (diagnostic.location.line, lines, str(diagnostic))
    assert diagnostic.location.col >= 1 and diagnostic.message and diagnostic.hint


# --------------------------------------------------------------------------
# Annotation files
# --------------------------------------------------------------------------

_SLUGS = st.from_regex(r"\A[a-z0-9][a-z0-9._-]{0,12}\Z")
_ODD_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["", " ", "TODO", "null", "~", "yes", "0x1F", "1e400", "'", '"', ":", "- a", "{a: b}", "&a", "*a", "!!python/name:os.system", "\u202e", "\ud800x"]
    ),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=20).map(lambda s: s * 5000),  # huge
)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), _ODD_TEXT)
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
_SELECTORS = st.one_of(
    st.text(min_size=1, max_size=60),
    st.fixed_dictionaries({"text": st.text(max_size=30)}, optional={"nth": st.one_of(st.integers(-2, 5), _SCALARS)}),
    st.fixed_dictionaries({"contains": st.text(max_size=30)}, optional={"nth": st.integers(-2, 5)}),
    st.fixed_dictionaries({"from": st.text(max_size=20), "to": st.one_of(st.text(max_size=20), st.fixed_dictionaries({"contains": st.text(max_size=10)}))}),
    _VALUES,
)
_STEPS = st.fixed_dictionaries(
    {"at": _SELECTORS, "note": st.one_of(st.text(max_size=80), _ODD_TEXT)},
    optional={
        "expect": st.lists(st.one_of(st.sampled_from(["x == 1", "x ==", "x = 1", "(", "a\x00b", "lambda: 0"]), st.text(max_size=20)), max_size=3),
        "key": _SLUGS,
        "static": st.text(max_size=10),
        "scenario": _ODD_TEXT,
        "bogus": _VALUES,
    },
)
_ANNOTATIONS = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(_SLUGS, _ODD_TEXT),
        "lab": st.one_of(st.just("01-lab"), _SLUGS),
        "source": st.one_of(st.just("fakedist"), st.sampled_from(["../x", "/etc", "a b", "fake-dist"])),
        "target": st.one_of(st.sampled_from(["fakedist.mod.f", "fakedist.mod.C.m", "fakedist..x", "../../etc.passwd", "/abs.path"]), _ODD_TEXT),
        "summary": _ODD_TEXT,
        "definition": st.one_of(st.integers(-1, 3), _SCALARS),
        "scenario": _ODD_TEXT,
        "steps": st.one_of(st.lists(_STEPS, max_size=4), _VALUES),
        "extra": _VALUES,
    },
)


def _alias_bomb(depth: int, width: int) -> str:
    lines = ["a0: &a0 [" + ",".join(["x"] * width) + "]"]
    lines += [f"a{n}: &a{n} [" + ",".join([f"*a{n - 1}"] * width) + "]" for n in range(1, depth)]
    return "\n".join(lines) + "\n"


_HOSTILE_YAML = st.one_of(
    st.builds(_alias_bomb, st.integers(1, 12), st.integers(1, 12)),
    st.integers(1, 5000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 5000).map(lambda n: "{a: " * n + "1" + "}" * n),
    st.integers(1, 300).map(lambda n: "".join(f"{' ' * (2 * i)}k{i}:\n" for i in range(n))),
    st.sampled_from(
        [
            "id: a\nid: b\n",
            "!!python/object/apply:os.system ['touch /tmp/infralens-pwned']\n",
            "a: !!python/name:os.system\n",
            "<<: *missing\n",
            "? [a, b]\n: c\n",
            "\ufeffid: a\n",
            "id: a\x00\n",
            "%YAML 1.1\n---\nid: a\n---\nid: b\n",
            "id: 'unterminated\n",
            "\t- a\n",
            "- &a [*a]\n",
            "id: !!binary aGVsbG8=\n",
            "id: 2001-12-14t21:59:43.10-05:00\n",
        ]
    ),
    st.text(max_size=200),
)


_WELL_FORMED = "id: a\nlab: 01-lab\nsource: fakedist\ntarget: fakedist.mod.f\nsummary: {summary}\nsteps:\n  - at: {{text: x = 1, nth: {nth}}}\n    note: n\n"
_HOSTILE_NUMBERS = ["1", "1.0", "2.5", "true", "1e3", "-0", "0x10", ".inf", "100001", "9" * 400, "9" * 5000]
_HOSTILE_SUMMARIES = ["s", "a\u2028b", '"a\u2029b"', "a\x85b", "a\x1b[2Jb", '"a\x07b"', '"a\\u2028b"', "\u202eevil"]
# Round 2 of the hardening issue: numbers that are not small whole numbers, and invisible characters
# that used to shift line numbers or reach the terminal.
_HOSTILE_FIELDS = st.builds(
    lambda summary, nth: _WELL_FORMED.format(summary=summary, nth=nth), st.sampled_from(_HOSTILE_SUMMARIES), st.sampled_from(_HOSTILE_NUMBERS)
)


def _dump(value) -> str:
    import yaml

    try:
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        return yaml.dump(value, Dumper=dumper, allow_unicode=True, sort_keys=False)
    except (yaml.YAMLError, UnicodeEncodeError, RecursionError):
        return "id: [unrepresentable\n"


ANNOTATION_BYTES = st.one_of(
    _ANNOTATIONS.map(_dump).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.lists(_ANNOTATIONS, min_size=0, max_size=3).map(_dump).map(lambda s: s.encode("utf-8", "surrogatepass")),
    _HOSTILE_YAML.map(lambda s: s.encode("utf-8", "surrogatepass")),
    _HOSTILE_FIELDS.map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.binary(max_size=300),
    st.builds(lambda head, junk: head + junk, st.sampled_from([b"id: a\n", b"\xef\xbb\xbf", b""]), st.binary(min_size=1, max_size=20)),
)


def check_annotation_file(data: bytes) -> None:
    """Loading any bytes gives annotations and/or diagnostics at path:line; nothing is skipped silently."""
    with tempfile.TemporaryDirectory(prefix="infralens-fuzz-") as folder:
        path = Path(folder) / "fuzz.yaml"
        path.write_bytes(data)
        before = sorted(p.name for p in Path(folder).iterdir())
        result = load_file(path, display_path="fuzz.yaml")
        assert sorted(p.name for p in Path(folder).iterdir()) == before, "the loader wrote a file"
        assert path.read_bytes() == data, "the loader changed its input"
    for diagnostic in result.diagnostics:
        check_diagnostic(diagnostic, "fuzz.yaml", _line_count(data))
    assert result.annotations or any(d.severity.value == "error" for d in result.diagnostics), "nothing loaded and nothing reported"
    for annotation in result.annotations:
        assert annotation.steps and all(isinstance(s.note, str) and s.note for s in annotation.steps)
        assert annotation.location is not None and annotation.location.path == "fuzz.yaml"


PROJECT_FILES = st.lists(
    st.one_of(
        _ANNOTATIONS.map(_dump),
        st.sampled_from(
            [
                "id: same\n",
                _dump(
                    {"id": "same", "lab": "01-lab", "source": "fakedist", "target": "fakedist.mod.f", "summary": "s", "steps": [{"at": "x = 1", "note": "n"}]}
                ),
            ]
        ),
    ),
    min_size=1,
    max_size=4,
)


def check_project(files: list[str]) -> None:
    """A whole project: duplicate ids across files and resolution problems are diagnostics too."""
    with tempfile.TemporaryDirectory(prefix="infralens-fuzz-") as folder:
        root = Path(folder)
        (root / "annotations" / "fakedist").mkdir(parents=True)
        (root / "labs" / "lab-01-lab").mkdir(parents=True)
        (root / "site" / "fakedist").mkdir(parents=True)
        (root / "site" / "fakedist" / "__init__.py").write_text("")
        (root / "site" / "fakedist" / "mod.py").write_text("def f():\n    x = 1\n    return x\n\n\nclass C:\n    def m(self):\n        x = 1\n")
        for n, text in enumerate(files):
            (root / "annotations" / "fakedist" / f"f{n}.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
        project = find_project(root)
        loaded = load_annotations(project)
        from infralens.source.distributions import DirectoryTree

        resolver = Resolver({"fakedist": DirectoryTree(root / "site", "fakedist", "1.0")}, cache=IndexCache(persistent=False), tree_factory=_no_other_trees)
        diagnostics = list(loaded.diagnostics)
        for annotation in loaded.annotations:
            diagnostics.extend(resolver.resolve_annotation(annotation)[1])
        ids = [a.id for a in loaded.annotations]
        if len(ids) != len(set(ids)):
            assert any("is already used at" in d.message for d in diagnostics)
    for diagnostic in diagnostics:
        assert DIAGNOSTIC.match(str(diagnostic)), str(diagnostic)
        assert re.match(r"^annotations/fakedist/f\d\.yaml$", diagnostic.location.path), diagnostic.location.path


def _no_other_trees(distribution: str):
    from infralens.errors import SourceNotFoundError

    raise SourceNotFoundError(f"distribution {distribution!r} is not installed")


# --------------------------------------------------------------------------
# Python source: the indexer, the cache, the normaliser and selectors
# --------------------------------------------------------------------------

_SIMPLE = [
    "x = 1",
    "y = (1,\n  2,\n)",
    "z = [\n]",
    "a = 1; b = 2",
    "c = a \\\n    + b",
    "s = '''multi\nline'''",
    "f(  a ,b,)",
    "# a comment",
    "x: int = 3",
    "del x",
    "pass",
    "assert x, 'm'",
    "print(f'{x!r:>{w}}')",
    "v = lambda q: q",
    "w = {k: v for k, v in d.items()}",
    "return x",
    "yield x",
    "raise ValueError('x')",
    "global g",
    "import os.path as p",
    "from . import m",
    "x += 1",
    "t = x if y else z",
    "u = not x",
    "r = await g()",
    "n = 0x_1F",
    "e = ...",
    "b = b'\\xff'",
    "i = -1",
    "x = y = z",
    "(a, b), c = d",
]
_HEADERS = [
    "if x:",
    "elif y:",
    "else:",
    "for i in range(3):",
    "while x:",
    "with open(p) as h:",
    "try:",
    "except ValueError as e:",
    "finally:",
    "async for a in b:",
    "async with c:",
    "match v:",
    "case 1:",
]
_DECORATORS = ["@property", "@value.setter", "@functools.lru_cache(maxsize=None)", "@deco", "@overload", "@staticmethod", "@a.b.c(\n    1,\n)"]


@st.composite
def python_sources(draw) -> bytes:
    """Python-like modules: real structure with odd layout, then maybe broken on purpose."""
    unit = draw(st.sampled_from(["    ", "  ", "\t", " "]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    lines: list[str] = []

    def block(depth: int) -> None:
        for _ in range(draw(st.integers(1, 3))):
            choice = draw(st.sampled_from(["simple", "simple", "def", "class", "header"] if depth < 4 else ["simple"]))
            pad = unit * depth
            if choice == "simple":
                lines.extend(pad + part for part in draw(st.sampled_from(_SIMPLE)).split("\n"))
            elif choice in ("def", "class"):
                for decorator in draw(st.lists(st.sampled_from(_DECORATORS), max_size=2)):
                    lines.extend(pad + part for part in decorator.split("\n"))
                name = draw(st.sampled_from(["f", "g", "C", "value", "step"]))
                prefix = draw(st.sampled_from(["def", "async def"])) if choice == "def" else "class"
                signature = "(self, a,\n" + pad + unit + "b=1)" if choice == "def" and draw(st.booleans()) else ("()" if choice == "def" else "")
                lines.extend((pad + f"{prefix} {name}{signature}:").split("\n"))
                block(depth + 1)
            else:
                lines.append(pad + draw(st.sampled_from(_HEADERS)))
                block(depth + 1)
            if draw(st.integers(0, 9)) == 0:
                lines.append(draw(st.sampled_from(["", "   ", "\f", "# trailing comment  "])))

    block(0)
    text = newline.join(lines) + draw(st.sampled_from([newline, "", newline * 2]))
    mutation = draw(st.sampled_from(["none", "none", "delete", "insert", "truncate"]))
    if mutation != "none" and text:
        at = draw(st.integers(0, len(text) - 1))
        if mutation == "delete":
            text = text[:at] + text[at + 1 :]
        elif mutation == "insert":
            text = text[:at] + draw(st.sampled_from(["(", ")", ":", "'", '"""', "\\", "\t", " ", "\x00", "é", "\u2028"])) + text[at:]
        else:
            text = text[:at]
    data = text.encode("utf-8", "surrogatepass")
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "bom", "latin-1", "junk", "bad-coding"]))
    if encoding == "bom":
        data = b"\xef\xbb\xbf" + data
    elif encoding == "latin-1":
        data = b"# -*- coding: latin-1 -*-\n" + text.encode("latin-1", "replace")
    elif encoding == "junk":
        data = data + b"\xff\xfe\x80"
    elif encoding == "bad-coding":
        data = b"# coding: no-such-codec\n" + data
    return data


PYTHON_SOURCES = st.one_of(python_sources(), st.binary(max_size=200), st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")))


def check_python_source(data: bytes) -> None:
    """Decode + index any bytes: a text or a clear error, then an index whose lines agree with ``ast``."""
    try:
        text = decode_source(data, "fakedist/mod.py")
    except InfralensError as error:
        assert str(error).startswith("fakedist/mod.py: "), str(error)
        return
    index = index_source(text)
    lines = _line_count(text)
    for statement in index.statements:
        assert 1 <= statement.start_line <= statement.header_end_line <= statement.end_line <= lines, statement
    for definition in index.definitions:
        assert 1 <= definition.start_line <= definition.def_line <= definition.end_line <= lines, definition
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if tree is not None:
        assert index.syntax_error is None, f"libcst refused what CPython accepts: {index.syntax_error}"
        expected = sorted(
            (min([node.lineno] + [d.lineno for d in node.decorator_list]), node.lineno, node.end_lineno)
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        )
        assert sorted((d.start_line, d.def_line, d.end_line) for d in index.definitions) == expected
    check_cache_round_trip(index)
    check_selectors(index)


def check_cache_round_trip(index) -> None:
    """What the cache writes, it reads back identically, and leaves no temporary file behind."""
    with tempfile.TemporaryDirectory(prefix="infralens-fuzz-") as folder:
        IndexCache(Path(folder)).put(index)
        assert IndexCache(Path(folder)).get(index.sha256) == index
        assert not [p for p in Path(folder).rglob("*") if p.name.startswith(".tmp-")], "temporary file left behind"


def check_selectors(index) -> None:
    """Every statement of a definition can be selected by its own text (plus nth), and blocks keep order."""
    resolver = Resolver({}, cache=IndexCache(persistent=False))
    for definition in index.definitions[:3]:
        pool = index.statements_within(definition.start_line, definition.end_line)
        for statement in pool[:6]:
            assert normalize(statement.text) == statement.text, f"normalisation is not idempotent: {statement.text!r}"
            try:
                (found,) = resolver.resolve_selector(index, definition, ExactSelector(statement.text))
            except ResolutionError as error:  # the text repeats: nth picks this very statement
                assert "matches" in str(error) and "statements" in str(error) and len(error.candidates) >= 2, str(error)
                nth = next(n for n, s in enumerate(pool_matches(pool, statement), 1) if s is statement)
                (found,) = resolver.resolve_selector(index, definition, ExactSelector(statement.text, nth))
            assert (found.start_line, found.text) == (statement.start_line, statement.text)
        if len(pool) >= 2:
            first, last = pool[0], pool[-1]
            try:
                block = resolver.resolve_selector(
                    index, definition, BlockSelector(ExactSelector(first.text, 1), ExactSelector(last.text, len(pool_matches(pool, last))))
                )
                assert block and list(block) == sorted(block, key=lambda s: (s.start_line, -s.end_line))
            except ResolutionError as error:
                assert str(error)


def pool_matches(pool, statement):
    from infralens.source.normal_form import strip_header_colon

    return [s for s in pool if strip_header_colon(s.text) == strip_header_colon(statement.text)]


SNIPPETS = st.one_of(st.text(max_size=80), st.sampled_from(_SIMPLE + _HEADERS + _DECORATORS), st.binary(max_size=40).map(lambda b: b.decode("latin-1")))


def check_normalize_and_contains(snippet: str) -> None:
    """Any selector text normalises without error, and a contains-selector either matches or says why."""
    normalised = normalize(snippet)
    assert isinstance(normalised, str)
    index = index_source("def f(a):\n    x = f(a, 1)\n    y = [x,\n         2]\n    return x\n")
    definition = index.definitions[0]
    resolver = Resolver({}, cache=IndexCache(persistent=False))
    for selector in (ContainsSelector(snippet), ExactSelector(snippet), ContainsSelector(snippet, 2)):
        try:
            found = resolver.resolve_selector(index, definition, selector)
            assert found and all(definition.start_line <= s.start_line <= definition.end_line for s in found)
        except ResolutionError as error:
            assert str(error)


# --------------------------------------------------------------------------
# The lock reader (drift helper's lock.py)
# --------------------------------------------------------------------------


def _lock_text(draw_entries: list, comments: list[str]) -> str:
    from infralens import drift as lock

    parts = [lock.PREAMBLE, "\n"]
    for n, entry in enumerate(draw_entries):
        chosen = tuple(f"# {c}" for c in comments[n : n + 1])
        parts.append(lock.render_entry(entry, chosen))
    return "".join(parts)


_WORDS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)


@st.composite
def lock_entries(draw) -> list:
    from infralens.drift import AnnotationLock, StepLock

    entries = []
    for n in range(draw(st.integers(0, 3))):
        ann = f"ann-{n}"
        step_ids = [f"{ann}/{k}" for k in range(draw(st.integers(0, 2)))]
        entries.append(
            AnnotationLock(
                ann,
                f"annotations/d/{ann}.yaml",
                draw(st.integers(0, 999)),
                "0" * 64,
                "d",
                draw(_WORDS),
                "d/m.py",
                "d.m",
                "C.f",
                "function",
                (draw(st.integers(0, 9)), draw(st.integers(0, 9))),
                "1" * 64,
                tuple(draw(st.lists(st.from_regex(r"\A[0-9a-f]{8}\Z"), max_size=3))),
                "2" * 64,
                tuple(step_ids),
            )
        )
        for step_id in step_ids:
            texts = tuple(draw(st.lists(_WORDS.filter(bool), min_size=1, max_size=2)))
            entries.append(
                StepLock(
                    step_id,
                    ann,
                    draw(st.integers(0, 999)),
                    "d",
                    "1.0",
                    "d/m.py",
                    "d.m",
                    "C.f",
                    "C.f",
                    (1, 2),
                    texts,
                    "3" * 64,
                    tuple(draw(st.lists(_WORDS, max_size=2))),
                    tuple(draw(st.lists(_WORDS, max_size=2))),
                    "4" * 64,
                    "5" * 64,
                    draw(st.integers(1, 3)),
                    draw(st.integers(1, 4)),
                )
            )
    return entries


@st.composite
def lock_files(draw) -> tuple[bytes, str]:
    """(bytes, what): a rendered lock, maybe mutated line by line or byte by byte.

    ``what``: ``pristine`` (as rendered), ``comment`` (a comment line added: still sealed), ``value``
    (one integer value changed by hand: its entry must be reported hand-edited) or ``damaged``.
    """
    entries = draw(lock_entries())
    comments = draw(st.lists(st.text(alphabet="abc #é", max_size=10), max_size=3))
    text = _lock_text(entries, comments)
    lines = text.split("\n")
    operation = draw(st.sampled_from(["none", "none", "comment", "value", "delete", "duplicate", "insert", "deep-json", "bytes", "crlf"]))
    if operation == "none":
        return text.encode("utf-8"), "pristine"
    at = draw(st.integers(0, max(0, len(lines) - 1)))
    if operation == "comment":
        lines.insert(at, "# " + draw(st.text(alphabet='abc =[]"é', max_size=12)))
        return "\n".join(lines).encode("utf-8"), "comment"
    numbers = [i for i, line in enumerate(lines) if re.match(r"^(yaml-line|occurrence) = \d+$", line)]
    if operation == "value" and numbers:
        i = draw(st.sampled_from(numbers))
        key, value = lines[i].split(" = ")
        lines[i] = f"{key} = {int(value) + draw(st.integers(1, 1000))}"
        return "\n".join(lines).encode("utf-8"), "value"
    if operation == "delete":
        del lines[at]
    elif operation == "duplicate":
        lines.insert(at, lines[at])
    elif operation == "insert":
        lines.insert(
            at,
            draw(
                st.one_of(
                    st.text(max_size=30),
                    st.sampled_from(
                        ["[step x/y]", "[annotation a]", "text = [1", "lines = [1, true]", "infralens-lock 2", "lines = 99999999999999999999999999"]
                    ),
                )
            ),
        )
    elif operation == "deep-json":
        lines.insert(at, "text = " + "[" * draw(st.integers(500, 100_000)))
    elif operation == "crlf":
        return "\r\n".join(lines).encode("utf-8"), "damaged"
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if operation == "bytes":
        where = draw(st.integers(0, len(data)))
        data = data[:where] + draw(st.binary(min_size=1, max_size=8)) + data[where:]
    return data, "damaged"


def check_lock_file(case: tuple[bytes, str]) -> None:
    """Any lock bytes: a parsed lock or ``LockfileError('path:line: ... — hint')``; a pristine one round-trips.

    Seals: a pristine or comment-edited lock has no hand-edited entry; a hand-changed value is reported.
    """
    from infralens import drift as lock

    data, what = case
    pristine = what == "pristine"
    with tempfile.TemporaryDirectory(prefix="infralens-fuzz-") as folder:
        path = Path(folder) / "annotations.lock"
        path.write_bytes(data)
        try:
            parsed = lock.read_lock_text(path, "fuzz.lock")
        except LockfileError as error:
            assert not pristine, f"a freshly rendered lock does not parse: {error}"
            match = re.match(r"^fuzz\.lock:(\d+): .+ — .+", str(error), re.S)
            assert match, str(error)
            assert 1 <= int(match.group(1)) <= _line_count(data) + 1
            return
        if what in ("pristine", "comment"):
            assert parsed.lock.hand_edited == (), f"an untouched entry is reported hand-edited: {parsed.lock.hand_edited}"
        if what == "value":
            assert parsed.lock.hand_edited, "a value changed by hand is not reported"
        if not pristine:
            return
        entries = list(parsed.lock.annotations.values()) + list(parsed.lock.steps.values())
        again = lock.compose(parsed, entries, None, set())
        lock.write_lock_file(path, again)
        reread = lock.read_lock_text(path, "fuzz.lock")
        assert reread.lock.annotations == parsed.lock.annotations and reread.lock.steps == parsed.lock.steps
        kept = {(block.kind, block.id): block.comments for block in parsed.blocks}
        assert {(block.kind, block.id): block.comments for block in reread.blocks} == kept, "comments lost on rewrite"
        if parsed.blocks:
            first = parsed.blocks[0]
            partial = lock.compose(parsed, entries, {f"{first.kind}:{first.id}"}, set())
            assert all(block.text.rstrip("\n") in partial for block in parsed.blocks[1:]), "untouched entries changed"
        assert sorted(p.name for p in Path(folder).iterdir()) == ["annotations.lock"], "temporary file left behind"


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    name: str
    strategy: st.SearchStrategy
    check: Callable
    share: float
    """Fraction of the cases this target gets."""


TARGETS = (
    Target("annotation-file", ANNOTATION_BYTES, check_annotation_file, 0.30),
    Target("project", PROJECT_FILES, check_project, 0.08),
    Target("python-source", PYTHON_SOURCES, check_python_source, 0.27),
    Target("selector-text", SNIPPETS, check_normalize_and_contains, 0.15),
    Target("lock-file", lock_files(), check_lock_file, 0.20),
    Target("page-config", fuzz_site.front_matter_pages(), fuzz_site.check_page_config, 0.05),
    Target("math", fuzz_site.MATH_LATEX, fuzz_site.check_math, 0.05),
    Target("myst-text", fuzz_site.NASTY_TEXT, fuzz_site.check_myst_text, 0.05),
    Target("report-text", fuzz_site.report_strings(), fuzz_site.check_report_text, 0.03),
    Target("printed-field", fuzz_print.PRINTED_TEXT, fuzz_print.check_printed_field, 0.03),
    Target("cost-catalog", fuzz_catalog.CATALOGS, fuzz_catalog.check_cost_catalog, 0.03),
)


def run_target(target: Target, cases: int, random_seed: int | None, derandomize: bool = False, counter: list[int] | None = None) -> int:
    """Run ``cases`` examples of one target; returns how many ran (also kept in ``counter``). Raises on a failed property."""
    counter = counter if counter is not None else [0]

    def one_case(value) -> None:
        counter[0] += 1
        with time_limit(CASE_SECONDS):
            target.check(value)

    test = given(target.strategy)(one_case)
    test = settings(
        max_examples=cases,
        deadline=None,
        database=None,
        derandomize=derandomize,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )(test)
    if random_seed is not None and not derandomize:
        test = seed(random_seed)(test)
    test()
    return counter[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/fuzz.py", description="Fuzz every reader of untrusted text.")
    parser.add_argument("--cases", type=cli_whole(1, 10_000_000), default=10_000, help="total cases over all targets (default 10000)")
    parser.add_argument("--seed", type=cli_whole(0, 2**32 - 1), default=None, help="random seed (default: random)")
    parser.add_argument("--only", choices=[t.name for t in TARGETS], action="append", help="run only these targets")
    args = parser.parse_args(argv)
    total, failed = 0, []
    for target in TARGETS:
        if args.only and target.name not in args.only:
            continue
        share = target.share / sum(t.share for t in TARGETS if not args.only or t.name in args.only)
        started, counter = time.perf_counter(), [0]
        try:
            run_target(target, max(1, round(args.cases * share)), args.seed, counter=counter)
            status = "ok"
        except Exception as error:  # a failed property: hypothesis has printed the falsifying example
            status = f"FAILED: {type(error).__name__}: {str(error)[:300]}"
            for note in getattr(error, "__notes__", ()):  # hypothesis attaches the falsifying example here
                status += f"\n    {note[:2000]}"
            failed.append(target.name)
        ran = counter[0]
        total += ran
        print(f"{target.name:16} {ran:6d} cases  {time.perf_counter() - started:6.1f} s  {status}", flush=True)
    print(f"fuzzed {total} cases: {'no failures' if not failed else 'failures in ' + ', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
