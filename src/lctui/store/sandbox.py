"""SQL a user types (the TUI's SQL console, `lctui query`) on a connection of its own
that can neither change the results nor reach anything outside them.

Two defences, so that neither alone has to be perfect:

1. The statement gate (sql_gate.check_reading) lets through one statement that reads,
   and EXPLAIN only of such a statement (EXPLAIN ANALYZE runs what it explains).
2. The connection: a read-only open of the results file with DuckDB's
   `enable_external_access` off (no files, globs, URLs, COPY TO, ATTACH, EXPORT,
   INSTALL/LOAD, secrets or Python objects), extensions never installed or loaded on
   demand, and `lock_configuration` on, so no SET, RESET or PRAGMA can undo the rest.
   It refuses a DELETE hidden in a WITH clause that the gate cannot see.

DuckDB lets one process hold a file only with one configuration at a time, so the
store must be `shared` (a connection per query or flush, see db.Store): this
connection then waits for the others, and they for it, like for another process.
"""

from __future__ import annotations

import atexit
import functools
import re
import shutil
import tempfile
from collections.abc import Mapping

import duckdb
import pyarrow as pa

from lctui.core.errors import StoreError
from lctui.store.closing import ClosesOnExit
from lctui.store.db import Store, connect_waiting
from lctui.store.read.arrow import query_arrow
from lctui.store.sql_gate import REFUSED

# Checked against duckdb_settings() of duckdb 2.0.1 (tests/store/test_store_sandbox.py
# reads them back). The lock is applied with the rest when the connection opens.
SANDBOX_SETTINGS: dict[str, str | bool] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "lock_configuration": True,
}


@functools.cache
def _private_spill_folder() -> str:
    """DuckDB may still write in its temp directory with external access off (that is
    where it spills), and by default that is `<db>.tmp/` beside the file, shared with
    every other connection: user SQL gets a folder of this process's own instead (mode
    0700, removed at exit). One per process: DuckDB refuses two connections to one file
    with different settings."""
    folder = tempfile.mkdtemp(prefix="lctui-sql-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def sandbox_settings() -> Mapping[str, str | bool]:
    """SANDBOX_SETTINGS with this process's private spill folder."""
    return {**SANDBOX_SETTINGS, "temp_directory": _private_spill_folder()}


OUT_OF_REACH = (
    f"{REFUSED}: only the results database can be read; files, folders, URLs and "
    "extensions are out of reach"
)
NEEDS_A_FILE = (
    "the SQL console and `lctui query` need a results file: they read it on a connection "
    "of their own, and an in-memory database cannot be opened a second time"
)
_READ_ONLY_REFUSAL = "attached in read-only mode"
_OUTSIDE_REFUSALS = (
    "disabled by configuration",
    "disabled through configuration",
    "external access",
)
_LOCKED_REFUSAL = "configuration has been locked"
# A function of an extension the sandbox never loads: DuckDB's own advice (install it,
# turn autoinstall on) cannot be followed here.
_EXTENSION_FUNCTION = re.compile(
    r'with name "?([\w.]+)"? is not in the catalog, but it exists in the (\w+) extension'
)
# A file or URL written where a table goes (FROM '/etc/hostname'): with external access
# off DuckDB looks it up as a table name, which no table of the results has.
_PATH_AS_TABLE = re.compile(r"Table with name (\S*[/\\]\S*) does not exist")


class SqlSandbox(ClosesOnExit):
    """A connection for user SQL on `store`'s file; close it (or use `with`) after the
    query, so that the store's own connections can open again."""

    def __init__(self, store: Store) -> None:
        if store.path is None:
            raise StoreError(NEEDS_A_FILE)
        if not store.shared:
            raise ValueError("SqlSandbox needs a store opened with shared=True")
        self._con: duckdb.DuckDBPyConnection | None = connect_waiting(
            store.path, read_only=True, config=dict(sandbox_settings())
        )
        try:
            store.add_current_views(self._con)
        except duckdb.Error as err:
            self.close()
            raise StoreError(f"cannot read {store.path}: {err}") from err

    def query(self, sql: str, limit: int | None = None) -> pa.Table:
        """Run `sql` if it only reads; a StoreError with one line saying why not."""
        if self._con is None:
            raise StoreError("this SQL sandbox is closed")
        try:
            return query_arrow(self._con, sql, limit=limit)
        except StoreError as err:
            cause = err.__cause__
            if isinstance(cause, duckdb.Error):
                raise StoreError(refusal(cause) or str(err)) from cause
            raise

    def interrupt(self) -> None:
        """Stop the query that runs (from another thread); it fails with an error."""
        if self._con is not None:
            self._con.interrupt()

    def close(self) -> None:
        con, self._con = self._con, None
        if con is not None:
            con.close()


def refusal(err: duckdb.Error) -> str | None:
    """One line for DuckDB's refusals on the sandbox connection; None for other errors."""
    message = str(err)
    lowered = message.lower()
    if _READ_ONLY_REFUSAL in lowered:
        return (
            f"{REFUSED}: this query would change the results (an INSERT, UPDATE or DELETE, "
            "perhaps inside WITH)"
        )
    if _LOCKED_REFUSAL in lowered:
        return f"{REFUSED}: settings cannot be changed here (SET, RESET, PRAGMA)"
    if any(words in lowered for words in _OUTSIDE_REFUSALS):
        first = message.splitlines()[0]
        return f"{OUT_OF_REACH} ({first.partition(': ')[2] or first})"
    extension = _EXTENSION_FUNCTION.search(message)
    if extension is not None:
        name, package = extension.groups()
        return f"{OUT_OF_REACH} ({name} needs DuckDB's {package} extension, never loaded here)"
    path = _PATH_AS_TABLE.search(message)
    if path is not None:
        return f"{OUT_OF_REACH} ({path.group(1)} is not a table of the results)"
    return None
