"""Stable content hashes for ids and keys (same input, same id, on every machine)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _utf8(text: str) -> bytes:
    # surrogatepass: text from outside may hold a lone surrogate (JSON's "\ud800"), which
    # strict UTF-8 refuses; every other text encodes as before, so ids do not change.
    return text.encode("utf-8", "surrogatepass")


def stable_hash(*parts: Any, length: int = 16) -> str:
    """Hex digest of the canonical JSON of `parts`."""
    digest = hashlib.blake2b(_utf8(canonical_json(list(parts))), digest_size=16)
    return digest.hexdigest()[:length]


def seed_from(*parts: Any) -> int:
    """A 63-bit integer seed derived from `parts`, for `random.Random`."""
    digest = hashlib.blake2b(_utf8(canonical_json(list(parts))), digest_size=8)
    return int.from_bytes(digest.digest(), "big") >> 1
