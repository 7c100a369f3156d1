"""The correlation screen's synthetic-vs-downstream tab on HELMET's categories: it
names the real-data categories it took as downstream and shows the analysis's numbers,
at 80 columns."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static, TabbedContent

from helpers.helmet_runs import write_helmet_run
from helpers.pilot import settle
from lctui.analysis.correlation import synthetic_vs_downstream
from lctui.core.config import Config
from lctui.store import open_store
from lctui.tui.app import LctuiApp
from lctui.tui.screens.correlation import CorrelationScreen, describe

L = 8192


def _db(tmp_path: Path) -> Path:
    db = tmp_path / "helmet-corr.duckdb"
    with open_store(db) as store:
        for i in range(5):
            scores = {
                ("json_kv", L): [0.1 * (i + 1)],
                ("kilt_nq", L): [0.9 - 0.1 * i],
                ("msmarco_rerank", L): [0.2 + 0.1 * (i % 3)],
                ("lifbench_repeat", L): [0.1 * i],
            }
            write_helmet_run(store, f"model-{i}", scores)
        store.flush(force=True)
    return db


async def test_synthetic_tab_uses_helmets_real_categories(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with open_store(db, read_only=True) as store:
        want = synthetic_vs_downstream(store)
    assert list(want.per_category) == ["rag", "rerank"]
    app = LctuiApp(db, Config(), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CorrelationScreen)
        await pilot.press("2")
        await pilot.pause()
        assert screen.query_one(TabbedContent).active == "synthetic"
        note = " ".join(str(screen.query_one("#synthetic-note", Static).render()).split())
        assert "downstream: HELMET's real-data categories (rag, rerank)" in note
        shown = " ".join(describe(want.per_category["rag"]).split())
        assert f"synthetic vs rag: {shown}" in note and "lifbench" not in note
        assert " ".join(describe(want.overall).split()) in note
