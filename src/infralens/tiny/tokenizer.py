"""An offline CLIP tokenizer: character-level BPE vocabulary, no merges, no download.

diffusers' own tests load ``hf-internal-testing/tiny-random-clip`` from the hub; this builds an
equivalent ``CLIPTokenizer`` from a two-file vocabulary written once into the InfraLens cache. Every
character of the prompt becomes one token (ids < 100), which suits a text encoder with
``vocab_size=1000``.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from infralens.cachedir import cache_root

_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789.,!?'-"
_VOCAB_DIR: Path | None = None


def _vocab_files() -> dict[str, str]:
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    for char in _ALPHABET:
        vocab.setdefault(char, len(vocab))
        vocab.setdefault(char + "</w>", len(vocab))
    return {"vocab.json": json.dumps(vocab), "merges.txt": "#version: 0.2\n"}


def _vocab_dir() -> Path:
    """The vocabulary folder: one fixed folder in the InfraLens cache, written once (atomically), reused after."""
    global _VOCAB_DIR
    if _VOCAB_DIR is None or not (_VOCAB_DIR / "vocab.json").exists():
        folder = Path(cache_root()) / "tiny-tokenizer-v1"
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in _vocab_files().items():
            path = folder / name
            if path.is_file() and path.read_text("utf-8") == text:
                continue
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, prefix=f".{name}.", delete=False) as handle:
                handle.write(text)
            os.replace(handle.name, path)  # concurrent workers each write the same bytes; last one wins
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
