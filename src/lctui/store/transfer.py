"""Move runs between results files as Parquet: one file per table, merged on import.

This is how results from several boxes are combined, and how the sample runs in
`lctui/resources/sample_runs/` reach an empty database on first launch. Import never duplicates:
keyed rows already present are skipped, and scores or rubric points are only
taken for generations the target does not have yet. Every column travels, the
scorer versions of scores and points included; files written before versions were
recorded get the "before versions" mark (store/scorer_versions.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

import duckdb

from lctui.core.errors import StoreError
from lctui.store.db import Store
from lctui.store.derived import HASH_COLUMNS, refresh_derived
from lctui.store.result_cells import WAITING_FOR_EXAMPLE, cells_kept
from lctui.store.scorer_versions import unversion_foreign_rows
from lctui.store.writer import said

TABLES = ("models", "runs", "examples", "generations", "scores", "rubric_points", "run_reused")
# Written by an lctui with the table; a folder from before it lacks the file, and its
# runs then record no reused generations.
_OPTIONAL = ("run_reused",)
_KEYED = {"models": "model_id", "runs": "run_id", "examples": "example_id"}
_BY_GENERATION = ("scores", "rubric_points")


def export_parquet(store: Store, folder: str | Path, run_ids: Sequence[str] | None = None) -> int:
    """Write the rows of `run_ids` (all runs when None) to `folder/<table>.parquet`.

    Returns the number of generations exported.
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(store.cursor()) as con:  # a shared store's file is freed after
        return _export(con, out, run_ids)


def _export(con: duckdb.DuckDBPyConnection, out: Path, run_ids: Sequence[str] | None) -> int:
    runs = list(run_ids) if run_ids is not None else _all_runs(con)
    con.execute("CREATE OR REPLACE TEMP TABLE _export_runs AS SELECT unnest(?) AS run_id", [runs])
    selects = {
        "runs": "SELECT * FROM runs WHERE run_id IN (SELECT run_id FROM _export_runs)",
        "generations": "SELECT * FROM generations "
        "WHERE run_id IN (SELECT run_id FROM _export_runs)",
        "models": "SELECT * FROM models WHERE model_id IN "
        "(SELECT model_id FROM generations WHERE run_id IN (SELECT run_id FROM _export_runs))",
        "examples": "SELECT * FROM examples WHERE example_id IN "
        "(SELECT example_id FROM generations WHERE run_id IN (SELECT run_id FROM _export_runs))",
        "run_reused": "SELECT * FROM run_reused WHERE run_id IN (SELECT run_id FROM _export_runs)",
    }
    for table in _BY_GENERATION:
        selects[table] = (
            f"SELECT * FROM {table} WHERE generation_id IN (SELECT generation_id FROM "
            "generations WHERE run_id IN (SELECT run_id FROM _export_runs))"
        )
    for table in TABLES:
        target = str(out / f"{table}.parquet").replace("'", "''")
        con.execute(f"COPY ({selects[table]}) TO '{target}' (FORMAT parquet, COMPRESSION zstd)")
    row = con.execute(
        "SELECT count(*) FROM generations WHERE run_id IN (SELECT run_id FROM _export_runs)"
    ).fetchone()
    return int(row[0]) if row else 0


def import_parquet(store: Store, folder: str | Path) -> int:
    """Merge the Parquet files of `folder` into `store`; returns generations added."""
    source = Path(folder)
    missing = [t for t in TABLES if t not in _OPTIONAL and not (source / f"{t}.parquet").is_file()]
    if missing:
        raise StoreError(f"{source} lacks {', '.join(f'{t}.parquet' for t in missing)}")
    store.flush(force=True)
    with contextlib.closing(store.cursor()) as con:  # a shared store's file is freed after
        return _import(con, source)


def _import(con: duckdb.DuckDBPyConnection, source: Path) -> int:
    before = _count(con)
    con.begin()
    try:
        new_generations = _read(source, "generations")
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _new_generations AS SELECT generation_id FROM "
            f"{new_generations} WHERE generation_id NOT IN (SELECT generation_id FROM generations)"
        )
        # The cells of the new generations' keys, and of those the examples may complete.
        keys = (
            f"SELECT gen_key FROM {new_generations} WHERE generation_id IN "
            f"(SELECT * FROM _new_generations) UNION ALL {WAITING_FOR_EXAMPLE}"
        )
        with cells_kept(con, keys):
            _insert_new_rows(con, source)
        con.commit()
    except BaseException as exc:  # an interrupt too: nothing of the folder stays
        with contextlib.suppress(duckdb.Error):
            con.rollback()
        if isinstance(exc, duckdb.Error):
            raise StoreError(f"cannot import {source}: {said(exc)}") from None
        raise
    return _count(con) - before


def _insert_new_rows(con: duckdb.DuckDBPyConnection, source: Path) -> None:
    """Insert what the target lacks, then refresh the derived columns and flags."""
    unversioned = False
    for table in TABLES:
        if table in _OPTIONAL and not (source / f"{table}.parquet").is_file():
            continue
        src = _read(source, table)
        # Files from an older lctui may lack newer columns; those stay NULL/default.
        present = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {src}").fetchall()}
        unversioned |= table == "scores" and "scorer_version" not in present
        names = ", ".join(c for c in _columns(con, table) if c in present and c not in HASH_COLUMNS)
        if table in _KEYED:
            verb, where = "INSERT OR IGNORE", ""
        elif table == "run_reused":  # only what the target does not record yet
            verb, where = "INSERT", " EXCEPT SELECT run_id, gen_key FROM run_reused"
        else:  # generations, scores, rubric points: only those of new generations
            verb, where = "INSERT", " WHERE generation_id IN (SELECT * FROM _new_generations)"
        con.execute(f"{verb} INTO {table} ({names}) SELECT {names} FROM {src}{where}")
    imported = "(SELECT generation_id FROM _new_generations)"
    refresh_derived(
        con, f"(SELECT gen_key FROM generations WHERE generation_id IN {imported})", imported
    )
    if unversioned:  # their scores got 0, "before versions"; some were no scorer's
        unversion_foreign_rows(con, imported)


def _read(folder: Path, table: str) -> str:
    path = str(folder / f"{table}.parquet").replace("'", "''")
    return f"read_parquet('{path}')"


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    rows = con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        "ORDER BY ordinal_position",
        [table],
    ).fetchall()
    return [r[0] for r in rows]


def _count(con: duckdb.DuckDBPyConnection) -> int:
    row = con.execute("SELECT count(*) FROM generations").fetchone()
    return int(row[0]) if row else 0


def _all_runs(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY started_at").fetchall()]
