"""The inspector on a result imported from HELMET: its missing prompt is shown as missing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from helpers.pilot import open_inspector
from lctui.store import open_store
from lctui.suites.helmet.importer import import_helmet_results
from lctui.tui.app import LctuiApp
from lctui.tui.widgets.prompt_view import PromptView

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures/helmet/results"


async def test_imported_prompt_is_shown_as_not_stored(
    make_app: Callable[..., LctuiApp], results_db: Path
) -> None:
    with open_store(results_db) as store:
        import_helmet_results(store, FIXTURES / "Qwen2.5-7B-Instruct")
    with duckdb.connect(str(results_db), read_only=True) as con:
        row = con.execute(
            "SELECT generation_id FROM results WHERE model LIKE 'helmet:%' ORDER BY idx LIMIT 1"
        ).fetchone()
    assert row is not None
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_inspector(pilot, str(row[0]))
        view = screen.query_one(PromptView)
        assert view.text.startswith("(prompt not stored by HELMET")
        assert "who wrote the tin drum" not in view.text  # the question is no prompt
