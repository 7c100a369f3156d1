"""Tables of the lctui database and the numbered forward migrations that create them.

Opening a file applies the migrations it lacks in one transaction; views (views.py) are
recreated after every batch of migrations because they hold no data.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from lctui.core.errors import StoreError
from lctui.store.derived import add_derived_columns, add_example_hash
from lctui.store.latest import add_latest_columns
from lctui.store.result_cells import add_result_cells
from lctui.store.scorer_versions import add_scorer_versions
from lctui.store.views import create_views

# Every timestamp column holds UTC without a time zone, so files read the same anywhere.
_INITIAL_TABLES = (
    """
    CREATE TABLE schema_version (
        version    INTEGER PRIMARY KEY,
        applied_at TIMESTAMP NOT NULL
    )""",
    """
    CREATE TABLE models (
        model_id    TEXT PRIMARY KEY,  -- the backend's fingerprint
        name        TEXT NOT NULL,
        backend     TEXT NOT NULL,
        path        TEXT,
        params      JSON,
        description TEXT,
        tokenizer   TEXT,
        max_context INTEGER,
        reference   BOOLEAN NOT NULL DEFAULT FALSE,  -- gold pseudo-model
        created_at  TIMESTAMP NOT NULL
    )""",
    """
    CREATE TABLE runs (
        run_id        TEXT PRIMARY KEY,
        started_at    TIMESTAMP NOT NULL,
        finished_at   TIMESTAMP,
        status        TEXT NOT NULL,  -- running | finished | cancelled | failed
        command       JSON,           -- argv and resolved options
        lctui_version TEXT,
        host          TEXT
    )""",
    """
    CREATE TABLE examples (
        example_id        TEXT PRIMARY KEY,  -- content hash: same inputs, same id
        task              TEXT NOT NULL,
        category          TEXT,
        suite             TEXT,
        length            INTEGER,  -- target budget in tokens
        seed              BIGINT,
        idx               INTEGER,
        tokenizer         TEXT,
        params            JSON,
        preamble          TEXT,
        context           TEXT,     -- the long part, stored once per example
        question          TEXT,
        answer_prefix     TEXT,
        gold              JSON,     -- list of accepted answers
        max_new_tokens    INTEGER,
        prompt_tokens     INTEGER,
        template_overhead INTEGER,
        depth             DOUBLE,
        spans             JSON,     -- [{start, end, kind, label}] in context offsets
        truncated         BOOLEAN,
        metadata          JSON
    )""",
    """
    CREATE TABLE generations (
        generation_id TEXT PRIMARY KEY,
        gen_key       TEXT NOT NULL,  -- (model, example, config) hash; retries share it
        run_id        TEXT NOT NULL,
        model_id      TEXT NOT NULL,
        example_id    TEXT NOT NULL,
        config_hash   TEXT,
        config        JSON,
        status        TEXT NOT NULL,  -- ok | error | cancelled
        output        TEXT,
        prompt_tokens INTEGER,
        output_tokens INTEGER,
        ttft_s        DOUBLE,
        latency_s     DOUBLE,
        finish_reason TEXT,
        error         TEXT,
        started_at    TIMESTAMP,
        prompt_head   TEXT,  -- prompt == prompt_head + user text + prompt_tail
        prompt_tail   TEXT
    )""",
    # Scores and points are append-only: a re-score adds rows with a later scored_at and
    # the views pick the latest, so earlier verdicts stay auditable.
    """
    CREATE TABLE scores (
        generation_id TEXT NOT NULL,
        scorer        TEXT NOT NULL,
        metric        TEXT NOT NULL,
        value         DOUBLE,        -- NULL when status is error
        status        TEXT NOT NULL, -- ok | unparsed | error
        extracted     JSON,
        explanation   TEXT,
        extras        JSON,
        scored_at     TIMESTAMP NOT NULL
    )""",
    """
    CREATE TABLE rubric_points (
        generation_id TEXT NOT NULL,
        scorer        TEXT NOT NULL,
        scored_at     TIMESTAMP NOT NULL,  -- equals the scored_at of its score row
        idx           INTEGER NOT NULL,
        name          TEXT NOT NULL,
        capabilities  VARCHAR[],
        weight        DOUBLE,
        earned        DOUBLE,  -- fraction in [0, 1] of the weight
        explanation   TEXT
    )""",
    """
    CREATE TABLE judge_calls (
        call_id       TEXT PRIMARY KEY,
        generation_id TEXT,
        judge_model   TEXT,
        prompt_hash   TEXT,
        prompt        TEXT,
        response      TEXT,
        parsed        JSON,
        created_at    TIMESTAMP
    )""",
)


def _initial_schema(con: duckdb.DuckDBPyConnection) -> None:
    for statement in _INITIAL_TABLES:
        con.execute(statement)


# Tables whose rows hold text from models, tasks or scorers (store/storable.py).
_REPAIRABLE = ("examples", "generations", "scores", "rubric_points")


def _add_repair_flags_and_run_pids(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 7: `repaired` on the text tables (true when a value was changed to be
    storable: a lone surrogate became U+FFFD, a value out of its column's range NULL),
    and the pid of the process that ran each run (a run left `running` by a process
    that is gone is marked `interrupted`, store/run_status.py)."""
    for table in _REPAIRABLE:
        con.execute(f"ALTER TABLE {table} ADD COLUMN repaired BOOLEAN DEFAULT FALSE")
    con.execute("ALTER TABLE runs ADD COLUMN pid INTEGER")


def _add_generation_calls(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 12: `calls` on generations, every call of a generation that takes
    several (LongBench v2's chain of thought: the reasoning, then the answer); NULL for
    the usual one call."""
    con.execute("ALTER TABLE generations ADD COLUMN calls JSON")


def _add_run_reused(con: duckdb.DuckDBPyConnection) -> None:
    """Migration 13: `run_reused`, the generation keys a run's plan covered that were
    stored already, so the run did not generate them again (engine/todo.py skips them):
    a run's report counts their results as the run's, and says they were reused."""
    con.execute(
        """
        CREATE TABLE run_reused (
            run_id  TEXT NOT NULL,
            gen_key TEXT NOT NULL
        )"""
    )


@dataclass(frozen=True)
class Migration:
    """One forward step; `apply` runs inside the transaction that records it."""

    version: int
    description: str
    apply: Callable[[duckdb.DuckDBPyConnection], None]
    # True when the step only changes views: a read-only open of an older file then
    # gets the new views as temporary ones instead of refusing to open it.
    views_only: bool = False


# Append only: never edit a released migration. A change to a view alone also needs a
# (possibly empty) migration so that existing files get the new view.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema", _initial_schema),
    Migration(2, "lifeval_* metric views", lambda con: None, views_only=True),
    Migration(
        3, "judge_scores, run_model_stats and judge_stats views", lambda con: None, views_only=True
    ),
    Migration(4, "latest flags on generations, scores and rubric points", add_latest_columns),
    Migration(5, "integer join keys, example columns on generations", add_derived_columns),
    Migration(
        6,
        "results: status unscored for a generation without a rule-based score",
        lambda con: None,
        views_only=True,
    ),
    Migration(
        7, "repaired flags on text rows, the pid of each run", _add_repair_flags_and_run_pids
    ),
    Migration(
        8,
        "scorer_version on scores and rubric points (0: before versions; NULL: no scorer's)",
        add_scorer_versions,
    ),
    Migration(
        9,
        "lifeval views: lctui's own responses read their recorded total (metric lifeval_ars)",
        lambda con: None,
        views_only=True,
    ),
    Migration(
        10,
        "result_cells: the results pivot's counts and sums per cell, kept on write",
        add_result_cells,
    ),
    Migration(11, "example_hash on generations: the A/B groups by an integer", add_example_hash),
    Migration(12, "calls on generations: each call of a two-call answer", _add_generation_calls),
    Migration(13, "run_reused: the stored generations each run's plan covered", _add_run_reused),
)
SCHEMA_VERSION = MIGRATIONS[-1].version

if [m.version for m in MIGRATIONS] != list(range(1, len(MIGRATIONS) + 1)):
    raise RuntimeError("store migrations must be numbered 1, 2, 3, ... without gaps")


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def _user_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() "
        "WHERE database_name = current_database() AND NOT temporary"
    ).fetchall()
    return {str(row[0]) for row in rows}


def schema_version(con: duckdb.DuckDBPyConnection) -> int | None:
    """Version recorded in the file; 0 for an empty database, None if not lctui's."""
    tables = _user_tables(con)
    if "schema_version" not in tables:
        return 0 if not tables else None
    row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def migrate(con: duckdb.DuckDBPyConnection, where: str, *, read_only: bool = False) -> int:
    """Bring the database to SCHEMA_VERSION and return the version it had before.

    `where` names the file in messages. A read-only connection cannot be upgraded, so
    an older file opened read-only raises StoreError, as does a newer file in any mode.
    """
    found = schema_version(con)
    if found is None:
        raise StoreError(
            f"{where} is a DuckDB database but not an lctui one (it has tables but no "
            "schema_version table); pass --db to use another file"
        )
    if found > SCHEMA_VERSION:
        raise StoreError(
            f"this database was written by a newer lctui (schema {found} > {SCHEMA_VERSION}); "
            f"upgrade lctui to read {where}"
        )
    if found == SCHEMA_VERSION:
        return found
    if read_only and found > 0 and all(m.views_only for m in MIGRATIONS[found:]):
        return found  # Store.cursor() gives each cursor the current views (temporary)
    if read_only:
        if found == 0:
            raise StoreError(f"{where} is an empty database, not one that lctui has written")
        raise StoreError(
            f"{where} uses schema {found}, older than this lctui's {SCHEMA_VERSION}, and it "
            "was opened read-only so it cannot be upgraded; open it once read-write "
            "(any lctui command that writes, with --db) and try again"
        )
    con.begin()
    try:
        for migration in MIGRATIONS[found:]:
            migration.apply(con)
            con.execute("INSERT INTO schema_version VALUES (?, ?)", [migration.version, _utc_now()])
        create_views(con)
        con.commit()
    except duckdb.Error as err:
        con.rollback()
        raise StoreError(
            f"could not upgrade {where} from schema {found} to {SCHEMA_VERSION}: {err}"
        ) from err
    return found
