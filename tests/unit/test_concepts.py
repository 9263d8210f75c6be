"""The concept map loader: well-formed pairs come back in file order; every problem names its line."""

from __future__ import annotations

from pathlib import Path

from infralens.annotations import load_concepts

PROSE = "word " * 30
PAIR = ("diffusers", "diffsynth")
"""The two distributions the concept maps below name (a project's list)."""

GOOD = f"""\
- pair: ddim-step
  title: One DDIM step
  lab: 02-denoising-step
  diffusers: diffusers.schedulers.scheduling_ddim.DDIMScheduler.step
  diffsynth: diffsynth.diffusion.ddim_scheduler.DDIMScheduler.step
  same: {PROSE}
  differs: {PROSE}
  read-first: Read diffsynth first.
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "concepts.yaml"
    path.write_text(text, "utf-8")
    return path


def test_a_well_formed_pair_loads_with_its_line(tmp_path):
    loaded = load_concepts(_write(tmp_path, GOOD), "labs/concepts.yaml", PAIR)
    assert not loaded.diagnostics
    (pair,) = loaded.pairs
    assert pair.slug == "ddim-step" and pair.lab == "02-denoising-step" and pair.location.line == 1
    diffusers, diffsynth = pair.targets
    assert pair.distributions == ("diffusers", "diffsynth")
    assert pair.other(diffusers) == diffsynth and pair.other("x.y") is None
    assert loaded.partners(diffsynth) == [(pair, diffusers)]


def test_a_missing_file_is_an_empty_map(tmp_path):
    loaded = load_concepts(tmp_path / "nope.yaml", None, PAIR)
    assert loaded.pairs == () and loaded.diagnostics == ()


def test_labels_instead_of_paragraphs_are_refused_at_their_line(tmp_path):
    text = GOOD.replace(f"  same: {PROSE}", "  same: both step")
    loaded = load_concepts(_write(tmp_path, text), "labs/concepts.yaml", PAIR)
    assert loaded.pairs == ()
    (problem,) = loaded.diagnostics
    assert problem.location.path == "labs/concepts.yaml" and problem.location.line == 6
    assert "same: 2 words is a label" in problem.message


def test_missing_keys_unknown_keys_bad_targets_and_duplicates_each_get_a_diagnostic(tmp_path):
    text = (
        GOOD
        + GOOD.replace("diffusers.schedulers.scheduling_ddim", "diffusers schedulers").replace("ddim-step", "other")
        + GOOD.replace("  lab: 02-denoising-step\n", "  labs: x\n")
        + GOOD
        + "- pair: bare\n  title: t\n"
        + "- just a string\n"
    )
    loaded = load_concepts(_write(tmp_path, text), "c.yaml", PAIR)
    assert [p.slug for p in loaded.pairs] == ["ddim-step"]
    messages = [(d.location.line, d.message) for d in loaded.diagnostics]
    assert any(line == 12 and "diffusers: 'diffusers schedulers.DDIMScheduler.step' is not a dotted path" in m for line, m in messages)
    assert any(line == 19 and "unknown key 'labs'" in m for line, m in messages)
    assert any(line == 25 and "defined twice (first at line 1)" in m for line, m in messages)
    assert any(line == 33 and "missing diffusers, diffsynth, same, differs, read-first" in m for line, m in messages)
    assert any(line == 35 and "must be a mapping" in m for line, m in messages)


def test_yaml_errors_and_a_non_list_document_are_diagnostics_not_tracebacks(tmp_path):
    broken = load_concepts(_write(tmp_path, "- pair: [unclosed\n"), "c.yaml", PAIR)
    assert broken.pairs == () and broken.diagnostics[0].code == "yaml"
    mapping = load_concepts(_write(tmp_path, "pair: x\n"), "c.yaml", PAIR)
    assert "must be a list of pairs" in mapping.diagnostics[0].message


def test_the_projects_concept_map_is_clean():
    root = Path(__file__).resolve().parents[2]
    loaded = load_concepts(root / "labs" / "concepts.yaml", "labs/concepts.yaml", PAIR)
    assert not loaded.diagnostics, "\n".join(map(str, loaded.diagnostics))
    assert len(loaded.pairs) >= 20
