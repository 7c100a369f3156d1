"""The HELMET screen (key H, the generic suite screen on HELMET's report): the same
category means and overall as `lctui report --suite helmet`, partial ones marked, the
highlighted row's gaps named, at 80 columns; an empty file says how to get scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from helpers.helmet_runs import HELMET_TASKS, write_helmet_run
from helpers.pilot import rendered, settle
from lctui.cli import main
from lctui.core.config import Config
from lctui.core.suites import get_suite
from lctui.store import open_store
from lctui.tui.app import LctuiApp
from lctui.tui.screens.suite import SuiteScreen, empty_message


def _db(tmp_path: Path) -> Path:
    db = tmp_path / "helmet.duckdb"
    with open_store(db) as store:
        write_helmet_run(store, "full", {(t, 8192): [0.75] for t in HELMET_TASKS})
        partial = {(t, 8192): [0.5] for t in ("json_kv", "kilt_nq", "kilt_popqa", "msmarco_rerank")}
        write_helmet_run(store, "some", partial)
        store.flush(force=True)
    return db


async def test_table_equals_the_report_and_names_the_gaps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _db(tmp_path)
    assert main(["report", "--suite", "helmet", "--db", str(db), "--format", "json"]) == 0
    report = {r["model"]: r for r in json.loads(capsys.readouterr().out)}
    app = LctuiApp(db, Config(), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SuiteScreen) and screen.report is not None
        assert screen.suite.name == "helmet"
        table = screen.query_one("#suite-table-0", DataTable)
        rows = {str(table.get_row_at(i)[0]): table.get_row_at(i) for i in range(table.row_count)}
        assert [str(c) for c in rows["full"][1:]] == ["8k", *["75.0"] * 8]
        some = [str(c) for c in rows["some"][2:]]
        assert some == ["50.0*", "50.0*", "-", "50.0", "-", "-", "-", "50.0*"]
        overall = report["some"]["overall"]
        assert some[-1] == f"{overall:.1f}*" and report["some"]["overall_partial"]
        assert report["some"]["categories"]["rag"]["value"] == pytest.approx(50)
        await pilot.press("down")
        await pilot.pause()
        missing = " ".join(str(screen.query_one("#suite-detail", Static).render()).split())
        assert missing.startswith("some @ 8k: without a score:")
        assert "kilt_triviaqa subem" in missing and "no dataset scored: Cite, ICL" in missing
        assert all(len(line) <= 80 for line in rendered(table))


async def test_without_helmet_scores_it_says_how_to_get_them(results_db: Path) -> None:
    app = LctuiApp(results_db, Config(), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SuiteScreen)
        assert screen.has_class("-empty")
        shown = str(screen.query_one("#suite-empty", Static).render())
        assert shown == empty_message(get_suite("helmet"))
        assert "holds no scores of HELMET's tasks" in shown and "--tasks helmet" in shown
