"""An offline CLIP tokenizer: character-level BPE vocabulary, no merges, no download.

diffusers' own tests load ``hf-internal-testing/tiny-random-clip`` from the hub; this builds an
equivalent ``CLIPTokenizer`` from a two-file vocabulary written once into the InfraLens cache. Every
character of the prompt becomes one token (ids < 100), which suits a text encoder with
``vocab_size=1000``.
"""

from __future__ import annotations

import json
from pathlib import Path

from infralens.atomic import write_text
from infralens.cachedir import cache_root

_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789.,!?'-"


def _vocab_files() -> dict[str, str]:
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    for char in _ALPHABET:
        vocab.setdefault(char, len(vocab))
        vocab.setdefault(char + "</w>", len(vocab))
    return {"vocab.json": json.dumps(vocab), "merges.txt": "#version: 0.2\n"}


def _vocab_dir() -> Path:
    """The vocabulary folder: one fixed folder in the InfraLens cache, its files written (atomically) when missing or
    different. Concurrent workers each write the same bytes; whichever replace lands last, the files are whole."""
    folder = Path(cache_root()) / "tiny-tokenizer-v1"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in _vocab_files().items():
        path = folder / name
        if not (path.is_file() and path.read_text("utf-8") == text):
            write_text(path, text)
    return folder


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
