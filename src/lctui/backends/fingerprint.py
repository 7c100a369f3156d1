"""Content identities of checkpoints, cheap enough to compute on every load.

A fingerprint must tell two checkpoints of one model apart and give the same value
for the same checkpoint reloaded, copied or moved to another machine, so it reads
the files' bytes (sampled, for weights) instead of paths or modification times.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lctui.core.hashing import stable_hash

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")
# Small files that change the prompt or the decoding; hashed whole.
_SMALL_FILES = (
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "tokenizer.model",
    "special_tokens_map.json",
    "chat_template.jinja",
    "chat_template.json",
)
# Written by save_pretrained from the environment, not from the model.
_VOLATILE_KEYS = frozenset(
    {
        "transformers_version",
        "_name_or_path",
        "name_or_path",
        "_commit_hash",
        "is_local",
        "local_files_only",
    }
)
_SAMPLE_BYTES = 1 << 16
_SAMPLES = 5


def file_sample_hash(path: Path) -> str:
    """Hash of a file's size and a few evenly spaced blocks of its bytes.

    Trained checkpoints differ in nearly every weight, so a few 64 KiB samples
    separate them while reading a 10 GB shard costs only milliseconds.
    """
    size = path.stat().st_size
    digest = hashlib.blake2b(str(size).encode(), digest_size=16)
    with path.open("rb") as handle:
        if size <= _SAMPLE_BYTES * _SAMPLES:
            digest.update(handle.read())
        else:
            last = size - _SAMPLE_BYTES
            for i in range(_SAMPLES):
                handle.seek(last * i // (_SAMPLES - 1))
                digest.update(handle.read(_SAMPLE_BYTES))
    return digest.hexdigest()


def _small_file_hash(path: Path) -> str:
    """Whole-content hash; JSON without the keys that name the saving environment."""
    data = path.read_bytes()
    if path.suffix == ".json":
        try:
            value = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            value = None
        if isinstance(value, dict):
            return stable_hash({k: v for k, v in value.items() if k not in _VOLATILE_KEYS})
    return hashlib.blake2b(data).hexdigest()


def checkpoint_identity(path: Path) -> str:
    """Identity of a checkpoint directory or a single weights file (such as a .gguf)."""
    if path.is_file():
        return stable_hash("file", file_sample_hash(path))
    parts: list[tuple[str, str]] = []
    for entry in sorted(path.iterdir()):
        if not entry.is_file():
            continue
        if entry.name in _SMALL_FILES:
            parts.append((entry.name, _small_file_hash(entry)))
        elif entry.suffix in _WEIGHT_SUFFIXES:
            parts.append((entry.name, file_sample_hash(entry)))
    return stable_hash("dir", parts)
