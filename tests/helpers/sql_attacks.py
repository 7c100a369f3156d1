"""The SQL that the TUI's console and `lctui query` must refuse (issues 15 and 17), and
a witness that checks afterwards that none of it had any effect.

Each attack was reproduced against lctui before the sandbox: it deleted results, wrote
a file, or returned a file's or the environment's content. The tests run every one
through both paths (tests/tui/test_tui_sql_sandbox.py, tests/cli/test_cli_query_sandbox.py).
"""

from __future__ import annotations

import hashlib
import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

CHANGES = "would change the results"
EXPLAIN_RUNS = "EXPLAIN ANALYZE runs the statement it explains"
OUT_OF_REACH = "out of reach"


@dataclass(frozen=True)
class Attack:
    """`sql` may name {out} (a folder that must stay empty), {url} (a loopback listener
    that must get no connection) and {tmp} (a folder holding a marker file)."""

    id: str
    sql: str
    refusal: str  # a piece of the one-line message that says why


ATTACKS = (
    Attack(
        "writable-cte", "WITH d AS (DELETE FROM scores RETURNING *) SELECT count(*) FROM d", CHANGES
    ),
    Attack(
        "insert-returning-in-cte",
        "WITH i AS (INSERT INTO schema_version VALUES (99, now()::TIMESTAMP) RETURNING *) "
        "SELECT * FROM i",
        CHANGES,
    ),
    Attack(
        "insert-returning-in-subquery",
        "SELECT * FROM (INSERT INTO schema_version VALUES (99, now()::TIMESTAMP) RETURNING *)",
        "invalid SQL",
    ),
    Attack("explain-analyze-delete", "EXPLAIN ANALYZE DELETE FROM generations", EXPLAIN_RUNS),
    Attack("explain-analyze-update", "EXPLAIN ANALYZE UPDATE scores SET value = 0", EXPLAIN_RUNS),
    Attack(
        "explain-analyze-insert",
        "EXPLAIN ANALYZE INSERT INTO schema_version VALUES (99, now()::TIMESTAMP)",
        EXPLAIN_RUNS,
    ),
    Attack("explain-analyze-drop", "EXPLAIN ANALYZE DROP TABLE rubric_points", EXPLAIN_RUNS),
    Attack(
        "explain-analyze-ctas",
        "EXPLAIN ANALYZE CREATE TABLE sneaky AS SELECT * FROM generations",
        EXPLAIN_RUNS,
    ),
    Attack(
        "explain-analyze-options-delete",
        "EXPLAIN (ANALYZE, FORMAT json) DELETE FROM generations",
        EXPLAIN_RUNS,
    ),
    Attack(
        "explain-analyze-copy",
        "EXPLAIN ANALYZE COPY (SELECT 'echo PWNED') TO '{out}/x.sh' (HEADER false, QUOTE '')",
        EXPLAIN_RUNS,
    ),
    Attack(
        "explain-analyze-writable-cte",
        "EXPLAIN ANALYZE WITH d AS (DELETE FROM scores RETURNING *) SELECT count(*) FROM d",
        CHANGES,
    ),
    Attack("read-environ", "SELECT * FROM read_text('/proc/self/environ')", OUT_OF_REACH),
    Attack("read-hostname", "SELECT * FROM read_text('/etc/hostname')", OUT_OF_REACH),
    Attack("read-blob", "SELECT * FROM read_blob('/etc/hostname')", OUT_OF_REACH),
    Attack("glob-tmp", "SELECT * FROM glob('/tmp/*')", OUT_OF_REACH),
    Attack("glob-marker", "SELECT * FROM glob('{tmp}/*')", OUT_OF_REACH),
    Attack("read-csv-url", "SELECT * FROM read_csv('{url}/x.csv')", OUT_OF_REACH),
    Attack("read-parquet-url", "SELECT * FROM read_parquet('{url}/x.parquet')", OUT_OF_REACH),
    # Every reader of files, on a file, a glob or a URL, and a path where a table goes.
    Attack("read-csv-hostname", "SELECT * FROM read_csv('/etc/hostname')", OUT_OF_REACH),
    Attack("read-parquet-hostname", "SELECT * FROM read_parquet('/etc/hostname')", OUT_OF_REACH),
    Attack("read-json-hostname", "SELECT * FROM read_json('/etc/hostname')", OUT_OF_REACH),
    Attack("path-as-table", "SELECT * FROM '/etc/hostname'", OUT_OF_REACH),
    Attack("describe-path", "DESCRIBE '/etc/hostname'", OUT_OF_REACH),
    Attack("glob-in-reader", "SELECT * FROM read_csv('{tmp}/*')", OUT_OF_REACH),
    Attack("recursive-glob", "SELECT * FROM read_text('{tmp}/**')", OUT_OF_REACH),
    Attack("read-text-url", "SELECT * FROM read_text('{url}/x.txt')", OUT_OF_REACH),
    Attack("url-as-table", "SELECT * FROM '{url}/x.parquet'", OUT_OF_REACH),
    # A function of an extension: never installed or loaded on demand.
    Attack("extension-autoload", "SELECT * FROM sqlite_scan('{tmp}/x.db', 't')", "sqlite_scanner"),
    Attack("force-install", "FORCE INSTALL httpfs", "FORCE does not only read"),
    Attack("install-from-url", "INSTALL httpfs FROM '{url}'", "INSTALL does not only read"),
    Attack("load-path", "LOAD '{tmp}/x.duckdb_extension'", "LOAD does not only read"),
    # duckdb 2.0.1's Python module has no name for this statement's type (it once crashed
    # lctui query).
    Attack("update-extensions", "UPDATE EXTENSIONS", "UPDATE does not only read"),
    Attack("set", "SET threads = 1", "SET does not only read"),
    Attack("set-global", "SET GLOBAL threads = 1", "SET does not only read"),
    Attack("unlock", "SET lock_configuration = false", "SET does not only read"),
    Attack("set-variable", "SET VARIABLE x = 1", "SET does not only read"),
    Attack("reset-external-access", "RESET enable_external_access", "RESET does not only read"),
    Attack("pragma-assign", "PRAGMA threads = 1", "PRAGMA does not only read"),
    Attack("call", "CALL enable_profiling()", "CALL does not only read"),
    Attack("use", "USE memory", "USE does not only read"),
    Attack("set-external-access", "SET enable_external_access = true", "SET does not only read"),
    Attack("reset", "RESET lock_configuration", "RESET does not only read"),
    Attack("pragma", "PRAGMA enable_profiling", "PRAGMA does not only read"),
    Attack("attach", "ATTACH '{out}/other.duckdb' AS other", "ATTACH does not only read"),
    Attack("copy", "COPY generations TO '{out}/generations.csv'", "COPY does not only read"),
    Attack("export", "EXPORT DATABASE '{out}/export'", "EXPORT does not only read"),
    Attack("install", "INSTALL httpfs", "INSTALL does not only read"),
    Attack("load", "LOAD httpfs", "LOAD does not only read"),
    Attack("delete", "DELETE FROM generations", "DELETE does not only read"),
    Attack("two-statements", "SELECT 1; DELETE FROM runs", "2 statements"),
    Attack("checkpoint", "CHECKPOINT", "CHECKPOINT does not only read"),
    # A PIVOT without an IN list makes DuckDB parse the whole statement as MULTI, which
    # the gate once let through whatever the statement was (found in review).
    Attack(
        "ctas-of-a-pivot",
        "CREATE TEMP TABLE p AS PIVOT scores ON status USING count(*)",
        "CREATE does not only read",
    ),
    Attack(
        "copy-of-a-pivot",
        "COPY (SELECT 'echo PWNED' AS c FROM (PIVOT scores ON status USING count(*)) LIMIT 1) "
        "TO '{out}/x.sh' (HEADER false, QUOTE '')",
        "COPY does not only read",
    ),
    Attack(
        "delete-with-a-pivot",
        "DELETE FROM scores WHERE generation_id IN "
        "(SELECT generation_id FROM (PIVOT scores ON status USING count(*)))",
        "DELETE does not only read",
    ),
    Attack(
        "explain-analyze-copy-of-a-pivot",
        "EXPLAIN ANALYZE COPY (PIVOT scores ON status USING count(*)) TO '{out}/p.csv'",
        "EXPLAIN does not only read",  # a MULTI as a whole, refused before any look inside
    ),
)
ATTACK_PARAMS = [pytest.param(a, id=a.id) for a in ATTACKS]

# Reading stays as DuckDB has it: views, CTEs, window functions, EXPLAIN, DESCRIBE,
# SHOW, SUMMARIZE, PIVOT. Each with a column the result must have.
READS = (
    ("view", "SELECT model, task, avg(score) AS mean FROM results GROUP BY ALL", "mean"),
    ("cte", "WITH s AS (SELECT * FROM results_core) SELECT count(*) AS n FROM s", "n"),
    (
        "window",
        "SELECT generation_id, row_number() OVER (PARTITION BY task ORDER BY length) AS k "
        "FROM results",
        "k",
    ),
    ("explain", "EXPLAIN SELECT * FROM results", "explain_value"),
    ("explain-analyze-select", "EXPLAIN ANALYZE SELECT count(*) FROM results", "explain_value"),
    ("describe", "DESCRIBE results", "column_name"),
    ("show-tables", "SHOW TABLES", "name"),
    ("summarize", "SUMMARIZE SELECT score, length FROM results", "column_name"),
    ("pivot", "PIVOT (SELECT task, length FROM results) ON length USING count(*)", "task"),
    ("unpivot", "UNPIVOT (SELECT 1 AS a, 2 AS b) ON a, b INTO NAME k VALUE v", "k"),
)
READ_PARAMS = [pytest.param(sql, column, id=name) for name, sql, column in READS]


class Witness:
    """What an attack could change or reveal, recorded before it runs."""

    def __init__(self, db: Path, tmp_path: Path) -> None:
        self.db = db
        self.out = tmp_path / "attack-out"
        self.out.mkdir()
        self.tmp = tmp_path / "attack-tmp"
        self.tmp.mkdir()
        self.marker = f"marker-{uuid.uuid4().hex}"
        (self.tmp / self.marker).write_text("a file only a glob would name\n")
        self.home = tmp_path / "home"  # where an extension would be installed (set HOME)
        self.home.mkdir()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.files = self._files()
        hostname = Path("/etc/hostname")
        self.secrets = [self.marker, "PATH=", "HOME="]
        if hostname.is_file() and len(hostname.read_text().strip()) >= 4:
            self.secrets.append(hostname.read_text().strip())

    def sql(self, attack: Attack) -> str:
        return attack.sql.format(out=self.out, url=self.url, tmp=self.tmp)

    def _files(self) -> dict[str, str]:
        """sha256 of the database file and of its write-ahead log, if it has one."""
        paths = (self.db, self.db.with_name(self.db.name + ".wal"))
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.exists()}

    def assert_nothing_happened(self, shown: str) -> None:
        """The file is byte for byte as before, nothing was written, fetched, installed,
        and no file or environment content is in what the user was shown."""
        assert self._files() == self.files, "the database changed"
        assert not list(self.out.iterdir()), "a file was written"
        assert not (self.home / ".duckdb").exists(), "an extension was installed"
        with pytest.raises(TimeoutError):
            self.listener.accept()[0].close()  # no download was tried
        for secret in self.secrets:
            assert secret not in shown, f"{secret!r} came back"

    def close(self) -> None:
        self.listener.close()


def isolated_home(monkeypatch: pytest.MonkeyPatch, witness: Witness) -> None:
    """DuckDB installs extensions under $HOME/.duckdb: point it at the witness's."""
    monkeypatch.setenv("HOME", str(witness.home))
    assert os.environ["HOME"] == str(witness.home)
