"""Quitting the TUI leaves no DuckDB object behind (issue 15: "leaked instance ...
DuckDBPyConnection" lines were printed at every quit).

A real process runs the app as a user would: a run, the SQL console, and torch
imported while the app runs, as loading the embedded model does. torch then sets up
its logging on the app's captured stderr, which kept the app, its store and the
store's connections alive to the end of the interpreter.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path

    import _duckdb

    # duckdb 2.0.1 reports leaked objects at exit only when asked to.
    _duckdb._set_leak_report(True)

    from lctui.backends import builtin_models
    from lctui.core.config import Config
    from lctui.engine import RunRequest
    from lctui.tasks import select_tasks
    from lctui.tui.app import LctuiApp
    from lctui.tui.screens.sql_console import SqlConsoleScreen, SqlEditor

    GOLD = next(m for m in builtin_models() if m.name == "gold")


    async def until(pilot, check):
        for _ in range(1200):
            if check():
                return
            await pilot.pause(0.05)
        raise SystemExit("timed out")


    async def main(db):
        app = LctuiApp(Path(db), Config(), import_samples=False)
        async with app.run_test(size=(120, 40)) as pilot:
            import torch  # noqa: F401  (what loading the embedded model does)

            tasks = select_tasks("niah_single_2")
            run = app.start_run(RunRequest(models=[GOLD], tasks=tasks, lengths=[1024], n=2))
            await until(pilot, lambda: not run.running)
            app.action_show_sql_console()
            await until(pilot, lambda: isinstance(app.screen, SqlConsoleScreen))
            await until(pilot, lambda: app.screen.status.startswith("Ready"))
            for sql in ("SELECT count(*) FROM results", "DELETE FROM runs"):
                app.screen.query_one(SqlEditor).text = sql
                app.screen.action_run()
                await until(pilot, lambda: not app.screen.status.startswith("Running"))
            print(app.screen.status, flush=True)
            await pilot.press("ctrl+q")
        print("quit", flush=True)


    asyncio.run(main(sys.argv[1]))
    """
)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch (lctui[hf])")
def test_no_duckdb_object_is_left_at_quit(results_db: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(results_db)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1:] == ["quit"], done.stdout
    leaked = [line for line in done.stderr.splitlines() if "leaked" in line]
    assert not leaked, "\n".join(leaked[:20])
