"""Files lctui ships beside its code: the TUI's themes and the sample runs that an empty
database gets on first launch.

They are package data, found through `importlib.resources`, so an installed wheel has
them as a checkout does (pyproject.toml's package-data lists them).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def themes_dir() -> Path:
    """The shipped theme files (`*.toml`, Textual Theme fields)."""
    return _on_disk("themes")


def sample_runs_dir() -> Path:
    """The shipped sample runs: one folder of Parquet files (`lctui export`) per run set."""
    return _on_disk("sample_runs")


def _on_disk(name: str) -> Path:
    # DuckDB reads the sample runs by file name, so the folder must be a real one; pip
    # always unpacks wheels, and only a zipped import (zipapp, zipimport) lacks it.
    found = files(__name__) / name
    if not isinstance(found, Path):
        raise RuntimeError(f"lctui's {name} are inside an archive ({found}): install it unpacked")
    return found
