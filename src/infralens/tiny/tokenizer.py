"""An offline CLIP tokenizer: character-level BPE vocabulary, no merges, no download.

diffusers' own tests load ``hf-internal-testing/tiny-random-clip`` from the hub; this builds an
equivalent ``CLIPTokenizer`` from a two-file vocabulary written to a temporary folder. Every
character of the prompt becomes one token (ids < 100), which suits a text encoder with
``vocab_size=1000``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789.,!?'-"
_VOCAB_DIR: Path | None = None


def _vocab_dir() -> Path:
    global _VOCAB_DIR
    if _VOCAB_DIR is None or not (_VOCAB_DIR / "vocab.json").exists():
        folder = Path(tempfile.mkdtemp(prefix="infralens-tokenizer-"))
        vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
        for char in _ALPHABET:
            vocab.setdefault(char, len(vocab))
            vocab.setdefault(char + "</w>", len(vocab))
        (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
        (folder / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
        _VOCAB_DIR = folder
    return _VOCAB_DIR


def tiny_clip_tokenizer(max_length: int = 77):
    """A ``transformers.CLIPTokenizer`` (bos 0, eos/pad 1) that needs no network."""
    from transformers import CLIPTokenizer

    folder = _vocab_dir()
    return CLIPTokenizer(
        str(folder / "vocab.json"),
        str(folder / "merges.txt"),
        model_max_length=max_length,
        pad_token="<|endoftext|>",
    )
