"""The index cache: hits skip libcst, changed files miss, corrupt entries are rebuilt."""

from __future__ import annotations

import dataclasses
import json

import pytest
from _deadline import deadline

from infralens.annotations.models import ExactSelector
from infralens.source.cache import INDEX_FORMAT, IndexCache

MOD = "def f(a):\n    x = a + 1\n    return x\n"


def resolve_once(temporary_pypackage, cache, text=MOD):
    resolver = temporary_pypackage({"mod.py": text}, cache=cache)
    target = resolver.resolve_target("fakedist", "fakedist.mod.f")
    return resolver.resolve_selector(resolver.index(target.source), target.definition, ExactSelector("x = a + 1"))


def test_second_run_hits_the_cache_and_never_parses(temporary_pypackage, tmp_path, monkeypatch):
    first = IndexCache(tmp_path / "cache")
    resolve_once(temporary_pypackage, first)
    assert first.misses == 1

    import infralens.source.index

    def no_parse(text):  # a cache hit must not reach libcst at all
        raise AssertionError("parsed on a cache hit")

    monkeypatch.setattr(infralens.source.index, "index_source", no_parse)
    second = IndexCache(tmp_path / "cache")
    (statement,) = resolve_once(temporary_pypackage, second)
    assert statement.start_line == 2
    assert second.misses == 0 and second.hits >= 1


def test_a_changed_file_misses(temporary_pypackage, tmp_path):
    resolve_once(temporary_pypackage, IndexCache(tmp_path / "cache"))
    again = IndexCache(tmp_path / "cache")
    (statement,) = resolve_once(temporary_pypackage, again, "# moved down\n" + MOD)
    assert again.misses == 1 and statement.start_line == 3


def test_parse_once_per_run(temporary_pypackage):
    cache = IndexCache(persistent=False)
    resolver = temporary_pypackage({"mod.py": MOD}, cache=cache)
    for _ in range(3):
        target = resolver.resolve_target("fakedist", "fakedist.mod.f")
        resolver.index(target.source)
    assert cache.misses == 1


def test_corrupt_or_foreign_entries_are_ignored_and_rebuilt(temporary_pypackage, tmp_path):
    folder = tmp_path / "cache"
    resolve_once(temporary_pypackage, IndexCache(folder))
    (entry,) = folder.rglob("*.json")
    for garbage in (
        "{not json",
        json.dumps({"format": INDEX_FORMAT, "sha256": "other"}),
        json.dumps({"format": INDEX_FORMAT, "sha256": entry.stem, "definitions": [[1]], "statements": []}),
        "\xff",
    ):
        entry.write_text(garbage, encoding="utf-8")
        cache = IndexCache(folder)
        (statement,) = resolve_once(temporary_pypackage, cache)
        assert statement.start_line == 2 and cache.misses == 1
    assert json.loads(entry.read_text("utf-8"))["sha256"] == entry.stem  # rewritten whole


def test_unwritable_cache_directory_only_costs_speed(temporary_pypackage, tmp_path):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    cache = IndexCache(blocker / "cache")
    (statement,) = resolve_once(temporary_pypackage, cache)
    assert statement.start_line == 2


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    from infralens.source.cache import default_cache_dir

    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"


def test_parallel_prefetch_gives_the_same_indexes_as_serial(temporary_pypackage, tmp_path):
    from infralens.annotations.load import load_text

    modules = {f"m{n}.py": f"def f{n}(a):\n    x = a + {n}\n    return x\n" for n in range(5)}
    resolver = temporary_pypackage(modules, cache=IndexCache(tmp_path / "cache"))
    annotations = [
        load_text(
            f"id: a{n}\nlab: l\nsource: fakedist\ntarget: fakedist.m{n}.f{n}\nsummary: s\nsteps:\n  - at: x = a + {n}\n    note: n\n", "f.yaml"
        ).annotations[0]
        for n in range(5)
    ]
    resolver.prefetch(annotations, jobs=2)
    assert resolver.cache.misses == 5
    for annotation in annotations:
        resolved, problems = resolver.resolve_annotation(annotation)
        assert problems == () and resolved.steps[0].start_line == 2
    assert resolver.cache.misses == 5  # nothing parsed twice
    from infralens.source.index import index_source

    serial = IndexCache(persistent=False)
    for annotation in annotations:
        source = resolver.resolve_target("fakedist", annotation.target).source
        assert resolver.index(source) == index_source(source.text) == serial.index_of(source.text, source.sha256)


# -- the code fingerprint (regression: it used to hash files by name, and after the move to
#    source/ the indexer's file name no longer existed, so its code silently left the key) --


def _package(root, files):
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_every_fingerprinted_module_exists_and_counts():
    import importlib.util

    from infralens.source.cache import FINGERPRINTED_MODULES, code_fingerprint

    assert "infralens.source.index" in FINGERPRINTED_MODULES and "infralens.source.normal_form" in FINGERPRINTED_MODULES
    for name in FINGERPRINTED_MODULES:
        assert importlib.util.find_spec(name) is not None, name
    assert code_fingerprint() == code_fingerprint(FINGERPRINTED_MODULES)


def test_fingerprint_keys_by_import_path_and_content(tmp_path, monkeypatch):
    from infralens.source.cache import code_fingerprint

    same = "VALUE = 1\n"
    _package(tmp_path, {"fpkg/__init__.py": "", "fpkg/a/__init__.py": "", "fpkg/a/index.py": same, "fpkg/b/__init__.py": "", "fpkg/b/index.py": same})
    monkeypatch.syspath_prepend(str(tmp_path))
    first, second = code_fingerprint(("fpkg.a.index",)), code_fingerprint(("fpkg.b.index",))
    assert first != second  # same file name, same text, different module: different keys

    _package(tmp_path, {"fpkg/c/__init__.py": "", "fpkg/c/index.py": same})
    before = code_fingerprint(("fpkg.c.index",))
    _package(tmp_path, {"fpkg/d/__init__.py": "", "fpkg/d/index.py": "VALUE = 2\n"})
    assert before != code_fingerprint(("fpkg.d.index",))


def test_a_fingerprinted_module_that_is_gone_is_an_error():
    from infralens.source.cache import code_fingerprint

    with pytest.raises(RuntimeError, match=r"infralens\.source\.indexer"):
        code_fingerprint(("infralens.source.indexer",))


# -- entries that are not what they should be (issue 18, point 3): discarded with a message, rebuilt, never a hang --


def _replace_with_fifo(entry):
    import os

    entry.unlink()
    os.mkfifo(entry)


def _replace_with_folder(entry):
    entry.unlink()
    (entry / "inner").mkdir(parents=True)


def _truncate(entry):
    entry.write_bytes(entry.read_bytes()[:20])


def _write(text):
    return lambda entry: entry.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    "spoil",
    [_write("[]"), _write('"x"'), _write("3"), _write("null"), _truncate, _replace_with_fifo, _replace_with_folder],
    ids=["array", "string", "number", "null", "truncated", "fifo", "folder"],
)
def test_a_bad_entry_is_discarded_with_a_message_and_rebuilt(temporary_pypackage, tmp_path, capsys, spoil):
    import os

    if spoil is _replace_with_fifo and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    folder = tmp_path / "cache"
    resolve_once(temporary_pypackage, IndexCache(folder))
    (entry,) = folder.rglob("*.json")
    spoil(entry)
    capsys.readouterr()
    cache = IndexCache(folder)
    with deadline(20):  # reading a FIFO entry must not hang
        (statement,) = resolve_once(temporary_pypackage, cache)
    assert statement.start_line == 2 and cache.misses == 1 and cache.discarded == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "infralens: index cache: discarded" in err and str(entry) in err
    assert entry.is_file() and json.loads(entry.read_text("utf-8"))["sha256"] == entry.stem  # rebuilt whole
    again = IndexCache(folder)
    resolve_once(temporary_pypackage, again)
    assert again.misses == 0 and again.discarded == 0


def test_a_decoded_index_equals_the_one_built_and_hashes_the_same(tmp_path):
    """What the decoder gives back is the index that was built: equal, hashing the same, frozen."""
    from infralens.source.cache import _decode, _encode
    from infralens.source.index import index_source

    source = "class A:\n    @property\n    def f(self):\n        if self.x:\n            return 1\n        else:\n            y = [\n 2]\n        return y\n"
    built = index_source(source)
    decoded = _decode(json.loads(json.dumps(_encode(built))))
    assert decoded == built and len(decoded.statements) >= 5
    assert [hash(s) for s in decoded.statements] == [hash(s) for s in built.statements]
    assert {s: s.text for s in decoded.statements} == {s: s.text for s in built.statements}
    assert decoded.statements_within(3, 9) == built.statements_within(3, 9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        decoded.statements[0].text = "changed"  # type: ignore[misc]


def test_indexes_parsed_by_the_workers_are_stored_for_the_next_run(tmp_path):
    from infralens.hashing import sha256_text
    from infralens.source.fast_index import fast_index_source
    from infralens.source.prefetch import Prefetcher

    texts = [f"def f{n}(a):\n    x = a + {n}\n    return x\n" for n in range(3)]
    cache = IndexCache(tmp_path / "cache")
    workers = Prefetcher(workers=2)
    try:
        assert workers.index(cache, [(t, sha256_text(t)) for t in texts], fast=True) == 3
        assert all(cache.awaiting(sha256_text(t)) for t in texts)  # handed over, not waited for
        assert [cache.get(sha256_text(t)) for t in texts] == [fast_index_source(t) for t in texts]  # each waited for when asked
        assert cache.misses == 3 and not any(cache.awaiting(sha256_text(t)) for t in texts)
    finally:
        workers.close()
    assert not list((tmp_path / "cache").glob("*.tmp"))
    later = IndexCache(tmp_path / "cache")  # a new run: nothing in memory
    for text in texts:
        assert later.get(sha256_text(text)) == fast_index_source(text)
    assert later.misses == 0


def test_a_cache_kept_in_memory_gives_the_workers_nowhere_to_write(tmp_path):
    assert IndexCache(tmp_path / "c", persistent=False).entry_for("ab" * 32) is None
    assert IndexCache(tmp_path / "c").entry_for("ab" * 32).endswith(f"{'ab' * 32}.json")


def test_statements_starting_on_a_line_are_found_by_bisection_as_by_a_scan():
    from infralens.source.index import index_source

    built = index_source("class A:\n    def f(self):\n        if self.x: return 1\n        y = [\n 2]\n        return y\n")
    for line in range(8):
        assert built.statements_starting(line) == tuple(s for s in built.statements if s.start_line == line)
    assert [s.text for s in built.statements_starting(3)] == ["if self . x :", "return 1"]
