"""The generic suite screen: a suite lctui does not ship (registered here as a plugin
would be) opens from the command palette, shows its tables as its report defines them,
the highlighted row's details under them and its notes; every suite with a report has
a palette entry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from helpers.pilot import settle
from lctui.cli import main
from lctui.core import suites
from lctui.core.config import Config
from lctui.core.suites import ReportTable, Suite, SuiteReport, reporting_suites
from lctui.store.read.cells import cell_scores
from lctui.tui.app import LctuiApp
from lctui.tui.screens.suite import SuiteScreen


def _report(src: Any, models: Sequence[str] | None, run_id: str | None) -> SuiteReport | None:
    cells = [c for c in cell_scores(src, models=models) if c.mean_score is not None]
    if not cells:
        return None
    rows = tuple((c.model, c.task, f"{c.mean_score:.2f}") for c in cells)
    details = tuple(f"{c.model} on {c.task}: {c.n_scored} scored" for c in cells)
    tables = (
        ReportTable("Means", ("model", "task", "mean"), rows, details=details),
        ReportTable("Counts", ("model", "task", "n"), tuple((r[0], r[1], "2") for r in rows)),
    )
    return SuiteReport(tables, ("a note from the suite",))


TEST_SUITE = Suite(
    name="testsuite",
    title="Test suite",
    about="Means per task, from a suite lctui does not ship.",
    report=_report,
    empty="{db} holds nothing the test suite reads{wanted}",
)


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Suite:
    monkeypatch.setitem(suites._registered, TEST_SUITE.name, TEST_SUITE)
    return TEST_SUITE


@pytest.fixture
def gold_db(tmp_path: Path) -> Path:
    db = tmp_path / "r.duckdb"
    run = ["run", "--model", "gold", "--tasks", "niah_single_1,vt", "--lengths", "1k"]
    assert main([*run, "--n", "2", "--db", str(db)]) == 0
    return db


async def test_a_registered_suite_opens_from_the_palette_with_its_tables(
    registered: Suite, gold_db: Path
) -> None:
    db = gold_db
    assert registered in reporting_suites()
    app = LctuiApp(db, Config(), import_samples=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"Report: Test suite", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SuiteScreen) and screen.suite is registered
        means = screen.query_one("#suite-table-0", DataTable)
        counts = screen.query_one("#suite-table-1", DataTable)
        assert [means.border_title, counts.border_title] == ["Means", "Counts"]
        cells = [[str(c) for c in means.get_row_at(i)] for i in range(means.row_count)]
        assert cells == [["gold", "niah_single_1", "1.00"], ["gold", "vt", "1.00"]]
        detail = screen.query_one("#suite-detail", Static)
        assert str(detail.render()) == "gold on niah_single_1: 2 scored"
        await pilot.press("down")
        await pilot.pause()
        assert str(detail.render()) == "gold on vt: 2 scored"
        assert "a note from the suite" in str(screen.query_one("#suite-notes", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SuiteScreen)


async def test_an_empty_file_says_what_the_suite_needs(registered: Suite, tmp_path: Path) -> None:
    from lctui.store import open_store

    db = tmp_path / "empty.duckdb"
    open_store(db).close()
    app = LctuiApp(db, Config(), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.show_suite("testsuite")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SuiteScreen) and screen.has_class("-empty")
        empty = str(screen.query_one("#suite-empty", Static).render())
        assert empty == "This results file holds nothing the test suite reads."


def _drilling_report(
    src: Any, models: Sequence[str] | None, run_id: str | None
) -> SuiteReport | None:
    plain = _report(src, models, run_id)
    if plain is None:
        return None
    means = plain.tables[0]
    opens = tuple(
        (ReportTable(f"{row[1]} in detail", ("part", "value"), (("first", row[2]),)),)
        for row in means.rows
    )
    return SuiteReport((ReportTable(means.title, means.columns, means.rows, opens=opens),))


async def test_enter_shows_the_tables_a_row_drills_into_and_escape_goes_back(
    monkeypatch: pytest.MonkeyPatch, gold_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drilling = Suite(
        name="drillsuite", title="Drill suite", about="Rows that open tables.",
        report=_drilling_report, empty="{db} holds nothing{wanted}",
    )  # fmt: skip
    monkeypatch.setitem(suites._registered, drilling.name, drilling)
    assert main(["report", "--db", str(gold_db), "--suite", "drillsuite"]) == 0
    assert "in detail" not in capsys.readouterr().out  # the CLI prints the report's own
    app = LctuiApp(gold_db, Config(), import_samples=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.show_suite("drillsuite")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SuiteScreen)
        await pilot.press("enter")
        await settle(pilot)
        opened = screen.query_one("#suite-drill-0", DataTable)
        assert screen.drilled == (0, 0) and opened.has_focus
        assert opened.border_title == "niah_single_1 in detail"
        await pilot.press("right_square_bracket")
        await settle(pilot)
        opened = screen.query_one("#suite-drill-0", DataTable)
        assert screen.drilled == (0, 1) and opened.border_title == "vt in detail"
        await pilot.press("escape")
        await settle(pilot)
        assert screen.drilled is None and app.screen is screen
        assert screen.query_one("#suite-table-0", DataTable).has_focus
