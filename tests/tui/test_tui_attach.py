"""A headless run writing its own file can be browsed in the TUI while it runs."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from lctui.core.config import Config
from lctui.tui.app import LctuiApp


def _generations(app: LctuiApp) -> int:
    row = app.store.cursor().execute("SELECT count(*) FROM generations").fetchone()
    return int(row[0]) if row else 0


@pytest.mark.slow
async def test_browse_a_file_while_a_headless_run_writes_it(tmp_path: Path) -> None:
    db = tmp_path / "live.duckdb"
    args = ["run", "--model", "gold", "--tasks", "synthetic", "--lengths", "16k,32k"]
    run = subprocess.Popen(
        [sys.executable, "-m", "lctui", *args, "--n", "4", "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not db.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        app = LctuiApp(db, Config(), import_samples=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.5)
            assert app.read_only and app.store.shared
            seen = [_generations(app)]
            while run.poll() is None and time.monotonic() < deadline:
                await pilot.pause(0.5)
                seen.append(_generations(app))
            assert run.poll() is not None, "the headless run did not finish in time"
            seen.append(_generations(app))
    finally:
        out, _ = run.communicate(timeout=120)
    assert run.returncode == 0, out
    assert "in use by another process" not in out
    assert seen[-1] == 12 * 2 * 4
    # The TUI saw the file grow while the run was writing it.
    assert len(set(seen)) >= 3, seen
