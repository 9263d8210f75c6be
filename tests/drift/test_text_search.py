"""The checker's text search is faster, not different: each shortcut answers exactly as the scan it replaced.

* :class:`DefinitionProbe` finds the files ``(?m)^\\s*(?:async\\s+def|def|class)\\s+NAME\\b`` finds, and the indexes of
  definition lines that :meth:`TreeReader.files_defining` reads hold a name exactly where the probe finds it;
* :class:`TextProbe` (substring test, then the layout-tolerant regex) agrees with the regex alone;
* :meth:`TreeReader.files_with_text` with a ``limit`` returns the first hits of the full ranked list, and that
  list is the one the former implementation built (every candidate scanned, then a stable sort by rank);
* files indexed by worker processes (:mod:`infralens.source.prefetch`) get the index a serial parse builds.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from infralens.drift.match.reader import _COMMON, TreeReader, _common_prefix
from infralens.drift.match.textscan import WORD, WORD_BYTES, DefinitionProbe, TextProbe, file_words, flexible_pattern
from infralens.hashing import sha256_text
from infralens.resolve import Resolver
from infralens.source import INDENTED_DEFINITION_BYTES, TOP_DEFINITION_BYTES, DirectoryTree, IndexCache
from infralens.source.fast_index import fast_index_source
from infralens.source.prefetch import Prefetcher

FRAGMENTS = [
    "def ",
    "async ",
    "class ",
    "forward",
    "forward_all",
    "_forward",
    "(",
    ":",
    " ",
    "\t",
    "\n",
    "\r\n",
    "#",
    "# def forward\n",
    "x = 1\n",
    "    ",
    "undef ",
    '"',
    "\\\n",
]


def _layouts(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    return ["".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 14))).encode() for _ in range(count)]


@pytest.mark.parametrize("name", ["forward", "forward_all", "_forward"])
def test_the_definition_probe_finds_what_the_line_regex_finds(name: str) -> None:
    reference = re.compile(rb"(?m)^\s*(?:async\s+def|def|class)\s+" + re.escape(name.encode()) + rb"\b")
    probe = DefinitionProbe(name)
    layouts = _layouts(41, 4000) + [
        b"def forward(self):",
        b"    async   def forward(",
        b"x\n\n  \n\tclass forward:",
        b"async\ndef forward()",
        b"x = 1; def forward",
        b"async x def forward",
        b"def\n   forward",
    ]
    disagree = [data for data in layouts if probe(data) != bool(reference.search(data))]
    assert not disagree, disagree[:5]
    assert 20 < sum(probe(data) for data in layouts) < len(layouts) - 20  # the fuzz reaches both answers


@pytest.mark.parametrize("top_level", [True, False])
def test_the_definition_probe_at_one_level_finds_what_its_line_regex_finds(top_level: bool) -> None:
    """Only column-0 definitions (a module's own) or only indented ones (methods, nested functions)."""
    lead = rb"" if top_level else rb"[ \t\r\f\v]+"
    reference = re.compile(rb"(?m)^" + lead + rb"(?:async[ \t\r\f\v]+def|def|class)\s+forward\b")
    probe = DefinitionProbe("forward", top_level)
    layouts = _layouts(43, 4000) + [b"def forward(self):", b"    def forward(self):", b"class A:\n    def forward(self):", b"async def forward():"]
    disagree = [data for data in layouts if probe(data) != bool(reference.search(data))]
    assert not disagree, disagree[:5]
    assert 5 <= sum(probe(data) for data in layouts) < len(layouts) - 20  # the fuzz reaches both answers


@pytest.mark.parametrize("top_level", [True, False, None])
def test_the_definition_indexes_hold_what_the_probe_finds(top_level: bool | None) -> None:
    """:meth:`TreeReader.files_defining` looks names up in two word indexes (definition lines at column 0, and indented)
    instead of running the probe over every file: for any layout, a file is in the index of a name exactly when the
    probe finds its definition line at that level."""
    layouts = _layouts(47, 6000) + [b"def forward(self):", b"class forward:", b"def \nclass forward:", b"  def\n\nforward", b"\f\tdef forward():"]
    for name in ("forward", "forward_all", "_forward"):
        probe = DefinitionProbe(name, top_level)
        top = [name.encode() in file_words(data, TOP_DEFINITION_BYTES) for data in layouts]
        indented = [name.encode() in file_words(data, INDENTED_DEFINITION_BYTES) for data in layouts]
        indexed = [(t and top_level is not False) or (i and top_level is not True) for t, i in zip(top, indented, strict=True)]
        disagree = [data for data, found in zip(layouts, indexed, strict=True) if probe(data) != found]
        assert not disagree, disagree[:5]
        assert 5 <= sum(indexed) < len(layouts) - 20  # the fuzz reaches both answers


@pytest.mark.parametrize("text", ["x = forward ( a , b )", "def forward ( self ) :", "return ( x , )", 'y = "# not a comment"'])
def test_the_text_probe_agrees_with_the_layout_regex(text: str) -> None:
    pattern = flexible_pattern(text)
    assert pattern is not None
    probe = TextProbe(text)
    rng = random.Random(text)
    pieces = [*text.split(), ",", "#", "# c\n", " ", "\n", "\\\n", "z"]
    layouts = [text.replace(" ", "").encode(), text.encode(), b"\n".join(t.encode() for t in text.split())]
    layouts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 20))).encode() for _ in range(3000)]
    disagree = [data for data in layouts if probe(data) != bool(pattern.search(data))]
    assert not disagree, disagree[:5]
    assert sum(probe(data) for data in layouts) >= 3


def test_a_text_without_tokens_is_held_by_every_file() -> None:
    probe = TextProbe("   ")
    assert probe(b"anything") and probe.everything


def _reference(reader: TreeReader, text: str, near: str, hints: list[str]) -> list[str]:
    """The former ``files_with_text``: every candidate scanned with the regex, then a stable sort by rank."""
    words = sorted({w for w in WORD.findall(text) if w not in _COMMON}, key=len, reverse=True)[:3]
    narrowing = [w.encode() for w in words if WORD.fullmatch(w)]
    pattern = flexible_pattern(text)
    hits = []
    for relpath in reader.tree.iter_python_files():
        data = reader.read_bytes(relpath)
        if data is None or not all(w in set(WORD_BYTES.findall(data)) for w in narrowing):
            continue
        if pattern is not None and not pattern.search(data):
            continue
        hits.append(((sum(1 for h in hints if h.encode() in data), _common_prefix(relpath, near)), relpath))
    hits.sort(key=lambda item: item[0], reverse=True)
    return [relpath for _, relpath in hits]


@pytest.fixture
def tree(tmp_path: Path) -> DirectoryTree:
    """Forty modules in four folders, each holding some of a few statements in some layout."""
    rng = random.Random(7)
    statements = [
        "hidden = self.proj(hidden, scale=scale)",
        "hidden = self.proj(\n    hidden,  # why\n    scale=scale,\n)",
        "value = compute(value)",
        "return hidden",
        "class Block:\n    pass",
        "def forward(self):\n    return 1",
    ]
    for number in range(40):
        folder = tmp_path / "demo" / ["a", "b", "a/c", "d"][number % 4]
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n".join(rng.sample(statements, rng.randint(1, 4)))
        (folder / f"mod{number:02}.py").write_text(f"# Block forward\n{body}\n", "utf-8")
    (tmp_path / "demo" / "__init__.py").write_text("__version__ = '1.0'\n", "utf-8")
    return DirectoryTree(tmp_path, "demo", version="1.0")


@pytest.mark.parametrize("text", ["hidden = self . proj ( hidden , scale = scale )", "value = compute ( value )", "return hidden", "absent = nowhere ( )"])
@pytest.mark.parametrize("near", ["demo/a/c/mod02.py", "demo/d/mod03.py"])
def test_a_limited_search_returns_the_first_hits_of_the_full_ranked_list(tree: DirectoryTree, tmp_path: Path, text: str, near: str) -> None:
    hints = ["demo", "Block", "forward"]
    expected = _reference(TreeReader(Resolver({"demo": tree}, cache=IndexCache(tmp_path / "cache")), tree), text, near, hints)
    reader = TreeReader(Resolver({"demo": tree}, cache=IndexCache(tmp_path / "cache")), tree)
    for limit in (1, 4, 16, None):  # asked in growing order, each answer from the same lazy search
        assert reader.files_with_text(text, near=near, hints=hints, limit=limit) == expected[:limit]
    fresh = TreeReader(Resolver({"demo": tree}, cache=IndexCache(tmp_path / "cache")), tree)
    assert fresh.files_with_text(text, near=near, hints=hints) == expected
    if "absent" not in text:
        assert len(expected) > 4  # the fixture holds enough hits for the limits to cut


def test_files_defining_finds_the_definition_lines(tree: DirectoryTree, tmp_path: Path) -> None:
    reader = TreeReader(Resolver({"demo": tree}, cache=IndexCache(tmp_path / "cache")), tree)
    line = re.compile(rb"(?m)^\s*(?:async\s+def|def|class)\s+Block\b")
    expected = [r for r in tree.iter_python_files() if line.search(tree.read_bytes(r))]
    assert list(reader.files_defining(["Block"])) == expected
    assert expected


def test_files_indexed_by_workers_get_the_index_a_serial_parse_builds(tmp_path: Path) -> None:
    texts = [f"class C{n}:\n    def f(self, x):\n        if x:\n            return x + {n}\n        return None\n" for n in range(6)]
    cache = IndexCache(tmp_path / "cache")
    workers = Prefetcher(workers=2)
    try:
        assert workers.index(cache, [(t, sha256_text(t)) for t in texts], fast=True) == len(texts)
        assert workers.index(cache, [(t, sha256_text(t)) for t in texts], fast=True) == 0  # all handed over already
        for text in texts:
            assert cache.get(sha256_text(text)) == fast_index_source(text)
        assert workers.index(cache, [(t, sha256_text(t)) for t in texts], fast=True) == 0  # all cached now
    finally:
        workers.close()


def test_without_two_cores_nothing_is_started(tmp_path: Path) -> None:
    single = Prefetcher(workers=1)
    text = "x = 1\n"
    assert single.index(IndexCache(tmp_path / "cache"), [(text, sha256_text(text)), ("y = 2\n", sha256_text("y = 2\n"))], fast=True) == 0
    assert single._pool is None


def test_a_failing_parse_in_a_worker_is_left_to_the_serial_path(tmp_path: Path) -> None:
    """What indexing raises is raised where the file is asked for (as without workers): the worker's attempt is
    dropped, and the workers stay usable."""
    cache = IndexCache(tmp_path / "cache")
    workers = Prefetcher(workers=2)
    try:
        assert workers.index(cache, [(b"x = 1", "a" * 64), (b"y = 2", "b" * 64)], fast=True) == 2  # type: ignore[list-item]  # bytes: the indexer raises
        assert cache.get("a" * 64) is None and not cache.awaiting("a" * 64)  # nothing kept: parsed where asked
        with pytest.raises(TypeError):
            cache.index_of(b"y = 2", "b" * 64, fast=True)  # type: ignore[arg-type]  # raised here, as without workers
        texts = ["x = 1\n", "y = 2\n"]
        assert workers.index(cache, [(t, sha256_text(t)) for t in texts], fast=True) == 2
        assert [cache.get(sha256_text(t)) for t in texts] == [fast_index_source(t) for t in texts]
    finally:
        workers.close()


def _blocked_signals(status: str) -> int:
    """The SigBlk mask of one thread's /proc status text."""
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")), 16)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc to read each thread's signal mask")
def test_the_workers_threads_leave_ctrl_c_to_the_main_thread(tmp_path: Path) -> None:
    """A Ctrl-C delivered to a pool's thread would not interrupt the main thread's blocking wait (a download, a
    subprocess): every thread the pool starts blocks SIGINT and SIGTERM, the main thread blocks neither."""
    import signal
    import threading

    texts = [f"def f{n}(x):\n    return x + {n}\n" for n in range(4)]
    before = {task.name for task in Path("/proc/self/task").iterdir()}  # threads of other tests and plugins are not the pool's
    workers = Prefetcher(workers=2)
    try:
        assert workers.index(IndexCache(tmp_path / "cache"), [(t, sha256_text(t)) for t in texts], fast=True) == len(texts)
        main = threading.main_thread().native_id
        others = [task for task in Path("/proc/self/task").iterdir() if int(task.name) != main and task.name not in before]
        assert others, "the pool started no thread"
        both = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
        for task in others:
            assert _blocked_signals((task / "status").read_text()) & both == both, task.name
        assert _blocked_signals(Path(f"/proc/self/task/{main}/status").read_text()) & both == 0
    finally:
        workers.close()
