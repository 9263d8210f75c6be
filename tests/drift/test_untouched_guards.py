"""Guards of the corpora written untouched to sample changed statements (sets 13 to 17; sets 18 on are in
:mod:`test_untouched_guards_recent`): each keeps the figures its first run, and the rules made on its misses since,
measured.

They live beside :mod:`test_history_corpus`, whose runner they use, in a file of their own so that the test workers
(``--dist loadfile``) can run them beside the other corpus guards instead of after them.
"""

from __future__ import annotations

import pytest
from test_history_corpus import DATA, _holds_its_figures

pytestmark = [pytest.mark.network, pytest.mark.slow]


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
    changed 92/121), then 303/340 (same-call: changed 93/121). A regression guard; the targets are not met.
    Since 2026-11-30 a *moved* row placed in another function than its truth names counts as wrong and as a false
    *moved*: 2 row(s) here (309 right, 3 false *moved* counted so)."""
    _holds_its_figures([DATA / "drift_untouched14.yaml"], rows_at_least=340, right_at_least=303, false_moved_at_most=3, false_unchanged_at_most=1)


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
    unchanged, 90% recall a class) are not met on transformers' *changed* rows.
    Since 2026-11-30 a *moved* row placed in another function than its truth names counts as wrong and as a false
    *moved*: 1 row(s) here (382 right, 1 false *moved* counted so)."""
    _holds_its_figures(
        [DATA / "drift_untouched16.yaml", DATA / "drift_untouched16_transformers.yaml"],
        rows_at_least=404,
        right_at_least=374,
        false_moved_at_most=1,
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
