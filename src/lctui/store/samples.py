"""Which runs are the sample runs lctui ships (`resources/sample_runs/`), so that every
place that names a run can call them samples rather than a user's results.

They are recognised by run id: the ids in the shipped `runs.parquet` files, read once.
An id is a start time and a random suffix, so no run of a user's carries one, and the
samples keep their ids when `lctui import runs` or the TUI's first launch copies them.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import duckdb

from lctui.resources import sample_runs_dir

SAMPLE_NOTE = "sample run"  # after a sample run's id wherever it is shown


@lru_cache(maxsize=1)
def sample_run_ids() -> frozenset[str]:
    """The run ids of every shipped sample run (empty when none is shipped)."""
    return runs_in(sample_runs_dir())


def runs_in(folder: Path) -> frozenset[str]:
    """The run ids of the `lctui export` folders under `folder` (each a `runs.parquet`)."""
    files = sorted(str(p) for p in folder.glob("*/runs.parquet"))
    if not files:
        return frozenset()
    con = duckdb.connect()
    try:
        rows = con.execute("SELECT DISTINCT run_id FROM read_parquet(?)", [files]).fetchall()
    finally:
        con.close()
    return frozenset(str(r[0]) for r in rows)


def is_sample(run_id: str | None) -> bool:
    return run_id is not None and run_id in sample_run_ids()


def run_label(run_id: str) -> str:
    """The run's id, with SAMPLE_NOTE after a sample run's."""
    return f"{run_id} ({SAMPLE_NOTE})" if is_sample(run_id) else run_id
