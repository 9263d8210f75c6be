"""The one content-hash helper: SHA-256 hex digests of text, bytes and files (no pathlib: the warm check uses it).

Text is encoded as UTF-8 with ``surrogatepass``, so any ``str`` (even one holding a lone surrogate
decoded from a damaged file) hashes without an error and equal texts always give equal digests.
"""

from __future__ import annotations

import hashlib
import os

_CHUNK = 1 << 20


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of *data*."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """Hex SHA-256 of *text* as UTF-8 (lone surrogates kept, never an error)."""
    return sha256_bytes(text.encode("utf-8", "surrogatepass"))


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
