"""Generated fixture folders kept between test sessions, written once and atomically.

`cached_folder(cache, name, write, module, key)` returns `cache/NAME-DIGEST`, where the
digest covers the writing module's text and `key` (a change to either writes a new
folder). A missing folder is written aside and moved into place whole, so a session
never reads a half-written folder of another session running beside it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


def cached_folder(
    cache: Path, name: str, write: Callable[[Path], object], module: str, key: str = ""
) -> Path:
    digest = hashlib.sha256(Path(module).read_bytes() + key.encode()).hexdigest()
    root = cache / f"{name}-{digest[:12]}"
    if not root.exists():
        cache.mkdir(parents=True, exist_ok=True)
        aside = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=cache))
        write(aside)
        try:
            os.replace(aside, root)
        except OSError:  # another session moved its copy into place first
            shutil.rmtree(aside, ignore_errors=True)
    return root
