"""A run of LIFBench's own prompt files shows in the TUI like any run: the heatmap's cells
are LIFBench's task x length interval, the inspector shows the record's prompt exactly
with its LIFEval levels (LIFBench's instruction and parameter numbers), and the LIFBench
screen reports the run's ARS.

The run is a real `lctui run --inputs lifbench:...` of the gold model on files in
LIFBench's released format (helpers/lifbench_inputs.py, our text); the app runs through
Pilot.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.widgets import Static

from helpers.lifbench_inputs import (
    FILES,
    file_prompts,
    lifbench_record,
    prompt_file,
    write_lifbench,
)
from helpers.pilot import open_inspector
from helpers.pilot import settle_each_worker as settle
from helpers.results_screen import screen_of
from lctui.cli import main as cli_main
from lctui.tui.app import LctuiApp
from lctui.tui.screens.suite import SuiteScreen
from lctui.tui.widgets.prompt_view import PromptView

MakeApp = Callable[..., LctuiApp]


@pytest.fixture
def inputs_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    root = write_lifbench(tmp_path / "LIFBench-2024", intervals=(3, 6))
    db = tmp_path / "inputs.duckdb"
    monkeypatch.setenv("LCTUI_DATA_DIR", str(tmp_path / "data"))
    assert cli_main(["run", "-m", "gold", "--inputs", f"lifbench:{root}", "--db", str(db)]) == 0
    return root, db


def generation_of(db: Path, task: str, length: int) -> tuple[str, dict[str, Any]]:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            "SELECT g.generation_id, e.metadata FROM generations g JOIN examples e "
            "USING (example_id) WHERE g.task = ? AND g.length = ? ORDER BY e.idx LIMIT 1",
            [task, length],
        ).fetchone()
    assert row is not None
    return str(row[0]), json.loads(row[1])


async def test_cells_the_exact_prompt_and_the_ars(
    make_app: MakeApp, inputs_db: tuple[Path, Path]
) -> None:
    root, db = inputs_db
    app = make_app(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        grid = screen_of(app).grid
        assert grid is not None
        assert grid.grid.columns == ("3k", "6k")
        assert sorted(row.label for row in grid.grid.rows) == sorted(f"lifbench_{t}" for t in FILES)

        gid, metadata = generation_of(db, "lifbench_offset_query_id", 6144)
        screen = await open_inspector(pilot, gid)
        view = screen.query_one(PromptView)
        path = prompt_file(root, "offset_query_id")
        assert view.text == file_prompts(path)[2]  # the file's third record: 6 x 1024
        assert metadata["inputs"]["file"] == str(path)
        assert metadata["inputs"]["line"] == 3
        record = lifbench_record("offset_query_id", 0, 6)
        levels = str(screen.query_one("#example-levels", Static).content)
        assert levels.startswith("scenario list  ·  task offset_query_id")
        assert f"expression {record['ins_id']}" in levels
        assert f"variable {record['param_id']}" in levels

        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        lifbench = app.screen
        assert isinstance(lifbench, SuiteScreen) and lifbench.report is not None
        table = lifbench.report.tables[0]
        assert [row[:2] for row in table.rows] == [("gold", "1.000")]
