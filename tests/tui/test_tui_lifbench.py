"""The LIFBench screen on LIFBench's published scores (20 models + `standard`): the
capability table against `lifbench_reports`, the stability tables whose CVs average to
the reported IFS, the empty state; and the inspector's capability groups and levels
line on a lifeval generation."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static, TabbedContent
from textual.widgets._footer import FooterKey

from helpers.pilot import open_inspector, rendered, settle
from lctui.cli import main as cli_main
from lctui.store import open_store
from lctui.store.lifeval_views import PERSPECTIVES
from lctui.store.read.generations import RubricPointRecord
from lctui.suites.lifbench.analysis.metrics import LifbenchReport, lifbench_reports
from lctui.tui.app import LctuiApp
from lctui.tui.screens.lifbench import EMPTY_MESSAGE, LifbenchScreen
from lctui.tui.widgets.capability_bars import CapabilityTable, bar
from lctui.tui.widgets.rubric_table import RubricTable, capability_groups
from lctui.tui.widgets.stability_table import StabilityTable

MakeApp = Callable[..., LctuiApp]
MODEL = "gpt-4o-2024-08-06"


@pytest.fixture(scope="module")
def reports(published_db: Path) -> dict[str, LifbenchReport]:
    with open_store(published_db, read_only=True) as store:
        return {r.model: r for r in lifbench_reports(store)}


async def open_lifbench(pilot: Pilot[Any]) -> LifbenchScreen:
    await settle(pilot)
    await pilot.press("L")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, LifbenchScreen)
    return screen


def _footer(screen: LifbenchScreen) -> set[str]:
    return {f"{key.key_display} {key.description}" for key in screen.query(FooterKey)}


async def test_capabilities_list_every_model_with_the_reported_values(
    make_app: MakeApp, published_db: Path, reports: dict[str, LifbenchReport]
) -> None:
    app = make_app(published_db)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lifbench(pilot)
        table = screen.query_one(CapabilityTable)
        assert table.has_focus and not screen.has_class("-empty")
        assert {"p Perspective", "] Next model"} <= _footer(screen)
        models = [str(row.value) for row in table.rows]
        assert sorted(models) == sorted(reports) and len(models) == 21
        assert len([m for m in models if m != "standard"]) == 20
        ars = [reports[m].ars or 0.0 for m in models]
        assert ars == sorted(ars, reverse=True)  # best first
        width = table.bar_width()
        assert width > 0
        for model in models:
            report = reports[model]
            expected = {"ars": report.ars, **report.ifp}
            for column, value in expected.items():
                assert value is not None
                cell = table.get_cell(model, column).plain
                assert cell.endswith(f" {value:.3f}"), (model, column, cell)
                assert cell.startswith(bar(value, width))
        shown = "\n".join(rendered(table))
        assert "Recog" in shown and "gpt-4o-2024-08-06" in shown


async def test_stability_means_average_to_the_reported_ifs(
    make_app: MakeApp, published_db: Path, reports: dict[str, LifbenchReport]
) -> None:
    app = make_app(published_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_lifbench(pilot)
        table = screen.query_one(CapabilityTable)
        table.move_cursor(row=table.get_row_index(MODEL))
        await pilot.press("enter")
        await settle(pilot)
        assert screen.query_one(TabbedContent).active == "stability"
        models = screen.query_one("#stability-models", OptionList)
        assert models.has_focus and screen.model == MODEL
        levels = screen.query_one(StabilityTable)
        report = reports[MODEL]
        for index, perspective in enumerate(PERSPECTIVES):
            if index:
                await pilot.press("p")
                await settle(pilot)
            assert screen.perspective == perspective and levels.stability is not None
            tasks = levels.stability.perspectives[perspective]
            assert len(tasks) == len(report.ars_by_task)
            cvs = []
            for task in tasks:
                means = list(task.means.values())
                cvs.append(statistics.stdev(means) / statistics.mean(means))
                for level, mean in task.means.items():
                    cell = levels.get_cell(task.task, f"level-{level}").plain
                    assert cell == f"{mean:.2f}"
            ifs = report.ifs[perspective]
            assert ifs is not None and statistics.mean(cvs) == pytest.approx(ifs, rel=1e-9)
            assert levels.get_cell("ifs", "cv").plain == f"{ifs:.3f}"
            line = str(screen.query_one("#stability-ifs", Static).content)
            assert f"{perspective} {ifs:.3f}" in line
        assert "120k" in [str(c.label) for c in levels.columns.values()]
        bars = str(screen.query_one("#length-bars", Static).content)
        assert "120k" in bars and f"{report.ars_by_length[120]:.3f}" in bars

        await pilot.press("right_square_bracket")
        await settle(pilot)
        following = [str(row.value) for row in table.rows]
        assert screen.model == following[following.index(MODEL) + 1]
        assert models.highlighted == following.index(MODEL) + 1
        assert levels.stability is not None and levels.stability.model == screen.model
        await pilot.press("1")
        assert screen.query_one(TabbedContent).active == "capabilities"


async def test_without_lifeval_scores_the_screen_says_how_to_get_them(make_app: MakeApp) -> None:
    app = make_app()  # gold RULER runs only
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_lifbench(pilot)
        assert screen.has_class("-empty")
        empty = screen.query_one("#lifbench-empty", Static)
        assert empty.display and str(empty.content) == EMPTY_MESSAGE
        assert "lctui import lifbench-scores DIR" in EMPTY_MESSAGE
        assert not screen.query_one(TabbedContent).display
        # Keys with nothing to show are not offered: no perspective, no next model.
        footer = _footer(screen)
        assert "esc Back" in footer and not {"p Perspective", "] Next model"} & footer
        await pilot.press("p", "right_square_bracket", "2")
        assert screen.query_one(TabbedContent).active == "capabilities"
        await pilot.press("escape")
        assert not isinstance(app.screen, LifbenchScreen)


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
        lines = [line.strip() for line in rendered(table)]
        headings = [line.split()[0] for line in lines if "earned" in line and "of" in line]
        assert headings == ["Ori", "Fmt", "Recog"]  # the canonical capability order
        assert any(line.startswith("correct") for line in lines)
