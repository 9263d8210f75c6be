"""Each tree's words, kept across runs: the same sets as reading the files, a key that follows every edit, and any
stored entry that is not what the cache writes rebuilt (never trusted, never an error)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from infralens.drift.match.textscan import WordIndex
from infralens.source.distributions import DirectoryTree, WheelTree
from infralens.source.words import MAX_WORDS_BYTES, WordCache, file_words

FILES = {
    "pkg/__init__.py": "",
    "pkg/attn.py": "def attention(query, key):\n    return softmax(query @ key)\n",
    "pkg/cache.py": "class DynamicLayer:\n    pass\n",
}


def _site(root: Path) -> DirectoryTree:
    for relpath, text in FILES.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text)
    return DirectoryTree(root, "pkg")


def _wheel(folder: Path, files: dict[str, str]) -> WheelTree:
    folder.mkdir()
    path = folder / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for relpath, text in files.items():
            archive.writestr(relpath, text)
        archive.writestr("pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")
    return WheelTree(path)


def _index(tree, cache: WordCache, reads: list[str]) -> WordIndex:
    def read(relpath: str) -> bytes:
        reads.append(relpath)
        return tree.read_bytes(relpath)

    return WordIndex(tuple(tree.iter_python_files()), read, (cache, tree.listing_key()))


def test_a_second_run_reads_the_stored_words_and_no_file(tmp_path):
    tree = _site(tmp_path / "site")
    cache = WordCache(tmp_path / "cache")
    first_reads: list[str] = []
    first = _index(tree, cache, first_reads)
    assert first.files_with(b"attention") == {"pkg/attn.py"}
    assert sorted(first_reads) == sorted(FILES)
    second_reads: list[str] = []
    second = _index(tree, cache, second_reads)
    for word in (b"attention", b"DynamicLayer", b"softmax", b"query", b"absent"):
        assert second.files_with(word) == first.files_with(word)
    assert second_reads == []
    stored = cache.get(tree.listing_key(), tuple(tree.iter_python_files()))
    assert stored == [file_words(tree.read_bytes(r)) for r in tree.iter_python_files()]


def test_an_edited_file_changes_the_key_of_a_folder_and_of_a_wheel(tmp_path):
    tree = _site(tmp_path / "site")
    before = tree.listing_key()
    path = tmp_path / "site" / "pkg" / "cache.py"
    path.write_text("class StaticLayer:\n    pass\n")  # same size, a new modification time
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert tree.listing_key() != before
    cache = WordCache(tmp_path / "cache")
    assert _index(tree, cache, []).files_with(b"StaticLayer") == {"pkg/cache.py"}

    one = _wheel(tmp_path / "a", FILES)
    two = _wheel(tmp_path / "b", {**FILES, "pkg/cache.py": "class StaticLayer:\n    pass\n"})
    same = _wheel(tmp_path / "c", FILES)
    assert one.listing_key() != two.listing_key()
    assert one.listing_key() == same.listing_key()  # the same files wherever the wheel lies


def _stored_entry(cache: WordCache) -> Path:
    (entry,) = cache.directory.iterdir()
    return entry


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda raw: raw[: len(raw) // 2], id="truncated"),
        pytest.param(lambda raw: b"not an entry\n" + raw, id="another-format"),
        pytest.param(lambda raw: raw.replace(b'"files": 3', b'"files": 2'), id="wrong-count"),
        pytest.param(lambda raw: raw[:-3] + b"xyz", id="bad-payload"),
        pytest.param(lambda raw: b"", id="empty"),
    ],
)
def test_a_damaged_entry_is_rebuilt_with_a_message(tmp_path, capsys, damage):
    tree = _site(tmp_path / "site")
    cache = WordCache(tmp_path / "cache")
    expected = _index(tree, cache, []).files_with(b"query")
    entry = _stored_entry(cache)
    entry.write_bytes(damage(entry.read_bytes()))
    reads: list[str] = []
    assert _index(tree, cache, reads).files_with(b"query") == expected
    assert sorted(reads) == sorted(FILES)  # not trusted: read again
    assert "word cache: discarded" in capsys.readouterr().err
    assert cache.get(tree.listing_key(), tuple(tree.iter_python_files())) is not None  # and stored whole again


def test_an_entry_that_inflates_without_end_is_refused(tmp_path, monkeypatch):
    from infralens.source import words

    tree = _site(tmp_path / "site")
    cache = WordCache(tmp_path / "cache")
    monkeypatch.setattr(words, "MAX_WORDS_BYTES", 16)
    assert MAX_WORDS_BYTES > 16
    _index(tree, cache, []).files_with(b"query")
    assert cache.get(tree.listing_key(), tuple(tree.iter_python_files())) is None  # over the cap once inflated


def test_a_fifo_where_the_entry_should_be_is_a_miss_never_a_wait(tmp_path):
    tree = _site(tmp_path / "site")
    cache = WordCache(tmp_path / "cache")
    _index(tree, cache, []).files_with(b"query")
    entry = _stored_entry(cache)
    entry.unlink()
    os.mkfifo(entry)
    reads: list[str] = []
    assert _index(tree, cache, reads).files_with(b"query") == {"pkg/attn.py"}
    assert reads and entry.is_file()


def test_an_unwritable_cache_costs_only_time(tmp_path):
    tree = _site(tmp_path / "site")
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    cache = WordCache(blocker)
    assert _index(tree, cache, []).files_with(b"softmax") == {"pkg/attn.py"}
    assert cache.get(tree.listing_key(), tuple(tree.iter_python_files())) is None


def test_a_tree_with_no_python_files_round_trips(tmp_path):
    (tmp_path / "site" / "pkg").mkdir(parents=True)
    tree = DirectoryTree(tmp_path / "site", "pkg")
    cache = WordCache(tmp_path / "cache")
    assert _index(tree, cache, []).files_with(b"query") == frozenset()
    assert cache.get(tree.listing_key(), ()) == []


def test_the_workers_find_the_same_words_in_the_background(tmp_path, monkeypatch):
    from infralens.source import prefetch
    from infralens.source.prefetch import Prefetcher
    from infralens.source.words import METHOD_DEF_BYTES, WORD_BYTES

    files = {**FILES, "pkg/layers.py": "class Layer:\n    def update(self, key):\n        return key\n\n    async def fetch(self):\n        pass\n"}
    tree = _wheel(tmp_path / "w", files)
    relpaths = tuple(tree.iter_python_files())
    assert Prefetcher(workers=2).words(tree, relpaths, (WORD_BYTES.pattern,)) is None  # too few files to start workers for
    monkeypatch.setattr(prefetch, "MIN_WORD_FILES", 1)
    workers = Prefetcher(workers=2)
    try:
        wait = workers.words(tree, relpaths, (WORD_BYTES.pattern, METHOD_DEF_BYTES.pattern))
        assert wait is not None
        found = wait()
    finally:
        workers.close()
    assert found == [[file_words(tree.read_bytes(r), pattern) for r in relpaths] for pattern in (WORD_BYTES, METHOD_DEF_BYTES)]
    assert {b"update", b"fetch"} <= found[1][relpaths.index("pkg/layers.py")]


def test_a_failed_background_search_is_done_here(tmp_path):
    tree = _site(tmp_path / "site")
    reads: list[str] = []

    def read(relpath: str) -> bytes:
        reads.append(relpath)
        return tree.read_bytes(relpath)

    index = WordIndex(tuple(tree.iter_python_files()), read, (WordCache(tmp_path / "cache"), tree.listing_key()), pending=lambda: None)
    assert index.files_with(b"softmax") == {"pkg/attn.py"}
    assert sorted(reads) == sorted(FILES)


def test_a_wheel_tree_sent_to_a_worker_reads_the_same_bytes(tmp_path):
    import pickle

    tree = _wheel(tmp_path / "w", FILES)
    again = pickle.loads(pickle.dumps(tree))
    assert [again.read_bytes(r) for r in again.iter_python_files()] == [tree.read_bytes(r) for r in tree.iter_python_files()]
    assert again.listing_key() == tree.listing_key()


def test_a_cold_reader_finds_the_words_in_the_background_and_keeps_both_indexes(tmp_path, monkeypatch):
    from infralens.drift.match.reader import WORD_PATTERNS, TreeReader
    from infralens.resolve.resolver import Resolver
    from infralens.source import prefetch
    from infralens.source.cache import IndexCache

    monkeypatch.setattr(prefetch, "MIN_WORD_FILES", 1)
    tree = _wheel(tmp_path / "w", FILES)
    cache = IndexCache(tmp_path / "cache")
    reader = TreeReader(Resolver({"pkg": tree}, cache=cache), tree, fast=True)
    reads: list[str] = []
    monkeypatch.setattr(reader, "read_bytes", lambda relpath: reads.append(relpath) or tree.read_bytes(relpath))
    reader.start_word_indexes()
    try:
        assert reader.files_with_words(["softmax"]) == {"pkg/attn.py"}
    finally:
        prefetch.SHARED.close()
    assert reads == []  # found by the workers, not read here
    for pattern in WORD_PATTERNS:  # both kept, although only the words were asked for
        assert WordCache(tmp_path / "cache", pattern).get(tree.listing_key(), tuple(tree.iter_python_files())) is not None


def test_only_a_check_against_another_release_starts_the_background_search(tmp_path, monkeypatch):
    from infralens.drift.match.matcher import DistributionMatcher
    from infralens.resolve.resolver import Resolver
    from infralens.source import prefetch
    from infralens.source.cache import IndexCache

    asked: list[str] = []
    monkeypatch.setattr(prefetch.SHARED, "words", lambda tree, relpaths, patterns: asked.append(tree.origin))
    tree = _wheel(tmp_path / "w", FILES)
    resolver = Resolver({"pkg": tree}, cache=IndexCache(tmp_path / "cache"))
    DistributionMatcher(resolver, tree).prepare()  # the reviewed release itself: a plain check seldom searches
    assert asked == []
    against = DistributionMatcher(resolver, tree, fast=True)  # another release: started when the first target is mapped
    assert asked == []
    against.prepare()
    assert asked == [tree.origin]
