"""Against the pinned real diffusers 0.42.1 and diffsynth 2.1.12 (read statically, never imported)."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

from infralens.cli import main
from infralens.project import find_project, load_annotations
from infralens.render.terminal import paragraphs
from infralens.resolve.resolver import Resolver
from infralens.source.cache import IndexCache

ROOT = Path(__file__).resolve().parents[2]
DDIM_STEP = "diffusers.schedulers.scheduling_ddim.DDIMScheduler.step"

pytestmark = pytest.mark.skipif(metadata.version("diffusers") != "0.42.1", reason="integration tests read the pinned diffusers 0.42.1")


@pytest.fixture(scope="module")
def cache_dir():
    """The user's index cache, shared with the docs build and the drift guards of the same run: entries are keyed by
    the file's content and the indexing code, so a real file parsed by any of them is a hit here."""
    from infralens.source.cache import default_cache_dir

    return default_cache_dir()


@pytest.fixture(autouse=True)
def isolated_cache(monkeypatch, cache_dir):
    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(cache_dir))


@pytest.fixture(scope="module")
def resolver(cache_dir):
    return Resolver(cache=IndexCache(cache_dir))


def test_ddim_step_resolves_to_lines_384_to_514(resolver):
    target = resolver.resolve_target("diffusers", DDIM_STEP)
    assert target.source.relpath == "diffusers/schedulers/scheduling_ddim.py"
    assert (target.definition.start_line, target.definition.end_line) == (384, 514)
    assert target.source.version == "0.42.1"


def test_show_ddim_step_prints_real_lines_and_notes_beside_them(resolver, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["show", DDIM_STEP, "--color", "never", "--width", "180"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "diffusers 0.42.1 · diffusers/schedulers/scheduling_ddim.py:384-514 · function DDIMScheduler.step"
    numbered = [int(m.group(1)) for line in out if (m := re.match(r"^\s*(\d+)[ ▶]│", line))]
    assert numbered == list(range(384, 515))
    real = resolver.source_file(resolver.tree("diffusers"), "diffusers/schedulers/scheduling_ddim.py").lines
    assert out[1].startswith("384 │ " + real[383])

    loaded = load_annotations(find_project(ROOT))
    mine = [a for a in loaded.annotations if a.target == DDIM_STEP]
    assert mine, "the project annotates DDIMScheduler.step"
    checked = 0
    for annotation in mine:
        resolved, problems = resolver.resolve_annotation(annotation)
        assert resolved is not None, problems
        for step in resolved.steps:
            first_line = step.anchor_lines[0]
            at = next(i for i, line in enumerate(out) if re.match(rf"^\s*{first_line}▶│", line))
            following = out[at : at + 1 + next((k for k, line in enumerate(out[at + 1 :]) if re.match(r"^\s*\d+[ ▶]│", line)), len(out))]
            first_word = paragraphs(step.step.note)[0].split()[0]
            assert any(f"◀ {first_word}" in line for line in following), (first_line, first_word)
            checked += 1
    assert checked >= 5


def test_locate_ddim_step(capsys):
    assert main(["locate", "DDIMScheduler.step"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "diffusers/schedulers/scheduling_ddim.py:384-514: function diffusers.schedulers.scheduling_ddim.DDIMScheduler.step" in lines


def test_diffsynth_flow_match_step(resolver):
    target = resolver.resolve_target("diffsynth", "diffsynth.diffusion.flow_match.FlowMatchScheduler.step")
    assert target.source.version == "2.1.12"
    assert (target.definition.start_line, target.definition.end_line) == (437, 447)


def test_every_project_annotation_validates(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code = main(["validate"])
    out, err = capsys.readouterr()
    assert code == 0, err
    count = int(re.match(r"validated (\d+) annotations", out).group(1))
    assert count >= 4 and "0 errors" in out
