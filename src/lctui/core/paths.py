"""Where lctui keeps its files: the default database and caches (XDG directories)."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    base = os.environ.get("LCTUI_DATA_DIR") or os.environ.get("XDG_DATA_HOME")
    root = Path(base) if base else Path.home() / ".local" / "share"
    return root if os.environ.get("LCTUI_DATA_DIR") else root / "lctui"


def cache_dir() -> Path:
    base = os.environ.get("LCTUI_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base else Path.home() / ".cache"
    return root if os.environ.get("LCTUI_CACHE_DIR") else root / "lctui"


def default_db_path() -> Path:
    return data_dir() / "lctui.duckdb"
