"""A run of an original's own inputs shows in the TUI like any run: the heatmap's cells
are RULER's task x length, and the inspector shows the exact prompt the model read (the
data file's input + answer_prefix) with where it came from.

The run is a real `lctui run --inputs ruler:...` of the gold model on files in RULER's
prepare.py format (helpers/ruler_inputs.py, our text); the app runs through Pilot.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from helpers.pilot import open_inspector
from helpers.pilot import settle_each_worker as settle
from helpers.results_screen import screen_of
from helpers.ruler_inputs import data_file, sent_prompts, write_ruler_root
from lctui.cli import main as cli_main
from lctui.tui.app import LctuiApp
from lctui.tui.widgets.prompt_view import PromptView

MakeApp = Callable[..., LctuiApp]
TASKS = ("niah_single_1", "vt", "qa_1")


@pytest.fixture
def inputs_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    root = write_ruler_root(tmp_path / "benchmark_root", tasks=TASKS, lengths=(1024, 2048))
    db = tmp_path / "inputs.duckdb"
    monkeypatch.setenv("LCTUI_DATA_DIR", str(tmp_path / "data"))
    assert cli_main(["run", "-m", "gold", "--inputs", f"ruler:{root}", "--db", str(db)]) == 0
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


async def test_cells_and_the_exact_prompt(make_app: MakeApp, inputs_db: tuple[Path, Path]) -> None:
    root, db = inputs_db
    app = make_app(db)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        grid = screen_of(app).grid
        assert grid is not None
        assert grid.grid.columns == ("1k", "2k")
        assert [row.label for row in grid.grid.rows] == sorted(TASKS)
        assert {cell.text for cell in grid.grid.cells.values()} == {"1.00"}

        gid, metadata = generation_of(db, "vt", 2048)
        screen = await open_inspector(pilot, gid)
        view = screen.query_one(PromptView)
        assert view.text == sent_prompts(data_file(root, "vt", 2048))[0]
        assert metadata["inputs"]["file"] == str(data_file(root, "vt", 2048))
        assert metadata["inputs"]["line"] == 1
