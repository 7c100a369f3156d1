"""LIFBench's report on the suite screen, on LIFBench's published scores (20 models +
`standard`): the capability table against `lifbench_reports`, the stability tables a
model's row drills into, whose CVs average to the reported IFS, the empty state; and
the inspector's capability groups and levels line on a lifeval generation."""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.pilot import Pilot
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from helpers.pilot import open_inspector, rendered, settle, until
from lctui.cli import main as cli_main
from lctui.scoring.rubric import CAPABILITIES
from lctui.store import open_store
from lctui.store.lifeval_views import PERSPECTIVES
from lctui.store.read.generations import RubricPointRecord
from lctui.suites.lifbench.analysis.levels import lifbench_stability
from lctui.suites.lifbench.analysis.metrics import LifbenchReport, lifbench_reports
from lctui.tui.app import LctuiApp
from lctui.tui.screens.suite import SuiteScreen, empty_message
from lctui.tui.widgets.report_table import ReportTableView
from lctui.tui.widgets.rubric_table import RubricTable, capability_groups

MakeApp = Callable[..., LctuiApp]
MODEL = "gpt-4o-2024-08-06"


@pytest.fixture(scope="module")
def reports(published_db: Path) -> dict[str, LifbenchReport]:
    with open_store(published_db, read_only=True) as store:
        return {r.model: r for r in lifbench_reports(store)}


async def open_lifbench(pilot: Pilot[Any]) -> SuiteScreen:
    await settle(pilot)
    await pilot.press("L")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SuiteScreen) and screen.suite.name == "lifbench"
    return screen


def _footer(screen: SuiteScreen) -> set[str]:
    return {f"{key.key_display} {key.description}" for key in screen.query(FooterKey)}


def _cell(table: ReportTableView, row: str, column: str) -> str:
    """The text of `column` in the row whose first cell is `row`."""
    report = table.table
    (index,) = [i for i, r in enumerate(report.rows) if r[0] == row]
    return report.rows[index][report.columns.index(column)]


async def test_capabilities_list_every_model_with_the_reported_values(
    make_app: MakeApp, published_db: Path, reports: dict[str, LifbenchReport]
) -> None:
    app = make_app(published_db)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lifbench(pilot)
        table = screen.query_one("#suite-table-0", ReportTableView)
        assert table.has_focus and not screen.has_class("-empty")
        assert {"p Next table", "] Next row"} <= _footer(screen)
        models = [row[0] for row in table.table.rows]
        assert sorted(models) == sorted(reports) and len(models) == 21
        assert len([m for m in models if m != "standard"]) == 20
        ars = [reports[m].ars or 0.0 for m in models]
        assert ars == sorted(ars, reverse=True)  # best first
        for model in models:
            report = reports[model]
            expected = {"ARS": report.ars, **{c: report.ifp[c.lower()] for c in CAPABILITIES}}
            for column, value in expected.items():
                assert value is not None
                assert _cell(table, model, column) == f"{value:.3f}", (model, column)
        shown = "\n".join(rendered(table))
        assert "Recog" in shown and "gpt-4o-2024-08-06" in shown


async def test_stability_means_average_to_the_reported_ifs(
    make_app: MakeApp, published_db: Path, reports: dict[str, LifbenchReport]
) -> None:
    app = make_app(published_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_lifbench(pilot)
        table = screen.query_one("#suite-table-0", ReportTableView)
        models = [row[0] for row in table.table.rows]
        table.move_cursor(row=models.index(MODEL))
        await pilot.press("enter")
        await settle(pilot)
        assert screen.has_class("-drill") and screen.drilled == (0, models.index(MODEL))
        report = reports[MODEL]
        with open_store(published_db, read_only=True) as store:
            stability = lifbench_stability(store, [MODEL])[MODEL]
        for index, perspective in enumerate(PERSPECTIVES):
            if index:
                await pilot.press("p")
                await settle(pilot)
            levels = screen.focused
            assert isinstance(levels, ReportTableView)
            assert (
                levels.table.title == f"{MODEL}: {perspective} (IFS {report.ifs[perspective]:.3f})"
            )
            tasks = stability.perspectives[perspective]
            assert len(tasks) == len(report.ars_by_task)
            cvs = []
            for task in tasks:
                means = list(task.means.values())
                cvs.append(statistics.stdev(means) / statistics.mean(means))
                # Shown rounded; a sum in another order may round the last digit apart.
                cv = float(_cell(levels, task.task, "CV"))
                assert cv == pytest.approx(cvs[-1], abs=0.0005 + 1e-9)
                for level, mean in task.means.items():
                    heading = f"{level}k" if perspective == "length" else level
                    shown = float(_cell(levels, task.task, heading))
                    assert shown == pytest.approx(mean, abs=0.005 + 1e-9)
            ifs = report.ifs[perspective]
            assert ifs is not None and statistics.mean(cvs) == pytest.approx(ifs, rel=1e-9)
            assert _cell(levels, "IFS = mean CV", "CV") == f"{ifs:.3f}"
        assert isinstance(levels, ReportTableView)
        assert "120k" in levels.table.columns
        by_length = _cell(levels, "ARS, all tasks", "120k")
        assert by_length == f"{report.ars_by_length[120]:.3f}"

        await pilot.press("right_square_bracket")
        await settle(pilot)
        following = models[models.index(MODEL) + 1]
        assert screen.drilled == (0, models.index(MODEL) + 1)
        assert table.cursor_row == models.index(MODEL) + 1
        assert isinstance(screen.focused, ReportTableView)
        assert screen.focused.table.title.startswith(f"{following}: length")
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.has_class("-drill") and table.has_focus


async def test_without_lifeval_scores_the_screen_says_how_to_get_them(make_app: MakeApp) -> None:
    app = make_app()  # gold RULER runs only
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_lifbench(pilot)
        assert screen.has_class("-empty")
        empty = screen.query_one("#suite-empty", Static)
        assert empty.display and str(empty.content) == empty_message(screen.suite)
        assert "lctui import lifbench-scores DIR" in str(empty.content)
        assert not screen.query_one("#suite-tables").display
        # Keys with nothing to show are not offered: no next table, no next row.
        footer = _footer(screen)
        assert "esc Back" in footer and not {"p Next table", "] Next row"} & footer
        await pilot.press("p", "right_square_bracket", "2")
        assert screen.drilled is None and app.screen is screen
        await pilot.press("escape")
        assert not isinstance(app.screen, SuiteScreen)


def test_a_point_with_two_capabilities_is_listed_under_each() -> None:
    points = [
        RubricPointRecord(0, "num_doc", ("Recog", "Num"), 3, 1.0, ""),
        RubricPointRecord(1, "format", ("Fmt",), 5, 0.0, ""),
    ]
    groups = capability_groups(points)
    assert groups is not None
    assert [(c, [p.name for p in ps]) for c, ps in groups] == [
        ("Num", ["num_doc"]),
        ("Fmt", ["format"]),
        ("Recog", ["num_doc"]),
    ]
    assert capability_groups([replace(points[0], capabilities=("Recog",))]) is None


@pytest.fixture(scope="module")
def lifeval_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("lifeval-run") / "lifeval.duckdb"
    args = ["run", "--model", "gold", "--tasks", "lifbench_single_query_id"]
    assert cli_main([*args, "--lengths", "3k", "--n", "2", "--db", str(db)]) == 0
    return db


async def test_inspector_groups_lifeval_points_and_names_the_levels(
    make_app: MakeApp, lifeval_db: Path
) -> None:
    with duckdb.connect(str(lifeval_db), read_only=True) as con:
        row = con.execute("SELECT generation_id FROM generations LIMIT 1").fetchone()
    assert row is not None
    app = make_app(lifeval_db)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_inspector(pilot, str(row[0]))
        assert screen.record is not None
        metadata = screen.record.metadata or {}
        levels = str(screen.query_one("#example-levels", Static).content)
        assert levels.startswith("scenario list  ·  task single_query_id")
        assert f"expression {metadata['expression']}" in levels
        assert f"variable {metadata['variable']}" in levels
        table = screen.query_one(RubricTable)
        assert table.point_names() == ["format", "correct", "ori"]

        def headings() -> list[str]:
            lines = [line.strip() for line in rendered(table)]
            return [line.split()[0] for line in lines if "earned" in line and "of" in line]

        # Under load the table's rows can be drawn a layout pass after the inspector opens.
        with contextlib.suppress(AssertionError):
            await until(pilot, lambda: len(headings()) == 3)
        assert headings() == ["Ori", "Fmt", "Recog"]  # the canonical capability order
        lines = [line.strip() for line in rendered(table)]
        assert any(line.startswith("correct") for line in lines)
