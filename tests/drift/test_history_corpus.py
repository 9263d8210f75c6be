"""Real-history corpus: statements locked from old wheels, checked against the installed release.

A group names its ``distribution`` (default diffusers; diffsynth groups are checked against the installed
diffsynth). Rows are labelled by release: ``0.30.3`` for diffusers, ``diffsynth==2.0.0`` for the others.

The truth table (tests/data/history_corpus.yaml) was decided by reading the sources. The wheels are
kept in the InfraLens cache (fetched with pip on first use, or all at once by ``make wheels``; see corpus_wheels.py);
offline without them the test fails, naming the wheel and that command.
Goal: zero false "unchanged" and at least 95% of classes right.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from corpus_runs import benchmark_rows
from corpus_wheels import missing_wheel_message

from infralens.annotations.models import Annotation, ExactSelector, Step
from infralens.drift import DistributionMatcher, StepKind, compose, entries_for, parse_lock
from infralens.drift.match.rules import Policy
from infralens.errors import SourceNotFoundError
from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache
from infralens.source.distributions import InstalledTree, WheelTree
from infralens.source.wheels import fetch_wheel

DATA = Path(__file__).parents[1] / "data"
CORPUS = DATA / "history_corpus.yaml"
pytestmark = [pytest.mark.network, pytest.mark.slow]


DEFAULT_DISTRIBUTION = "diffusers"


def _wheel(distribution: str, version: str) -> Path:
    try:
        return fetch_wheel(distribution, version)
    except SourceNotFoundError as error:
        pytest.fail(missing_wheel_message(distribution, version, error), pytrace=False)


def _label(group: dict) -> str:
    """How a group's release is named in rows: the bare version for diffusers, ``dist==version`` otherwise.

    A group with ``against:`` (checked against that release's wheel, not the installed one) adds ``->version``.
    """
    distribution = group.get("distribution", DEFAULT_DISTRIBUTION)
    label = group["release"] if distribution == DEFAULT_DISTRIBUTION else f"{distribution}=={group['release']}"
    return f"{label}->{group['against']}" if group.get("against") else label


def _annotations(groups: list[dict], label: str) -> list[tuple[Annotation, list[dict]]]:
    result = []
    for number, group in enumerate(groups):
        if _label(group) != label:
            continue
        steps = tuple(Step(at=ExactSelector(item["text"], item.get("nth")), note="", key=f"s{index}") for index, item in enumerate(group["statements"]))
        annotation = Annotation(
            id=f"history-{number}",
            lab="corpus",
            source=group.get("distribution", DEFAULT_DISTRIBUTION),
            target=group["target"],
            summary=group["history"],
            steps=steps,
        )
        result.append((annotation, group["statements"]))
    return result


def run_corpus(
    cache_dir: Path, corpus: Path = CORPUS, *, walk: bool = False, only: frozenset[str] | None = None, policy: Policy | None = None
) -> list[tuple[str, str, str, dict, object]]:
    """(release, expected, got, statement, result) for every statement of ``corpus``.

    With ``walk``, each group is checked through the newest release of every minor series in between
    (``check --walk``), not by a direct comparison. With ``only``, just the steps of those annotation ids are
    checked (as ``infralens check ID …`` does), by a matcher that never saw the others. ``policy``: the matcher's
    thresholds and rules switched off (an ablation; direct comparisons only).
    """
    return match_prepared(cache_dir, prepare_corpus(cache_dir, corpus), walk=walk, only=only, policy=policy)


@dataclass(frozen=True)
class PreparedGroup:
    """One release pair of a corpus, locked from the old wheel: what a matcher needs to check it."""

    label: str
    distribution: str
    release: str
    against: str | None
    lock: object
    tree: object
    expected: dict[str, dict]


def prepare_corpus(cache_dir: Path, corpus: Path = CORPUS) -> list[PreparedGroup]:
    """Lock every release pair of ``corpus`` from its old wheel (once; an ablation then matches it many times)."""
    groups = yaml.safe_load(corpus.read_text("utf-8"))
    prepared = []
    for label in sorted({_label(g) for g in groups}):
        group = next(g for g in groups if _label(g) == label)
        distribution = group.get("distribution", DEFAULT_DISTRIBUTION)
        old = Resolver({distribution: WheelTree(_wheel(distribution, group["release"]))}, cache=IndexCache(cache_dir))
        entries = []
        expected: dict[str, dict] = {}
        for annotation, statements in _annotations(groups, label):
            resolved, problems = old.resolve_annotation(annotation)
            assert resolved is not None, [str(p) for p in problems]
            entries.extend(entries_for(resolved, old.index(resolved.target.source), f"tests/data/{corpus.name}", "0" * 64))
            for step, statement in zip(annotation.steps, statements, strict=True):
                expected[annotation.step_id(step)] = statement
        lock = parse_lock(compose(None, entries, None, set()), Path("history.lock")).lock  # through the real file format
        against = group.get("against")
        tree = WheelTree(_wheel(distribution, against)) if against else InstalledTree(distribution)
        prepared.append(PreparedGroup(label, distribution, group["release"], against, lock, tree, expected))
    return prepared


def match_prepared(
    cache_dir: Path,
    prepared: list[PreparedGroup],
    *,
    walk: bool = False,
    only: frozenset[str] | None = None,
    policy: Policy | None = None,
    readers: dict | None = None,
) -> list[tuple[str, str, str, dict, object]]:
    """:func:`run_corpus`'s rows for corpus groups locked by :func:`prepare_corpus`, each by a new matcher (``readers``:
    what earlier matchers read of each group's trees, kept and reused, as an ablation decides the same trees again)."""
    rows = []
    for group in prepared:
        lock, tree, against, distribution = group.lock, group.tree, group.against, group.distribution
        resolver = Resolver({distribution: tree}, cache=IndexCache(cache_dir)) if against else Resolver(cache=IndexCache(cache_dir))
        if walk:
            results = _walked(cache_dir, lock, distribution, group.release, against or tree.version, tree)
        else:
            shared = readers.get(group.label) if readers is not None else None
            reviewed = shared[1] if shared else None
            matcher = DistributionMatcher(resolver, tree, fast=bool(against), policy=policy, reader=shared[0] if shared else None, reviewed=reviewed)
            if readers is not None:
                readers[group.label] = (matcher.reader, matcher.reviewed)
            chosen = [a for a in lock.annotations.values() if only is None or a.id in only]
            results = [matcher.step(s, a, lock.steps_of(a.id)) for a in chosen for s in lock.steps_of(a.id)]
        for result in results:
            statement = group.expected[result.entry.step_id]
            rows.append((group.label, statement["expect"], result.kind.value, statement, result))
    return rows


_ASKED: dict[str, bool] = {}


def _walked(cache_dir: Path, lock, distribution: str, release: str, target: str, tree) -> list:
    """Every step of ``lock`` walked from ``release`` through the newest release of each series before ``target``."""
    from infralens.drift.check import CheckReport
    from infralens.drift.history.walk import walk
    from infralens.source.releases import list_releases, select_releases, version_key

    listed = list_releases(distribution, offline=_ASKED.get(distribution, False)).versions  # the index once, then its remembered list
    _ASKED[distribution] = True
    between = [v for v in select_releases(listed, release, target, per_series=True) if version_key(release) < version_key(v) < version_key(target)]
    stops = [(v, WheelTree(_wheel(distribution, v))) for v in between] + [(target, tree)]

    def check(current, checked):
        fast = isinstance(checked, WheelTree)
        matcher = DistributionMatcher(
            Resolver({distribution: checked}, cache=IndexCache(cache_dir)) if fast else Resolver(cache=IndexCache(cache_dir)), checked, fast=fast
        )
        targets, steps = [], []
        for annotation in current.annotations.values():
            siblings = current.steps_of(annotation.id)
            targets.append(matcher.target(annotation, siblings)[0])
            steps.extend(matcher.step(s, annotation, siblings) for s in siblings)
        return CheckReport(current, (), tuple(targets), tuple(steps), ())

    report, _ = walk(lock, stops, check, Resolver(cache=IndexCache(cache_dir)))
    return list(report.steps)


def test_history_corpus_against_installed_release(tmp_path_factory):
    from infralens.source.cache import default_cache_dir

    rows = run_corpus(default_cache_dir())
    assert len(rows) >= 60
    assert {r[0] for r in rows} >= {"0.30.3", "0.36.0"}
    false_unchanged = [r for r in rows if r[2] == StepKind.UNCHANGED.value and r[1] != "unchanged"]
    wrong = [r for r in rows if r[1] != r[2]]
    confusion = Counter((r[1], r[2]) for r in rows)
    summary = f"{len(rows) - len(wrong)}/{len(rows)} right; confusion (expected, got): {dict(sorted(confusion.items()))}"
    print(summary)
    for release, want, got, statement, result in wrong:
        print(f"  {release} {want} -> {got}: {statement['text'][:90]!r} ({result.message})")
    assert not false_unchanged, summary
    assert (len(rows) - len(wrong)) / len(rows) >= 0.95, summary
    for _, want, got, statement, result in rows:
        if want == got == "moved" and statement.get("now", "").startswith(("diffusers.", "diffsynth.")):
            new_home = statement["now"].split(":")[0]
            assert f"{result.new.module}.{result.new.target}" == new_home, (statement["text"], result.new)


BENCHMARK = DATA / "drift_benchmark.yaml"


def test_drift_benchmark_meets_its_targets(tmp_path_factory):
    """The harder benchmark (diffusers 0.25.1–0.40.0 and diffsynth 2.0.0): ≥ 97% right, no false
    *unchanged*, at most 1% false *moved*, every move placed in the function the truth names."""
    rows = benchmark_rows(tmp_path_factory)  # run_corpus on BENCHMARK, shared with test_subset_determinism
    assert len(rows) >= 300 and len({r[0] for r in rows if not r[0].startswith("diffsynth")}) >= 6
    assert any(r[0].startswith("diffsynth==") for r in rows)
    wrong = [r for r in rows if r[1] != r[2]]
    summary = f"{len(rows) - len(wrong)}/{len(rows)} right; wrong: " + "; ".join(f"{r[0]} {r[1]}->{r[2]} {r[3]['text'][:60]!r}" for r in wrong)
    assert not [r for r in rows if r[2] == "unchanged" and r[1] != "unchanged"], summary
    assert sum(1 for r in rows if r[2] == "moved" and r[1] != "moved") <= 0.01 * len(rows), summary
    assert (len(rows) - len(wrong)) / len(rows) >= 0.97, summary
    for _, want, got, statement, result in rows:
        if want == got == "moved" and statement.get("now", "").startswith(("diffusers.", "diffsynth.")):
            assert f"{result.new.module}.{result.new.target}" == statement["now"].split(":")[0], (statement["text"], result.new)


UNTOUCHED = DATA / "drift_untouched.yaml"


def test_untouched_corpus_holds_its_safety_targets():
    """Corpus 1 (diffusers 0.31.0 -> 0.34.0, 0.33.1 -> 0.35.2, diffsynth 2.0.0 -> 2.1.12), held out until its misses
    were studied on 2026-11-25 (positional evidence came after; it counts as seen since): no false *unchanged*, at
    most 1% false *moved*, every move placed where the truth says, and accuracy kept at the figure measured then (95%)."""
    from infralens.source.cache import default_cache_dir

    rows = run_corpus(default_cache_dir(), UNTOUCHED)
    assert len(rows) >= 200
    wrong = [r for r in rows if r[1] != r[2]]
    summary = f"{len(rows) - len(wrong)}/{len(rows)} right; wrong: " + "; ".join(f"{r[0]} {r[1]}->{r[2]} {r[3]['text'][:60]!r}" for r in wrong)
    assert not [r for r in rows if r[2] == "unchanged" and r[1] != "unchanged"], summary
    assert sum(1 for r in rows if r[2] == "moved" and r[1] != "moved") <= 0.01 * len(rows), summary
    assert (len(rows) - len(wrong)) / len(rows) >= 0.95, summary
    for _, want, got, statement, result in rows:
        if want == got == "moved" and statement.get("now", "").startswith(("diffusers.", "diffsynth.")):
            assert f"{result.new.module}.{result.new.target}" == statement["now"].split(":")[0], (statement["text"], result.new)


def _parts(number: int) -> list[Path]:
    return [DATA / f"drift_untouched{number}_{part}.yaml" for part in ("a", "b")]


def _holds_its_figures(corpora: list[Path], *, rows_at_least: int, right_at_least: int, false_moved_at_most: int, false_unchanged_at_most: int = 0) -> None:
    """A held-out corpus in parts: its right rows, false *unchanged* (none unless measured) and false *moved* kept at the
    measured figures."""
    from infralens.source.cache import default_cache_dir

    rows = [row for corpus in corpora for row in run_corpus(default_cache_dir(), corpus)]
    assert len(rows) >= rows_at_least
    wrong = [r for r in rows if r[1] != r[2]]
    summary = f"{len(rows) - len(wrong)}/{len(rows)} right; wrong: " + "; ".join(f"{r[0]} {r[1]}->{r[2]} {r[3]['text'][:60]!r}" for r in wrong)
    assert sum(1 for r in rows if r[2] == "unchanged" and r[1] != "unchanged") <= false_unchanged_at_most, summary
    assert sum(1 for r in rows if r[2] == "moved" and r[1] != "moved") <= false_moved_at_most, summary
    assert len(rows) - len(wrong) >= right_at_least, summary


def test_untouched_corpus_2_keeps_its_first_measured_figures():
    """Corpus 2 (diffusers 0.32.2 -> 0.37.1, 0.34.0 -> 0.39.0, diffsynth 2.0.5 -> 2.1.12; truth written before the
    checker ran, and no rule may be tuned on it). Its one run on 2026-11-25 gave 235/249, 3 false *moved*; 240/249
    since the reviewed release is read. A guard against regressions, not the issue's targets (97%, at most 1% false
    *moved*), which it misses."""
    _holds_its_figures(_parts(2), rows_at_least=240, right_at_least=240, false_moved_at_most=2)


def test_corpus_3_keeps_its_figures():
    """Corpus 3 (diffusers 0.30.3 -> 0.33.1, 0.36.0 -> 0.41.0, diffsynth 2.1.0 -> 2.1.12; truth written before the checker
    ran). Its first run on 2026-11-25 gave 225/255; calls through ``super()`` and methods called on other objects were
    then followed (classes of misses it showed), 236/255 then; 240/255 once the reviewed release was read, and 236/255
    since a deleted target is no longer followed into new functions (a class renamed and moved, JoyAI's text encoder,
    is missed since: its class overlap, 0.23, is below what a renamed class needs). It counts as seen."""
    _holds_its_figures(_parts(3), rows_at_least=250, right_at_least=236, false_moved_at_most=0)


def test_untouched_corpus_4_keeps_its_first_measured_figures():
    """Corpus 4 (diffusers 0.28.2 -> 0.31.0, 0.35.2 -> 0.38.0, diffsynth 2.0.10 -> 2.1.5; truth written before the checker
    ran): its one run before its misses were read gave 219/258, 0 false *unchanged*, 9 false *moved* (one function whose
    identical twin already lived in another module, since told apart by reading the reviewed release). 252/258 since,
    so it counts as seen. A regression guard, not the issue's targets."""
    _holds_its_figures(_parts(4), rows_at_least=250, right_at_least=252, false_moved_at_most=0)


def test_corpus_5_keeps_its_figures():
    """Corpus 5 (diffusers 0.29.2 -> 0.32.2, 0.33.1 -> 0.36.0, 0.37.1 -> 0.42.1, diffsynth 2.0.8 -> 2.1.3; truth
    written before the checker ran). The matcher of the start of the session gave 240/284; its first run with the
    reviewed release read, 261/284 (1 false *unchanged*, 0 false *moved*). The target's own header and methods
    folded into their parameter's class came from its misses: 280/284 since, so it counts as seen."""
    _holds_its_figures(_parts(5), rows_at_least=280, right_at_least=280, false_moved_at_most=0)


def test_corpus_6_keeps_its_figures():
    """Corpus 6 (diffusers 0.26.3 -> 0.29.2, 0.27.2 -> 0.30.0, 0.38.0 -> 0.42.0, diffsynth 2.0.3 -> 2.1.8): the
    session's starting matcher gave 241/267, the first run 249/267 (2 false *unchanged*, 1 false *moved*). Renames
    with splits, methods turned module functions and contentless statements came from its misses: 260/267 since."""
    _holds_its_figures(_parts(6), rows_at_least=265, right_at_least=260, false_moved_at_most=0)


def test_corpus_7_keeps_its_figures():
    """Corpus 7 (diffusers 0.25.1 -> 0.28.2, 0.32.0 -> 0.35.1, 0.39.0 -> 0.42.1, diffsynth 2.1.1 -> 2.1.12): the
    session's starting matcher gave 245/269, the first run 249/269 (0 false *unchanged*, 0 false *moved*). Renames
    seen at the call sites came from its misses: 253/269 since."""
    _holds_its_figures(_parts(7), rows_at_least=265, right_at_least=253, false_moved_at_most=0)


def test_corpus_8_keeps_its_figures():
    """Corpus 8 (diffusers 0.28.2 -> 0.32.1, 0.33.0 -> 0.37.0, 0.40.0 -> 0.42.1, diffsynth 2.0.1 -> 2.1.9): the
    session's starting matcher gave 245/272 (12 false *moved*), the first run 260/272 (0 false *unchanged*, 4 false
    *moved*: a deleted target followed into new functions that copied it). Docstrings as part of the header, and
    deleted targets no longer followed into new functions, came from its misses: 264/272 since (265 before a bare
    ``else :`` needed its neighbours to be moved into a called function)."""
    _holds_its_figures(_parts(8), rows_at_least=270, right_at_least=264, false_moved_at_most=1)


def test_corpus_9_keeps_its_figures():
    """Corpus 9 (diffusers 0.27.2 -> 0.31.0, 0.34.0 -> 0.38.0, 0.36.0 -> 0.40.0, diffsynth 2.0.12 -> 2.1.6): the
    session's starting matcher gave 248/266 (2 false *moved*), the first run 254/266 (0 false *unchanged*, 2 false
    *moved*). A helper renamed in its class and its clones at once (renamed in its own class first), and bare
    ``else :`` found in a called function only with its neighbours, came from its misses: 265/266 since."""
    _holds_its_figures(_parts(9), rows_at_least=265, right_at_least=265, false_moved_at_most=0)


def test_untouched_corpus_10_keeps_its_first_measured_figures():
    """Corpus 10 (diffusers 0.25.1 -> 0.30.2, 0.30.0 -> 0.35.0, 0.41.0 -> 0.42.1, diffsynth 2.0.6 -> 2.1.10; functions
    chosen as they came in the diff; truth written before the checker ran). Run once, with the session's final
    matcher, nothing tuned on it: 256/266 (96.2%), 1 false *unchanged* (a bare ``else :`` whose copies swapped), 5 false
    *moved* (a deleted ``rope`` taken as moved to an edited copy in a new module). The session's starting matcher gave
    255/266 with the same errors. Its misses were read then (seen since): ``copied-not-moved`` (the copy's module is not
    where the target's callers went) made ``rope`` deleted, and a repeated statement's survivor goes to the step at its
    depth (the swapped ``else :``): 264/266, 0 false *unchanged*, 0 false *moved* since."""
    _holds_its_figures(_parts(10), rows_at_least=265, right_at_least=264, false_moved_at_most=0)


def test_untouched_corpus_11_keeps_its_first_measured_figures():
    """Corpus 11 (diffusers 0.26.3 -> 0.30.1, 0.29.2 -> 0.33.0, 0.35.1 -> 0.40.0, 0.37.0 -> 0.42.0, diffsynth 2.0.7 ->
    2.1.4 and 2.0.9 -> 2.1.11; functions chosen as they came in the diff; truth written and committed before the checker
    ran). Its one run, 2026-11-26, with the matcher of corpus 10's run: 252/255 (98.8%), 0 false *unchanged*, 0 false
    *moved*, the issue's targets met. Its misses were read then (seen since): a one-line ``if x: y = ...`` whose header
    step took its body's place in the one-to-one assignment was fixed, 253/255."""
    _holds_its_figures(_parts(11), rows_at_least=255, right_at_least=253, false_moved_at_most=0)


def test_untouched_corpus_12_keeps_its_first_measured_figures():
    """Corpus 12 (diffusers 0.28.2 -> 0.33.1, 0.31.0 -> 0.35.1, 0.36.0 -> 0.39.0, 0.38.0 -> 0.41.0, diffsynth 2.0.11 ->
    2.1.7 and 2.0.13 -> 2.1.9; files visited in a shuffled order; truth committed before the checker ran). Its one run,
    2026-11-26, with the session's final matcher: 258/260 (99.2%), 0 false *unchanged*, 0 false *moved*."""
    _holds_its_figures(_parts(12), rows_at_least=260, right_at_least=258, false_moved_at_most=0)


def test_untouched_corpus_13_keeps_its_first_measured_figures():
    """Corpus 13 (diffusers 0.26.3 -> 0.31.0, 0.32.2 -> 0.36.0, diffsynth 2.0.2 -> 2.1.2), written to sample changed
    statements: 132 of its 211 rows are not *unchanged*. Truth committed before the checker ran; its one run,
    2026-11-29: 186/211 (88.2%), on the rows not unchanged 107/132 (81.1%: moved 23/25, changed 67/85, deleted 17/22),
    3 false *unchanged* (two edits that only added parentheses, which the checker calls the same statement by rule
    `same-tree`, and a repeated `clear_lora` call), 5 false *moved*. 191/211 after issue 41's rules; 194/211 (moved
    25/25) since projections a processor hands to a helper's own helper are followed (helpers-of-helpers, set 16's
    misses). A regression guard; the issue's targets (95% on those rows, 90% recall a class, 0 false unchanged) are
    not met."""
    _holds_its_figures([DATA / "drift_untouched13.yaml"], rows_at_least=211, right_at_least=194, false_moved_at_most=1, false_unchanged_at_most=3)


def test_untouched_transformers_corpus_keeps_its_first_measured_figures():
    """A transformers corpus (4.46.3 -> 4.53.3, 4.53.3 -> 5.24.0: the LLaMA model, the caches, generation, masks,
    RoPE), 144 of 226 rows not *unchanged*; truth committed before the checker ran. Its one run, 2026-11-29: 185/226
    (81.9%), on the rows not unchanged 104/144 (72.2%: moved 2/10, changed 52/75, deleted 50/59), 0 false *unchanged*,
    8 false *moved*; the naive baseline 148/226. Seen since: 208/226 (renamed-to-alias, a call through a local,
    out-of-view, edited-in-reached), 1 false *moved*; 214/226 (per-object-edit, action-kept-in-reached: changed 67/75).
    A regression guard; the targets are not met."""
    _holds_its_figures([DATA / "drift_untouched_transformers.yaml"], rows_at_least=226, right_at_least=214, false_moved_at_most=1)


def test_untouched_corpus_14_keeps_its_first_measured_figures():
    """Corpus 14 (transformers 4.47.1 -> 4.51.3 -> 4.55.4 -> 5.24.0: assisted decoding, per-layer caches, GPT-2, Phi-3
    and BERT attention; diffusers 0.27.2 -> 0.33.1, 0.29.2 -> 0.37.0, 0.33.1 -> 0.41.0; DiffSynth 2.0.5 -> 2.1.9), 263 of
    340 rows not *unchanged*, written by a helper who read only upstream code and committed before the checker ran.
    Its one run, 2026-11-29, with the merged matcher of issue 41's second part: 240/340 (70.6%), on the rows not
    unchanged 164/263 (moved 61/82, changed 47/121, deleted 56/60), 1 false *unchanged*, 2 false *moved*; the naive
    baseline 152/340. Seen since: 249/340 (edited-in-reached), then 292/340 (same-role, edits-in-helpers, inherited
    owners' classes, an alias through a lookup, re-exported, moved-with-imports, moved-to-class: changed 82/121, moved
    78/82), then 301/340 (action-kept-in-reached, edits-in-wrappers: changed 91/121), then 302/340 (close-edit-in-helper:
    changed 92/121), then 303/340 (same-call: changed 93/121). A regression guard; the targets are not met."""
    _holds_its_figures([DATA / "drift_untouched14.yaml"], rows_at_least=340, right_at_least=303, false_moved_at_most=2, false_unchanged_at_most=1)


def test_untouched_corpus_15_keeps_its_first_measured_figures():
    """Corpus 15 (diffusers 0.30.1 -> 0.35.2 and 0.35.0 -> 0.42.0: pipeline and model loading split into helpers,
    LoRA scaling and PEFT checks moved into decorators; DiffSynth 2.0.7 -> 2.1.11), 139 of 191 rows not *unchanged*,
    written by a helper who read only upstream code and never ran the checker. First run, 2026-11-29, matcher of main
    before issue 41's same-role work: 171/191 (89.5%), on the rows not unchanged 119/139 (85.6%: moved 27/27, changed
    62/78, deleted 30/34), 0 false *unchanged*, 3 false *moved*; naive baseline 130/191 (78/139). Second run, after
    rules made without seeing it (same-role, edits-in-helpers, re-exported, moved-with-imports, moved-to-class):
    178/191 (93.2%), 126/139 (90.6%: changed 70/78, deleted 29/34), 3 false *moved*. Since (edits-in-wrappers): 181/191,
    129/139 (changed 72/78, deleted 30/34). A regression guard; the targets (95% on those rows, 90% recall a class, at
    most 1% false moved) are not met."""
    _holds_its_figures([DATA / "drift_untouched15.yaml"], rows_at_least=191, right_at_least=181, false_moved_at_most=3)


def test_untouched_transformers_corpus_15_keeps_its_first_measured_figures():
    """Transformers corpus 15 (4.48.3 -> 4.57.6 -> 5.10.4: _sample, per-layer caches, the LLaMA and Qwen2 models behind
    decorators, masks, RoPE), 161 of 198 rows not *unchanged*, truth by reading only. First run, 2026-11-29: 152/198
    (76.8%), on the rows not unchanged 115/161 (71.4%: moved 9/13, changed 57/95, deleted 49/53), 0 false *unchanged*,
    0 false *moved*; naive baseline 125/198 (88/161, but changed 77/95). Second run after the same-role rules (never
    tuned on it): 153/198, changed 58/95. Tuned on it since (issue 41, items 4-5): 165/198 (merged-into-alias: moved
    13/13; per-object-edit, edits-in-wrappers, action-kept-in-reached: 167/198, changed 68/95; decorator-replaced:
    168/198, changed 69/95). A regression guard; the targets are not met, and on *changed* rows the naive baseline
    still does better."""
    _holds_its_figures([DATA / "drift_untouched15_transformers.yaml"], rows_at_least=198, right_at_least=168, false_moved_at_most=0)


def test_untouched_corpus_16_keeps_its_first_measured_figures():
    """Set 16, written by a helper who read only upstream code and never ran the checker or read the matcher, on release
    pairs no other corpus uses: diffusers 0.34.0 -> 0.42.0 (group-offloading hooks, attention processors moved into
    model files or AttentionMixin), 0.29.0 -> 0.34.0 (PixArt checkpointing), DiffSynth 2.0.4 -> 2.1.12 (163 rows, 115 not
    *unchanged*); transformers 4.45.2 -> 4.50.3 (Mistral's SDPA and Flash classes folded into one attention) and
    4.53.2 -> 5.20.0 (continuous batching split into a package, sdpa attention, masks) (241 rows, 184 not *unchanged*).
    First run, 2026-11-29, with every rule of issue 41 in place: 147/163 (not unchanged 99/115: moved 26/30, changed
    58/67, deleted 15/18), 2 false *unchanged*, 0 false *moved*; transformers 181/241 (124/184: moved 32/51, changed
    35/74, deleted 57/59), 0 false *unchanged*, 11 false *moved*. Naive baseline 99/163 and 121/241 (changed 43/67 and
    33/74). Tuned on since (a module turned package, class-copied-not-renamed, folded-into-base, helpers-of-helpers,
    edit-with-neighbours, calls through lookup tables, a helper's def line): 154/163 (not unchanged 106/115: moved
    29/30, changed 62/67, deleted 15/18), 2 false *unchanged*, 0 false *moved*; transformers 220/241 (163/184: moved
    50/51, changed 58/74, deleted 55/59), 0 false *moved*. A regression guard; the targets (95% on the rows not
    unchanged, 90% recall a class) are not met on transformers' *changed* rows."""
    _holds_its_figures(
        [DATA / "drift_untouched16.yaml", DATA / "drift_untouched16_transformers.yaml"],
        rows_at_least=404,
        right_at_least=374,
        false_moved_at_most=0,
        false_unchanged_at_most=2,
    )


def test_untouched_corpus_17_keeps_its_first_measured_figures():
    """Set 17, written by a helper who read only upstream code and never ran the checker or read the matcher, on release
    pairs no other corpus uses: diffusers 0.31.0 -> 0.36.0 (LoRA text-encoder loading moved into lora_base and
    peft_utils helpers, the Flux ControlNet moved behind a deprecation shim, per-shard loading, single-file loading) and
    DiffSynth 2.0.14 -> 2.1.12 (the Flux2 VAE rewritten into renamed blocks) (164 rows, 138 not *unchanged*);
    transformers 4.48.3 -> 4.52.4 (from_pretrained split into helpers, _get_cache, beam search without BeamScorer) and
    4.51.3 -> 4.56.2 (classification heads moved to modeling_layers, OffloadedCache folded into the layered cache)
    (218 rows, 187 not *unchanged*). First run, 2026-11-29, with set 16's rules in place: 121/164 (not unchanged
    95/138: moved 35/41, changed 25/55, deleted 35/42), 0 false *unchanged*, 8 false *moved*; transformers 182/218
    (152/187: moved 72/72, changed 47/79, deleted 33/36), 1 false *unchanged*, 1 false *moved*. Naive baseline 87/164
    and 103/218 (changed 28/55 and 57/79: the baseline finds more *changed* rows than the checker on both). Tuned on
    since with rules ``close-edit-in-helper`` and ``class-renamed-at-users``: 134/164 (108/138: changed 38/55) and
    184/218 (154/187: changed 49/79), no row lost on any other corpus. Then with rules for rewrites that keep their role
    (renamed-throughout, same-call, decorator-replaced, nested-lifted, same-action's computed setattr): 135/164
    (109/138: changed 39/55) and 194/218 (164/187: changed 59/79, the baseline's 57/79 passed), again no row lost
    elsewhere. Set 21's shape read and set 22's class dropped by its module since (not tuned on this set): 139/164, 0
    false *moved* (the FLUX.2 VAE's ``AttnProcessor2_0`` no longer placed in ``boogu_image_dit``'s copy), and 195/218.
    A regression guard; the targets (95% on the rows not unchanged, 90% recall a class, 0 false *unchanged*) are still
    missed."""
    _holds_its_figures(
        [DATA / "drift_untouched17.yaml", DATA / "drift_untouched17_transformers.yaml"],
        rows_at_least=382,
        right_at_least=334,
        false_moved_at_most=1,
        false_unchanged_at_most=1,
    )


def test_untouched_corpus_18_keeps_its_first_measured_figures():
    """Set 18, written by a helper who read only upstream code and never ran the checker or read the matcher, on release
    pairs no other corpus uses: diffusers 0.30.2 -> 0.35.1 (rotary embeddings, EmbedND replaced by FluxPosEmbed, Flux
    latent ids), 0.33.0 -> 0.37.1 (Wan rotary embedding, LoRA scaling moved into a decorator, group offloading taking one
    config) and DiffSynth 2.0.15 -> 2.1.12 (the Flux2 VAE blocks replaced by renamed classes) (217 rows, 150 not
    *unchanged*); transformers 4.52.4 -> 5.2.0 (RoPE parameter helpers reading ``rope_parameters``, Qwen2 and Mistral
    decoder layers) and 4.50.3 -> 4.56.2 (QuantizedCache split into per-layer quantized layers) (160 rows, 110 not
    *unchanged*). First run, 2026-11-29, with set 17's rules in place and no rule tuned on it: 196/217 (not unchanged
    129/150: moved 27/29, changed 39/55, deleted 63/66), 0 false *unchanged*, 2 false *moved*; transformers 134/160
    (84/110: moved 14/16, changed 42/63, deleted 28/31), 0 false *unchanged*, 1 false *moved*. Naive baseline 146/217
    and 98/160 (changed 40/55 and 44/63: the baseline finds one and two more *changed* rows). Tuned on since with
    ``class-renamed-with-users`` (DiffSynth's Flux2 VAE classes renamed with the blocks that build them): 204/217 (137/150:
    moved 29/29, changed 47/55, deleted 61/66), 3 false *moved*: one more, an early ``return self . conv ( hidden_states )``
    whose identical text ends the renamed class's forward, which the truth calls deleted. Then with ``moved-to-built-class``
    (``HQQQuantizedCache._quantize`` continues in ``HQQQuantizedLayer._quantize``, which ``QuantizedCache`` now selects):
    transformers 139/160 (89/110: moved 16/16, changed 45/63); and with the ``__init__`` of a built class (and of its
    base, through ``super().__init__``) searched for edits (``QuantizedCache.__init__``'s settings, now stored by
    ``QuantizedLayer.__init__``): 144/160 (94/110: changed 50/63). No row lost on any other corpus, false *moved*
    unchanged everywhere. A regression guard; the targets (95% on the rows not unchanged, 90% recall a class) are missed on
    transformers' *changed*."""
    _holds_its_figures(
        [DATA / "drift_untouched18.yaml", DATA / "drift_untouched18_transformers.yaml"],
        rows_at_least=377,
        right_at_least=348,
        false_moved_at_most=4,
        false_unchanged_at_most=0,
    )


def test_untouched_corpus_19_keeps_its_first_measured_figures():
    """Set 19, written by a helper who read only upstream code and never ran the checker or read the matcher, on release
    pairs no other corpus uses: diffusers 0.28.2 -> 0.34.0 (``LoraLoaderMixin``'s methods now on ``LoraBaseMixin`` or
    module functions of ``lora_base``), 0.32.2 -> 0.38.0 (Flux transformer blocks, the flow-matching Euler step) and
    DiffSynth 2.0.4 -> 2.1.12 (the Flux2 VAE's encoder and resnet block renamed) (197 rows, 163 not *unchanged*);
    transformers 4.46.3 -> 4.51.3 (LLaMA's SDPA and flash-attention classes folded into ``LlamaAttention`` and the
    attention functions) and 4.56.2 -> 5.2.0 (sliding-window and chunked masks, the static sliding-window layer, min-p,
    flash attention's dtype helper) (180 rows, 133 not *unchanged*). First run, 2026-11-30, with set 18's rules in place
    and nothing tuned on it: 160/197 (not unchanged 126/163: moved 54/58, changed 26/55, deleted 46/50), 0 false
    *unchanged*, 10 false *moved*; transformers 143/180 (96/133: moved 33/33, changed 45/77, deleted 18/23), 0 false
    *unchanged*, 31 false *moved* (LLaMA's removed attention classes taken as renamed to another model's copies). Naive
    baseline 93/197 (changed 17/55) and 96/180 (changed 38/77). Tuned on since with ``class-copied-not-renamed`` widened
    to methods of a class gone from a module that never names the clone's (LLaMA's classes fold into ``LlamaAttention``
    instead) and to same-named clones beside a class renamed in place (DiffSynth's ``Encoder``): 167/197 (133/163: moved
    54/58, changed 33/55, deleted 46/50), 3 false *moved*; transformers 154/180 (107/133: moved 29/33, changed 56/77,
    deleted 22/23), 1 false *moved*. No row changed on any other corpus. Set 21's rules since (not tuned on this set):
    168/197 (a block no longer taken to a same-named copy of its class) and transformers 160/180 (LLaMA's SDPA and flash
    attention statements rewritten in the registry's new ``sdpa_attention_forward`` and ``flash_attention_forward``),
    then 162/180 (LLaMA's ``bsz , q_len , _ = hidden_states . size ( )`` read as the shape read it became). A regression
    guard; the targets are missed."""
    _holds_its_figures(
        [DATA / "drift_untouched19.yaml", DATA / "drift_untouched19_transformers.yaml"],
        rows_at_least=377,
        right_at_least=330,
        false_moved_at_most=4,
        false_unchanged_at_most=0,
    )


def test_untouched_corpus_20_keeps_its_first_measured_figures():
    """Set 20, written by a helper who read only upstream code and never ran the checker or read the matcher, on release
    pairs no other corpus uses: diffusers 0.26.3 -> 0.33.0 (``load_attn_procs`` split into ``_process_lora`` and
    ``_process_custom_diffusion``, ``DiffusionPipeline.download`` into helpers), 0.31.0 -> 0.39.0 (AuraFlow's forward,
    CogVideoX's LoRA loading now ``PeftAdapterMixin.load_lora_adapter``) and DiffSynth 2.0.3 -> 2.1.11 (``model_fn_wans2v``,
    ``load_model``, ``fp8_linear``, ``Flux2Attention``) (212 rows, 179 not *unchanged*); transformers 4.47.1 -> 4.55.4
    (LLaMA's model, decoder layer, attention and rotary embedding, RoPE initialisers) and 4.57.6 -> 5.20.0
    (``load_state_dict``, ``_get_dtype``, ``delete_adapter``, the bitsandbytes linear replacement) (199 rows, 165 not
    *unchanged*). First run, 2026-11-30, with set 19's rules in place and nothing tuned on it: 183/212 (not unchanged
    150/179: moved 61/68, changed 32/53, deleted 57/58), 0 false *unchanged*, 0 false *moved*; transformers 181/199
    (147/165: moved 13/14, changed 42/57, deleted 92/94), 0 false *unchanged*, 0 false *moved*. Naive baseline 86/212
    (changed 53/53) and 93/199 (changed 50/57). Tuned on since (a called function re-exported through a star import,
    a helper that only forwards followed into any module, an edit in the only class defining a method called on another
    object, ``inlined-into-caller``; no row changed on any other corpus): 196/212 (163/179: moved 68/68, changed 38/53,
    deleted 57/58); transformers 186/199 (152/165: moved 13/14, changed 47/57, deleted 92/94); 0 false *unchanged*, 0
    false *moved*. Set 21's shape read since: transformers 187/199. A regression guard; the targets are missed on
    *changed*."""
    _holds_its_figures(
        [DATA / "drift_untouched20.yaml", DATA / "drift_untouched20_transformers.yaml"],
        rows_at_least=411,
        right_at_least=383,
        false_moved_at_most=0,
        false_unchanged_at_most=0,
    )


def test_untouched_corpus_21_keeps_its_first_measured_figures():
    """Set 21, written by a helper who read only upstream code and never ran the checker or read the matcher, on release
    pairs no other corpus uses: DiffSynth 2.0.6 -> 2.1.12 (the FLUX.2 VAE rewritten into ``Flux2VAE*`` classes), diffusers
    0.32.1 -> 0.37.0, 0.29.0 -> 0.35.2 and 0.30.3 -> 0.36.0 (attention-processor plumbing now inherited from
    ``AttentionMixin``, the motion UNet's up block moved and checkpointed through ``_gradient_checkpointing_func``, Flux's
    block forward) (145 rows, 128 not *unchanged*); transformers 4.55.4 -> 5.10.4 (Mixtral and Qwen2-MoE routing split into
    router and experts modules), 4.52.4 -> 4.56.2 (hybrid-chunked and quantized caches rebuilt from per-layer objects),
    4.45.2 -> 4.53.2 (Phi's attention onto ``eager_attention_forward``, its SDPA class removed) and 4.50.3 -> 4.57.6
    (Qwen2-MoE heads now the generic ones) (216 rows, 200 not *unchanged*). First run, 2026-11-30, with set 20's rules in
    place and nothing tuned on it: 123/145 (not unchanged 106/128: moved 53/53, changed 25/29, deleted 28/46), 0 false
    *unchanged*, 21 false *moved*; transformers 146/216 (130/200: moved 60/73, changed 37/93, deleted 33/34), 0 false
    *unchanged*, 1 false *moved*. Naive baseline 61/145 (changed 5/29) and 85/216 (changed 46/93). Tuned on since (a
    module the target's class newly holds and calls, ``instance-called``; a helper gone into the per-layer class its user
    now hands the call to, ``helper-to-built-class``; a registry object's functions new since the review as edit homes;
    no block moved into a same-named copy of the target's class): 137/145 (120/128: moved 53/53, changed 27/29, deleted
    40/46), 7 false *moved*; transformers 183/216 (167/200: moved 67/73, changed 67/93, deleted 33/34), 1 false *moved*.
    No row lost on any other corpus (set 19 gained 7). Then a read of a tensor's shape as a role: transformers 185/216
    (changed 69/93). Then set 22's rule (a class its module used at the review and names no more was replaced there, not
    moved to a same-named copy): 138/145 (121/128: moved 50/53, changed 25/29, deleted 46/46), 0 false *moved*. A
    regression guard; the targets are missed."""
    _holds_its_figures(
        [DATA / "drift_untouched21.yaml", DATA / "drift_untouched21_transformers.yaml"],
        rows_at_least=361,
        right_at_least=323,
        false_moved_at_most=1,
        false_unchanged_at_most=0,
    )


def test_untouched_corpus_22_keeps_its_first_measured_figures():
    """Set 22, written by a helper who read only upstream code and never ran the checker or read the matcher, on cached
    releases in pairs no other corpus uses: DiffSynth 2.0.0 -> 2.1.12 (the FLUX.2 VAE's attention, up/down samplers and
    up block replaced by ``Flux2VAE*`` classes), 2.0.2 -> 2.1.12 and 2.0.8 -> 2.1.10, diffusers 0.32.0 -> 0.36.0 (LTX,
    HunyuanVideo and Sana models, LTX's processor now a shim onto ``dispatch_attention_fn``) and 0.30.0 -> 0.34.0 (the
    ControlNet's forward, now inherited from ``models.controlnets``) (203 rows, 173 not *unchanged*); transformers
    4.46.3 -> 4.57.6 (Cohere's attention, its SDPA class removed), 4.47.1 -> 5.2.0 (Starcoder2), 4.45.2 -> 4.48.3
    (Gemma2) and 4.48.3 -> 4.55.4 (GPT-NeoX) (181 rows, 149 not *unchanged*). First run, 2026-11-30, with set 21's rules
    in place and nothing tuned on it: 176/203 (not unchanged 146/173: moved 51/51, changed 55/61, deleted 40/61), 0 false
    *unchanged*, 21 false *moved*; transformers 165/181 (133/149: moved 24/27, changed 58/71, deleted 51/51), 0 false
    *unchanged*, 0 false *moved*. Naive baseline 114/203 (changed 43/61) and 94/181 (changed 54/71). Tuned on since with
    ``class-copied-not-renamed`` widened (a class its module used at the review and names no more was replaced there,
    not moved to a same-named copy elsewhere): 188/203 (158/173: moved 47/51, changed 52/61, deleted 59/61), 0 false
    *moved*. A regression guard; the targets are missed (*changed* on transformers)."""
    _holds_its_figures(
        [DATA / "drift_untouched22.yaml", DATA / "drift_untouched22_transformers.yaml"],
        rows_at_least=384,
        right_at_least=353,
        false_moved_at_most=0,
        false_unchanged_at_most=0,
    )
