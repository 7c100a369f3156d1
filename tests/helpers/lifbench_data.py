"""Where the published LIFBench score files live, and small synthetic score folders."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import pytest

# The published files stay in the shared folder beside the repository (never copied in).
PUBLISHED = Path(__file__).resolve().parents[3] / "shared" / "data" / "lifbench-scores"


def published_folder() -> Path:
    """The published CSVs; a missing folder fails the test (it must not pass unseen)."""
    if not PUBLISHED.is_dir() or not list(PUBLISHED.glob("*.csv")):
        pytest.fail(
            f"the published LIFBench scores are missing: expected {PUBLISHED} "
            "(shared/data/lifbench-scores beside the repository) with its CSV files"
        )
    return PUBLISHED


def read_published(folder: Path) -> dict[str, list[dict[str, str]]]:
    """task name -> the rows of its CSV as dicts."""
    out: dict[str, list[dict[str, str]]] = {}
    for path in sorted(folder.glob("*.csv")):
        with path.open(newline="", encoding="utf-8") as handle:
            out[path.stem.partition("-")[2]] = list(csv.DictReader(handle))
    return out


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[object]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path
