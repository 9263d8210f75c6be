"""infralens.tiny: the offline tokenizer, device choice, and DiffSynth's two loading modes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _device import requires_torch

pytestmark = [requires_torch]


def test_the_tokenizer_vocabulary_lives_in_the_cache_not_in_new_temp_folders(tmp_path, monkeypatch):
    import tempfile

    from infralens.tiny import tokenizer

    monkeypatch.setenv("INFRALENS_CACHE_DIR", str(tmp_path / "cache"))
    before = set(Path(tempfile.gettempdir()).glob("infralens-tokenizer-*"))
    folder = tokenizer._vocab_dir()
    written = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert tokenizer._vocab_dir() == folder and folder.is_relative_to(tmp_path / "cache")
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == written  # the second call finds them and writes nothing
    assert set(Path(tempfile.gettempdir()).glob("infralens-tokenizer-*")) <= before
    assert sorted(p.name for p in folder.iterdir()) == ["merges.txt", "vocab.json"]


def test_tokenizer_is_offline_and_character_level():
    from infralens.tiny import tiny_clip_tokenizer

    tokenizer = tiny_clip_tokenizer(max_length=12)
    ids = tokenizer("a cat", padding="max_length", max_length=12, truncation=True).input_ids
    assert ids[0] == 0 and len(ids) == 12
    assert ids[1:5] != ids[5:9] and 1 in ids  # one token per character, then eos/pad (id 1)


def test_pick_device_sets_one_thread_on_cpu_and_rejects_unknown_names():
    import torch

    from infralens.tiny import pick_device

    assert pick_device("cpu") == "cpu" and torch.get_num_threads() == 1
    with pytest.raises(ValueError, match="unknown device"):
        pick_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device"):
            pick_device("cuda")


@pytest.mark.gpu
def test_pick_device_runs_cuda_in_true_float32():
    """TF32 convolutions moved tiny-model outputs by ~6e-4 on an H200 and broke claims written to 1e-4."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    from infralens.tiny import pick_device

    torch.backends.cudnn.allow_tf32 = True
    assert pick_device("cuda") == "cuda"
    assert torch.backends.cudnn.allow_tf32 is False and torch.backends.cuda.matmul.allow_tf32 is False


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300)


def test_path_based_loading_runs_one_file_and_refuses_the_full_package_afterwards():
    done = _run(
        "import sys; from infralens.tiny import load_diffsynth_module, import_full_diffsynth\n"
        "fm = load_diffsynth_module('diffsynth.diffusion.flow_match')\n"
        "s = fm.FlowMatchScheduler('FLUX.1'); s.set_timesteps(4)\n"
        "print([round(float(x), 4) for x in s.sigmas], 'diffsynth.core' in sys.modules, 'torchvision' in sys.modules)\n"
        "try:\n    import_full_diffsynth()\nexcept Exception as e:\n    print(type(e).__name__, e)"
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.strip().splitlines()
    assert first == "[1.0, 0.8577, 0.6022, 0.0089] False False"
    assert second.startswith("DiffSynthModeError") and "fresh process" in second
